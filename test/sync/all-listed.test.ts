/**
 * `sync --all-listed`: the first run downloads the SEC's two bulk archives into the mirror's
 * edgar/ (no per-company request) and the import reads them in place; the snapshot equals a
 * direct import of the same filings from folders.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliJson } from "../helpers/cli.ts";
import { demoSourceDir } from "../helpers/demo-sources.ts";
import { tempDir } from "../helpers/env.ts";
import { ZipWriter } from "../helpers/zip-writer.ts";
import { current, runSync, tableHashes } from "./helpers.ts";
import { ReplayServer } from "./replay.ts";

const demo = demoSourceDir();
const SUBMISSIONS = "/Archives/edgar/daily-index/bulkdata/submissions.zip";
const COMPANYFACTS = "/Archives/edgar/daily-index/xbrl/companyfacts.zip";
let replay: ReplayServer;

/** The SEC's files for the first six demo companies: a small "every listed company". */
const listed = tempDir("stockd-sync-listed-");

/** A zip of every file of a folder of `listed`, as the SEC builds its archives (one entry per CIK file). */
function archiveOf(folder: string): string {
  const path = join(tempDir("stockd-sync-zip-"), `${folder}.zip`);
  const zip = new ZipWriter(path);
  for (const name of readdirSync(join(listed, "edgar", folder)).sort())
    zip.add(name, readFileSync(join(listed, "edgar", folder, name)));
  zip.close();
  return path;
}

beforeAll(() => {
  const list = JSON.parse(readFileSync(join(demo, "edgar", "company_tickers_exchange.json"), "utf8")) as {
    data: [number][];
  };
  list.data = list.data.slice(0, 6);
  mkdirSync(join(listed, "edgar"), { recursive: true });
  writeFileSync(join(listed, "edgar", "company_tickers_exchange.json"), JSON.stringify(list));
  for (const folder of ["submissions", "companyfacts"]) {
    mkdirSync(join(listed, "edgar", folder));
    for (const [cik] of list.data) {
      const name = `CIK${String(cik).padStart(10, "0")}.json`;
      copyFileSync(join(demo, "edgar", folder, name), join(listed, "edgar", folder, name));
    }
  }
  replay = new ReplayServer({
    root: listed,
    archives: { [SUBMISSIONS]: archiveOf("submissions"), [COMPANYFACTS]: archiveOf("companyfacts") },
  });
});
afterAll(() => replay?.stop());

test("the first --all-listed run downloads the two archives and imports them like the folders", async () => {
  const dataDir = tempDir("stockd-sync-all-");
  const { result, summary } = await runSync(replay, dataDir, ["--all-listed"]);
  expect(result.code, result.stderr).toBe(0);
  const rows = (
    JSON.parse(readFileSync(join(listed, "edgar", "company_tickers_exchange.json"), "utf8")) as {
      data: [number][];
    }
  ).data;
  expect(summary?.edgar?.universe).toBe(new Set(rows.map(([cik]) => cik)).size);
  expect(replay.requests.map((r) => r.path).sort()).toEqual(
    [SUBMISSIONS, COMPANYFACTS, "/files/company_tickers_exchange.json", "/files/company_tickers.json"].sort(),
  );
  const edgar = join(dataDir, "sources", "edgar");
  expect(readFileSync(join(edgar, "submissions.zip"))).toEqual(readFileSync(replay.archivePath(SUBMISSIONS)));
  expect(current(dataDir)).toBe(summary?.snapshot ?? null);

  // The same filings from folders, imported directly.
  const folders = tempDir("stockd-sync-all-direct-src-");
  mkdirSync(join(folders, "edgar"), { recursive: true });
  for (const name of ["company_tickers_exchange.json", "company_tickers.json"])
    copyFileSync(join(edgar, name), join(folders, "edgar", name));
  for (const folder of ["submissions", "companyfacts"])
    cpSync(join(listed, "edgar", folder), join(folders, "edgar", folder), { recursive: true });
  const direct = tempDir("stockd-sync-all-direct-");
  const imported = await cliJson<{ id: string }>(["import", "--from", folders], { dataDir: direct });
  expect(tableHashes(dataDir, summary?.snapshot as string)).toEqual(tableHashes(direct, imported.id));

  // A later run does not download them again.
  const from = replay.requests.length;
  const again = await runSync(replay, dataDir, []);
  expect(again.result.code, again.result.stderr).toBe(0);
  expect(replay.requests.slice(from).filter((r) => r.path.endsWith(".zip"))).toEqual([]);
}, 60_000);
