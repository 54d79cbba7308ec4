/**
 * `sync --all-listed`: the first run downloads the SEC's two bulk archives into the mirror's
 * edgar/ (no per-company request) and the import reads them in place; the snapshot equals a
 * direct import of the same filings from folders. A download cut off goes on with Range from
 * where it stopped, and starts over when the server ignores Range or the archive changed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { cliJson } from "../helpers/cli.ts";
import { demoSourceDir } from "../helpers/demo-sources.ts";
import { tempDir } from "../helpers/env.ts";
import { spawnStockd } from "../helpers/spawn.ts";
import { ZipWriter } from "../helpers/zip-writer.ts";
import { current, runSync, syncEnv, tableHashes } from "./helpers.ts";
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

describe("an archive download cut off", () => {
  /** The requests for one archive from index `from` on. */
  const downloads = (path: string, from: number) =>
    replay.requests.slice(from).filter((r) => r.path === path);
  const size = (path: string) => statSync(path).size;

  test("goes on from where it stopped, in the run and in the next one: no byte is fetched twice", async () => {
    const dataDir = tempDir("stockd-sync-resume-");
    const from = replay.requests.length;
    replay.fault = (path) => (path === SUBMISSIONS ? "cut" : null);
    let first: Awaited<ReturnType<typeof runSync>>;
    try {
      first = await runSync(replay, dataDir, ["--all-listed"]);
    } finally {
      replay.fault = null;
    }
    // Every attempt is cut: the run stops with nothing imported, the part kept for the next.
    expect(first.result.code).toBe(1);
    expect(current(dataDir)).toBeNull();
    const cut = downloads(SUBMISSIONS, from);
    expect(cut.length).toBe(4);
    expect(cut[0]?.range).toBeNull();
    let offset = 0;
    for (const r of cut) {
      if (offset > 0) {
        expect(r.range).toBe(`bytes=${offset}-`);
        expect(r.ifRange).not.toBeNull();
        expect(r.status).toBe(206);
      }
      expect(r.sent).toBeGreaterThan(0);
      offset += r.sent;
    }

    const again = replay.requests.length;
    const second = await runSync(replay, dataDir, []);
    expect(second.result.code, second.result.stderr).toBe(0);
    const resumed = downloads(SUBMISSIONS, again);
    expect(resumed.map((r) => [r.range, r.status])).toEqual([[`bytes=${offset}-`, 206]]);
    // What all the requests sent adds up to the file: nothing was fetched twice.
    const archive = replay.archivePath(SUBMISSIONS);
    expect([...cut, ...resumed].reduce((n, r) => n + r.sent, 0)).toBe(size(archive));
    expect(readFileSync(join(dataDir, "sources", "edgar", "submissions.zip"))).toEqual(readFileSync(archive));
    expect(current(dataDir)).toBe(second.summary?.snapshot ?? null);
  }, 60_000);

  test("killed with kill -9 half-way, the next run asks for the rest only", async () => {
    const dataDir = tempDir("stockd-sync-resume-kill-");
    const partial = join(dataDir, "sync", "partial", "edgar_submissions.zip");
    const from = replay.requests.length;
    replay.fault = (path) => (path === SUBMISSIONS ? "stall" : null);
    // A deadline far off: the client waits on the silent connection until it is killed.
    const proc = spawnStockd(["sync", "--all-listed", "--data-dir", dataDir], {
      env: syncEnv(replay, { STOCKD_SYNC_TIMEOUT_MS: "30000" }),
    });
    try {
      // Killed once the half the replay sent is on disk.
      const sent = async () => {
        while (downloads(SUBMISSIONS, from).length === 0) await Bun.sleep(20);
        return downloads(SUBMISSIONS, from)[0]?.sent as number;
      };
      const half = await sent();
      while ((existsSync(partial) ? size(partial) : 0) < half && proc.exitCode === null) await Bun.sleep(20);
      proc.kill("SIGKILL");
      await proc.exited;
    } finally {
      replay.fault = null;
    }
    expect(proc.signalCode).toBe("SIGKILL");
    const stalled = downloads(SUBMISSIONS, from);
    expect(stalled.length).toBe(1);

    const again = replay.requests.length;
    const { result } = await runSync(replay, dataDir, []);
    expect(result.code, result.stderr).toBe(0);
    const resumed = downloads(SUBMISSIONS, again);
    expect(resumed.map((r) => [r.range, r.status])).toEqual([[`bytes=${stalled[0]?.sent}-`, 206]]);
    const archive = replay.archivePath(SUBMISSIONS);
    expect((stalled[0]?.sent ?? 0) + (resumed[0]?.sent ?? 0)).toBe(size(archive));
    expect(readFileSync(join(dataDir, "sources", "edgar", "submissions.zip"))).toEqual(readFileSync(archive));
  }, 60_000);

  test("starts over when the server ignores Range, or when the file changed meanwhile", async () => {
    const archive = replay.archivePath(COMPANYFACTS);
    // A server without ranges: the retry after the cut gets the whole file again.
    const plain = tempDir("stockd-sync-norange-");
    let from = replay.requests.length;
    replay.ranges = false;
    replay.fault = (path) =>
      path === COMPANYFACTS && downloads(COMPANYFACTS, from).length <= 1 ? "cut" : null;
    try {
      const run = await runSync(replay, plain, ["--all-listed"]);
      expect(run.result.code, run.result.stderr).toBe(0);
    } finally {
      replay.fault = null;
      replay.ranges = true;
    }
    const restarted = downloads(COMPANYFACTS, from);
    expect(restarted.map((r) => r.status)).toEqual([200, 200]);
    expect(restarted[1]?.sent).toBe(size(archive));
    expect(readFileSync(join(plain, "sources", "edgar", "companyfacts.zip"))).toEqual(readFileSync(archive));

    // A part left by a stopped run, then the SEC rebuilds the archive: If-Range fails, the whole new file comes.
    const changed = tempDir("stockd-sync-changed-");
    from = replay.requests.length;
    replay.fault = (path) => (path === COMPANYFACTS ? "cut" : null);
    try {
      expect((await runSync(replay, changed, ["--all-listed"])).result.code).toBe(1);
    } finally {
      replay.fault = null;
    }
    const before = readFileSync(archive);
    // The same entries in the other order: other bytes, the same filings.
    const zip = new ZipWriter(archive);
    for (const name of readdirSync(join(listed, "edgar", "companyfacts"))
      .sort()
      .reverse())
      zip.add(name, readFileSync(join(listed, "edgar", "companyfacts", name)));
    zip.close();
    expect(readFileSync(archive)).not.toEqual(before);
    const again = replay.requests.length;
    const next = await runSync(replay, changed, []);
    expect(next.result.code, next.result.stderr).toBe(0);
    const fresh = downloads(COMPANYFACTS, again);
    expect(fresh.map((r) => [r.range !== null, r.status])).toEqual([[true, 200]]);
    expect(fresh[0]?.sent).toBe(size(archive));
    expect(readFileSync(join(changed, "sources", "edgar", "companyfacts.zip"))).toEqual(
      readFileSync(archive),
    );
  }, 90_000);
});
