/**
 * `stockd sync` end to end against the replay server playing the SEC from the demo
 * generator's source files (no fixtures needed): the first sync, the daily updates, a kill -9
 * and its resume, throttles, faults and bad bodies, the rate, the lock and the settings.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { addDays } from "../../src/domain/dates.ts";
import { latestFinalDay } from "../../src/sync/daily-index.ts";
import { cli, cliJson } from "../helpers/cli.ts";
import { demoSourceDir } from "../helpers/demo-sources.ts";
import { tempDir } from "../helpers/env.ts";
import { spawnStockd } from "../helpers/spawn.ts";
import { ageFetches, current, peakRate, runSync, syncEnv, tableHashes, USER_AGENT } from "./helpers.ts";
import { masterIndex, ReplayServer, THRESHOLD_PAGE } from "./replay.ts";

const DWGT = "0099000001";
const DCLD = "0099000002";
const DSEM = "0099000003";
/** Ownership documents of new companies are fetched back to this day (a few per company). */
const FORM4_SINCE = "2026-01-01";

const demo = demoSourceDir();
const indexes = new Map<string, string>();
let replay: ReplayServer;

beforeAll(() => {
  replay = new ReplayServer({ root: demo, indexes });
});
afterAll(() => replay?.stop());

interface Filing {
  accession: string;
  form: string;
  filed: string;
}

/** The filings a demo company's submissions file lists. */
function filingsOf(cik: string): Filing[] {
  const recent = JSON.parse(readFileSync(join(demo, "edgar", "submissions", `CIK${cik}.json`), "utf8"))
    .filings.recent as { accessionNumber: string[]; form: string[]; filingDate: string[] };
  return recent.accessionNumber.map((accession, i) => ({
    accession,
    form: recent.form[i] as string,
    filed: recent.filingDate[i] as string,
  }));
}

/** The demo's ownership document of an accession (its file name holds the accession). */
function form4File(accession: string): string {
  const name = readdirSync(join(demo, "edgar", "form4")).find((f) => f.includes(accession));
  if (!name) throw new Error(`no demo document ${accession}`);
  return join(demo, "edgar", "form4", name);
}

/** Requests made from index `from` on. */
function since(from: number) {
  return replay.requests.slice(from);
}

describe("a first sync and its daily updates", () => {
  const dataDir = tempDir("stockd-sync-");
  let first: string;

  test("the first sync fetches the universe, imports and activates it; the tables equal a direct import of the same files", async () => {
    const from = replay.requests.length;
    const { result, summary } = await runSync(replay, dataDir, [
      "--tickers",
      "DWGT,dcld",
      "--form4-since",
      FORM4_SINCE,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(summary?.status).toBe("ok");
    expect(summary?.edgar?.universe).toBe(2);
    first = summary?.snapshot as string;
    expect(current(dataDir)).toBe(first);

    // The same files, laid out by hand from the demo's sources, imported directly.
    const direct = tempDir("stockd-sync-direct-");
    const expected = tempDir("stockd-sync-expected-");
    mkdirSync(join(expected, "edgar", "submissions"), { recursive: true });
    mkdirSync(join(expected, "edgar", "companyfacts"), { recursive: true });
    mkdirSync(join(expected, "edgar", "form4"), { recursive: true });
    copyFileSync(
      join(demo, "edgar", "company_tickers_exchange.json"),
      join(expected, "edgar", "company_tickers_exchange.json"),
    );
    copyFileSync(
      join(dataDir, "sources", "edgar", "company_tickers.json"),
      join(expected, "edgar", "company_tickers.json"),
    );
    const ownership: string[] = [];
    for (const cik of [DWGT, DCLD]) {
      for (const kind of ["submissions", "companyfacts"])
        copyFileSync(
          join(demo, "edgar", kind, `CIK${cik}.json`),
          join(expected, "edgar", kind, `CIK${cik}.json`),
        );
      for (const f of filingsOf(cik).filter((f) => f.form === "4" && f.filed >= FORM4_SINCE)) {
        ownership.push(f.accession);
        const source = form4File(f.accession);
        copyFileSync(source, join(expected, "edgar", "form4", source.split("/").at(-1) as string));
      }
    }
    expect(ownership.length).toBeGreaterThan(2);
    expect(summary?.edgar?.documents).toBe(ownership.length);
    const imported = await cliJson<{ id: string }>(["import", "--from", expected], { dataDir: direct });
    expect(tableHashes(dataDir, first)).toEqual(tableHashes(direct, imported.id));

    // Every request declared the User-Agent and accepted gzip, within 10 a second.
    const requests = since(from);
    expect(requests.length).toBe(2 + 2 * 2 + ownership.length);
    for (const r of requests) {
      expect(r.userAgent).toBe(USER_AGENT);
      expect(r.acceptEncoding).toContain("gzip");
    }
    expect(peakRate(requests)).toBeLessThanOrEqual(10);
  }, 60_000);

  test("a second sync over days that name nothing new sends only the index requests and imports nothing", async () => {
    const last = latestFinalDay(new Date());
    const start = addDays(last, -3);
    const known = filingsOf(DWGT).find((f) => f.form === "4" && f.filed >= FORM4_SINCE) as Filing;
    // Other companies' filings, and a Form 4 of DWGT already fetched.
    indexes.set(start, masterIndex(start, [[DSEM, "10-Q", "0099000003-26-000001"]]));
    indexes.set(addDays(start, 1), masterIndex(addDays(start, 1), [[DWGT, "4", known.accession]]));
    const from = replay.requests.length;
    const { result, summary } = await runSync(replay, dataDir, ["--since", start]);
    expect(result.code, result.stderr).toBe(0);
    expect(summary?.snapshot).toBeNull();
    expect(current(dataDir)).toBe(first);
    const paths = since(from).map((r) => r.path);
    expect(paths.length).toBe(4);
    for (const path of paths)
      expect(path).toMatch(/^\/Archives\/edgar\/daily-index\/\d{4}\/QTR\d\/master\.\d{8}\.idx$/);
    expect(summary?.edgar?.watermark).toBe(last);
  }, 30_000);

  test("a day later, a periodic report and a new Form 4 in the index fetch that company again and the filing", async () => {
    ageFetches(dataDir, 3);
    const day = latestFinalDay(new Date());
    const older = filingsOf(DWGT).find((f) => f.form === "4" && f.filed < FORM4_SINCE) as Filing;
    indexes.set(
      day,
      masterIndex(day, [
        [DWGT, "10-Q", "0099000001-26-000900"],
        [DWGT, "4", older.accession],
        [DSEM, "8-K", "0099000003-26-000900"],
      ]),
    );
    const from = replay.requests.length;
    const { result, summary } = await runSync(replay, dataDir, ["--since", day]);
    expect(result.code, result.stderr).toBe(0);
    expect(
      since(from)
        .map((r) => r.path)
        .sort(),
    ).toEqual(
      [
        `/Archives/edgar/daily-index/${day.slice(0, 4)}/QTR${Math.floor((Number(day.slice(5, 7)) - 1) / 3) + 1}/master.${day.replaceAll("-", "")}.idx`,
        // The ticker lists are fetched again when older than 12 hours.
        "/files/company_tickers_exchange.json",
        "/files/company_tickers.json",
        `/submissions/CIK${DWGT}.json`,
        `/api/xbrl/companyfacts/CIK${DWGT}.json`,
        `/Archives/edgar/data/${Number(DWGT)}/${older.accession}.txt`,
      ].sort(),
    );
    expect(existsSync(join(dataDir, "sources", "edgar", "form4", `${older.accession}.txt`))).toBe(true);
    // The new document changed the mirror: a new snapshot is imported and served.
    expect(summary?.snapshot).not.toBeNull();
    expect(summary?.snapshot).not.toBe(first);
    expect(current(dataDir)).toBe(summary?.snapshot ?? null);
  }, 30_000);

  test("sync status shows the runs, the watermark and the universe", async () => {
    const status = await cliJson<{
      universe: number;
      watermarks: { name: string; value: string }[];
      runs: { status: string }[];
      filings: Record<string, number>;
      running: unknown;
    }>(["sync", "status"], { dataDir });
    expect(status.universe).toBe(2);
    expect(status.running).toBeNull();
    expect(status.watermarks.find((w) => w.name === "edgar.daily_index")?.value).toBe(
      latestFinalDay(new Date()),
    );
    expect(status.runs.map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
    expect(status.filings.fetched).toBeGreaterThan(3);
  });

  test("a filing the submissions list without XBRL (a 6-K) fetches the submissions again, not the companyfacts", async () => {
    ageFetches(dataDir, 1);
    const day = latestFinalDay(new Date());
    const sixK = "0099000001-26-000950";
    const eightK = "0099000002-26-000950";
    indexes.set(
      day,
      masterIndex(day, [
        [DWGT, "6-K", sixK],
        [DCLD, "8-K", eightK],
      ]),
    );
    // The submissions as the SEC lists them after that day: the new filing first, with its isXBRL.
    for (const [cik, accession, form, xbrl] of [
      [DWGT, sixK, "6-K", 0],
      [DCLD, eightK, "8-K", 1],
    ] as const) {
      const json = JSON.parse(readFileSync(join(demo, "edgar", "submissions", `CIK${cik}.json`), "utf8"));
      const recent = json.filings.recent as Record<string, (string | number)[]>;
      const older = (recent.accessionNumber as string[]).length;
      for (const [key, values] of Object.entries(recent))
        values.unshift({ accessionNumber: accession, form, filingDate: day }[key] ?? "");
      recent.isXBRL = [xbrl, ...Array.from({ length: older }, () => 1)];
      replay.answers.set(`/submissions/CIK${cik}.json`, JSON.stringify(json));
    }
    const from = replay.requests.length;
    try {
      const { result } = await runSync(replay, dataDir, []);
      expect(result.code, result.stderr).toBe(0);
    } finally {
      replay.answers.clear();
    }
    expect(
      since(from)
        .map((r) => r.path)
        .filter((p) => !p.startsWith("/files/") && !p.includes("/daily-index/"))
        .sort(),
    ).toEqual(
      [
        `/submissions/CIK${DWGT}.json`,
        `/submissions/CIK${DCLD}.json`,
        `/api/xbrl/companyfacts/CIK${DCLD}.json`,
      ].sort(),
    );
  }, 30_000);
});

describe("a sync killed with kill -9", () => {
  test("changes nothing served, and the next run resumes without fetching again what it had", async () => {
    const dataDir = tempDir("stockd-sync-kill-");
    const args = [
      "sync",
      "--tickers",
      "DWGT,DCLD,DSEM,DMTR,DNRG",
      "--form4-since",
      "2025-01-01",
      "--data-dir",
      dataDir,
    ];
    const from = replay.requests.length;
    const proc = spawnStockd(args, { env: syncEnv(replay) });
    while (replay.requests.length - from < 16 && proc.exitCode === null) await Bun.sleep(20);
    proc.kill("SIGKILL");
    await proc.exited;
    expect(proc.signalCode).toBe("SIGKILL");
    expect(current(dataDir)).toBeNull();
    const killed = since(from).map((r) => r.path);

    const resumedFrom = replay.requests.length;
    const { result, summary } = await runSync(replay, dataDir, []);
    expect(result.code, result.stderr).toBe(0);
    expect(current(dataDir)).toBe(summary?.snapshot ?? null);
    const resumed = since(resumedFrom).map((r) => r.path);
    // At most the requests in flight at the kill (one per company under way, three at once) are made again.
    const again = resumed.filter((path) => killed.includes(path));
    expect(again.length).toBeLessThanOrEqual(3);
    expect(new Set([...killed, ...resumed]).size).toBe(killed.length + resumed.length - again.length);
    expect(summary?.edgar?.universe).toBe(5);
  }, 60_000);
});

describe("throttles, faults and bad bodies", () => {
  test("a block pauses every SEC request, then the run stops in order with nothing activated", async () => {
    const dataDir = tempDir("stockd-sync-block-");
    const from = replay.requests.length;
    replay.fault = (_path, n) =>
      n - from >= 3
        ? new Response(Bun.gzipSync(new TextEncoder().encode(THRESHOLD_PAGE)), {
            status: 403,
            headers: { "content-encoding": "gzip", "content-type": "text/html" },
          })
        : null;
    try {
      const { result, summary } = await runSync(replay, dataDir, ["--tickers", "DWGT,DCLD,DSEM"]);
      expect(result.code).toBe(1);
      expect(summary?.status).toBe("failed");
      expect(summary?.error).toContain("Request Rate Threshold Exceeded");
      expect(summary?.requests.sec?.pauses).toBe(4);
    } finally {
      replay.fault = null;
    }
    expect(current(dataDir)).toBeNull();
    const requests = since(from);
    const blocked = requests.filter((r) => r.status === 403);
    expect(blocked.length).toBeGreaterThanOrEqual(4);
    // After each block, nothing arrives during the pause but what was already on its way.
    for (const block of blocked.slice(0, -1)) {
      const during = requests.filter((r) => r.at > block.at + 100 && r.at < block.at + 950);
      expect(during).toEqual([]);
    }
    // The watermark never moved; the next run starts over from the universe.
    const status = await cliJson<{ watermarks: { name: string }[] }>(["sync", "status"], { dataDir });
    expect(status.watermarks.map((w) => w.name)).not.toContain("edgar.daily_index");
  }, 30_000);

  test("retries 5xx, cut and stalled bodies, takes gzip, pauses on a 429, and keeps a bad body out of the snapshot", async () => {
    const dataDir = tempDir("stockd-sync-faults-");
    const seen = new Map<string, number>();
    replay.fault = (path) => {
      const n = (seen.get(path) ?? 0) + 1;
      seen.set(path, n);
      if (path === "/files/company_tickers.json" && n === 1)
        return new Response("slow down", { status: 429 });
      if (path === `/submissions/CIK${DWGT}.json` && n === 1) return new Response("oops", { status: 500 });
      if (path === `/api/xbrl/companyfacts/CIK${DWGT}.json` && n === 1) return "cut";
      if (path === `/submissions/CIK${DCLD}.json`) return "gzip";
      if (path === `/api/xbrl/companyfacts/CIK${DCLD}.json`)
        return new Response('{"cik": 99000002, "facts": {');
      if (path === `/submissions/CIK${DSEM}.json` && n === 1) return "stall";
      return null;
    };
    const from = replay.requests.length;
    let outcome: Awaited<ReturnType<typeof runSync>>;
    try {
      outcome = await runSync(replay, dataDir, [
        "--tickers",
        "DWGT,DCLD,DSEM",
        "--form4-since",
        "2099-01-01",
      ]);
    } finally {
      replay.fault = null;
    }
    const { result, summary } = outcome;
    // Imported what is good; the bad companyfacts is an item to retry: exit 3.
    expect(result.code, result.stderr).toBe(3);
    expect(summary?.status).toBe("partial");
    expect(summary?.edgar?.failures.join("\n")).toContain(`CIK ${DCLD}`);
    expect(summary?.requests.sec?.pauses).toBe(1);
    expect(summary?.requests.sec?.retries).toBeGreaterThanOrEqual(3);
    expect(current(dataDir)).toBe(summary?.snapshot ?? null);
    const mirror = join(dataDir, "sources", "edgar");
    expect(existsSync(join(mirror, "companyfacts", `CIK${DCLD}.json`))).toBe(false);
    for (const [kind, cik] of [
      ["companyfacts", DWGT],
      ["submissions", DCLD],
      ["submissions", DSEM],
    ] as const)
      expect(readFileSync(join(mirror, kind, `CIK${cik}.json`))).toEqual(
        readFileSync(join(demo, "edgar", kind, `CIK${cik}.json`)),
      );
    const requests = since(from);
    const throttled = requests.find((r) => r.status === 429) as { at: number };
    expect(requests.filter((r) => r.at > throttled.at + 100 && r.at < throttled.at + 950)).toEqual([]);

    // An incomplete baseline sets no index watermark yet; the run that completes it does.
    type Status = { watermarks: { name: string; value: string }[] };
    const watermark = async (name: string) =>
      (await cliJson<Status>(["sync", "status"], { dataDir })).watermarks.find((w) => w.name === name)?.value;
    expect(await watermark("edgar.daily_index")).toBeUndefined();
    const baselineFrom = await watermark("edgar.baseline_from");
    expect(baselineFrom).toBe(latestFinalDay(new Date()));

    // The next run fetches what failed, and only it.
    const again = replay.requests.length;
    const next = await runSync(replay, dataDir, ["--form4-since", "2099-01-01"]);
    expect(next.result.code, next.result.stderr).toBe(0);
    expect(
      since(again)
        .map((r) => r.path)
        .sort(),
    ).toEqual([`/api/xbrl/companyfacts/CIK${DCLD}.json`]);
    expect(existsSync(join(mirror, "companyfacts", `CIK${DCLD}.json`))).toBe(true);
    expect(await watermark("edgar.daily_index")).toBe(baselineFrom);
  }, 60_000);
});

test("--no-import fills the mirror only; status calls it stale, and the next run imports it without a request", async () => {
  const dataDir = tempDir("stockd-sync-noimport-");
  const filled = await runSync(replay, dataDir, [
    "--tickers",
    "DWGT",
    "--form4-since",
    "2099-01-01",
    "--no-import",
  ]);
  expect(filled.result.code, filled.result.stderr).toBe(0);
  expect(filled.summary?.snapshot).toBeNull();
  expect(current(dataDir)).toBeNull();
  const status = await cliJson<{ stale: string[] }>(["sync", "status"], { dataDir });
  expect(status.stale).toContain("mirror: changed since its last import");
  const from = replay.requests.length;
  const imported = await runSync(replay, dataDir, []);
  expect(imported.result.code, imported.result.stderr).toBe(0);
  expect(replay.requests.length).toBe(from);
  expect(current(dataDir)).toBe(imported.summary?.snapshot ?? null);
  expect(imported.summary?.snapshot).not.toBeNull();
}, 30_000);

describe("settings and the lock", () => {
  test("no User-Agent: a clear error, exit 2, no request", async () => {
    const from = replay.requests.length;
    const env = syncEnv(replay);
    delete env.STOCKD_SEC_USER_AGENT;
    const r = await cli(["sync", "--tickers", "DWGT"], { dataDir: tempDir(), env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--user-agent");
    expect(replay.requests.length).toBe(from);
  });

  test("more than 10 requests a second is refused; a User-Agent without an e-mail too", async () => {
    const fast = await cli(["sync", "--tickers", "DWGT"], {
      dataDir: tempDir(),
      env: syncEnv(replay, { STOCKD_SEC_REQUESTS_PER_SECOND: "11" }),
    });
    expect(fast.code).toBe(2);
    expect(fast.stderr).toContain("STOCKD_SEC_REQUESTS_PER_SECOND");
    const anonymous = await cli(["sync", "--tickers", "DWGT", "--user-agent", "stockd"], {
      dataDir: tempDir(),
      env: syncEnv(replay),
    });
    expect(anonymous.code).toBe(2);
    expect(anonymous.stderr).toContain("--user-agent");
  });

  test("a ticker the SEC's lists do not name is an error naming it", async () => {
    const { result } = await runSync(replay, tempDir(), ["--tickers", "DWGT,NOSUCH"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("NOSUCH");
  });

  test("a second sync on a data dir that a live sync holds exits with a clear message", async () => {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, "sync"), { recursive: true });
    writeFileSync(join(dataDir, "sync", "lock"), `${process.pid}\n`);
    const { result } = await runSync(replay, dataDir, ["--tickers", "DWGT"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`another sync (pid ${process.pid}) is running`);
    // A lock whose process is gone (a kill -9) is taken over: the run gets as far as the universe.
    writeFileSync(join(dataDir, "sync", "lock"), "999999999\n");
    const taken = await runSync(replay, dataDir, ["--tickers", "NOSUCH"]);
    expect(taken.result.code).toBe(2);
    expect(taken.result.stderr).toContain("NOSUCH");
  }, 30_000);
});
