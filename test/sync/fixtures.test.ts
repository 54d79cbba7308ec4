/**
 * `stockd sync` on real SEC files (STOCKD_FIXTURES): Tesla's submissions with their paged file,
 * its companyfacts and a real Form 4 named by a daily index, replayed on loopback; the
 * snapshot's tables equal a direct import of the same fixture files.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { latestFinalDay } from "../../src/sync/daily-index.ts";
import { cliJson } from "../helpers/cli.ts";
import { FIXTURES, fixtureSources, tempDir } from "../helpers/env.ts";
import { ageFetches, current, runSync, tableHashes } from "./helpers.ts";
import { masterIndex, ReplayServer } from "./replay.ts";

const TSLA = "0001318605";
const FORM4 = "0000899243-23-008179";
const indexes = new Map<string, string>();
let replay: ReplayServer;

beforeAll(() => {
  if (FIXTURES) replay = new ReplayServer({ root: FIXTURES, indexes });
});
afterAll(() => replay?.stop());

test.skipIf(!FIXTURES)(
  "Tesla from the SEC's files, then a Form 4 from the daily index: the same tables as a direct import",
  async () => {
    const dataDir = tempDir("stockd-sync-tsla-");
    const first = await runSync(replay, dataDir, ["--tickers", "TSLA", "--form4-since", "2099-01-01"]);
    expect(first.result.code, first.result.stderr).toBe(0);
    expect(replay.requests.map((r) => r.path).sort()).toEqual(
      [
        "/files/company_tickers.json",
        "/files/company_tickers_exchange.json",
        `/submissions/CIK${TSLA}.json`,
        `/submissions/CIK${TSLA}-submissions-001.json`,
        `/api/xbrl/companyfacts/CIK${TSLA}.json`,
      ].sort(),
    );

    ageFetches(dataDir, 2);
    const day = latestFinalDay(new Date());
    indexes.set(day, masterIndex(day, [[TSLA, "4", FORM4]]));
    const next = await runSync(replay, dataDir, ["--since", day]);
    expect(next.result.code, next.result.stderr).toBe(0);
    expect(next.summary?.edgar?.documents).toBe(1);
    expect(current(dataDir)).toBe(next.summary?.snapshot ?? null);

    const direct = fixtureSources("stockd-sync-tsla-direct-", {
      "edgar/company_tickers_exchange.json": "edgar/company_tickers_exchange.json",
      "edgar/company_tickers.json": "edgar/company_tickers.json",
      [`edgar/submissions/CIK${TSLA}.json`]: `edgar/submissions/CIK${TSLA}.json`,
      [`edgar/submissions/CIK${TSLA}-submissions-001.json`]: `edgar/submissions/CIK${TSLA}-submissions-001.json`,
      [`edgar/companyfacts/CIK${TSLA}.json`]: `edgar/companyfacts/CIK${TSLA}.json`,
      [`edgar/form4/TSLA_form4_${FORM4}_doc4.xml`]: `edgar/form4/TSLA_form4_${FORM4}_doc4.xml`,
    });
    const directData = tempDir("stockd-sync-tsla-data-");
    const imported = await cliJson<{ id: string }>(["import", "--from", direct], { dataDir: directData });
    expect(readFileSync(join(dataDir, "sources", "edgar", "companyfacts", `CIK${TSLA}.json`))).toEqual(
      readFileSync(join(FIXTURES as string, "edgar", "companyfacts", `CIK${TSLA}.json`)),
    );
    expect(tableHashes(dataDir, next.summary?.snapshot as string)).toEqual(
      tableHashes(directData, imported.id),
    );
  },
  120_000,
);
