/**
 * `serve --sync-every`: the running server syncs on its own interval and serves the snapshot
 * the run imports (its /health names it) without a restart.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { latestFinalDay } from "../../src/sync/daily-index.ts";
import { cli } from "../helpers/cli.ts";
import { demoSourceDir } from "../helpers/demo-sources.ts";
import { tempDir } from "../helpers/env.ts";
import { ServerProcess } from "../helpers/spawn.ts";
import { ageFetches, current, runSync, syncEnv } from "./helpers.ts";
import { masterIndex, ReplayServer } from "./replay.ts";

const demo = demoSourceDir();
const indexes = new Map<string, string>();
let replay: ReplayServer;
beforeAll(() => {
  replay = new ReplayServer({ root: demo, indexes });
});
afterAll(() => replay?.stop());

test("serve --sync-every syncs on its interval and serves what the run imported", async () => {
  const dataDir = tempDir("stockd-sync-serve-");
  const first = await runSync(replay, dataDir, ["--tickers", "DWGT", "--form4-since", "2099-01-01"]);
  expect(first.result.code, first.result.stderr).toBe(0);
  const before = first.summary?.snapshot as string;

  // A day later the index names a Form 4 of DWGT: the scheduled run fetches it and imports.
  ageFetches(dataDir, 1);
  const day = latestFinalDay(new Date());
  const accession = /\d{10}-\d{2}-\d{6}/.exec(
    readdirSync(join(demo, "edgar", "form4")).find((f) => f.includes("0099000001-")) as string,
  )?.[0] as string;
  indexes.set(day, masterIndex(day, [["0099000001", "4", accession]]));
  const logFile = join(dataDir, "serve.log");
  const server = await ServerProcess.start({
    dataDir,
    args: ["--sync-every", "1s"],
    env: syncEnv(replay, { STOCKD_LOG_LEVEL: "info" }),
    logFile,
  });
  try {
    let served = before;
    for (let i = 0; i < 150 && served === before; i++) {
      await Bun.sleep(200);
      served = ((await (await server.get("/health")).json()) as { snapshot_id: string }).snapshot_id;
    }
    expect(
      served,
      readFileSync(logFile, "utf8")
        .split("\n")
        .filter((l) => !l.includes(`"msg":"request"`))
        .slice(0, 30)
        .join("\n"),
    ).not.toBe(before);
    expect(served).toBe(current(dataDir) as string);
  } finally {
    await server.stop();
  }
}, 60_000);

test("serve --sync-every without a User-Agent, or with no duration, is a usage error", async () => {
  const env = syncEnv(replay);
  delete env.STOCKD_SEC_USER_AGENT;
  const anonymous = await cli(["serve", "--sync-every", "24h"], { dataDir: tempDir(), env });
  expect(anonymous.code).toBe(2);
  expect(anonymous.stderr).toContain("sec_user_agent");
  const bad = await cli(["serve", "--sync-every", "daily"], { dataDir: tempDir(), env: syncEnv(replay) });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--sync-every");
});
