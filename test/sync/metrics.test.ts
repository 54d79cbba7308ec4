/**
 * Sync on /metrics: a server on the data dir reports what a `stockd sync` of another process
 * sent (requests by host and status class, bytes, retries, pauses, the last run), as the replay
 * server saw it; and a run of `serve --sync-every` shows on its /metrics while it runs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/log.ts";
import type { SourceCounters } from "../../src/sync/http.ts";
import { CounterFlusher } from "../../src/sync/metrics.ts";
import { SyncState } from "../../src/sync/state.ts";
import { demoSourceDir } from "../helpers/demo-sources.ts";
import { tempDir } from "../helpers/env.ts";
import { ServerProcess } from "../helpers/spawn.ts";
import { runSync, syncEnv } from "./helpers.ts";
import { type Recorded, ReplayServer } from "./replay.ts";

const TOKEN = "metrics-token-for-sync-tests-0123";
const DWGT = "0099000001";
let replay: ReplayServer;

beforeAll(() => {
  replay = new ReplayServer({ root: demoSourceDir() });
});
afterAll(() => replay?.stop());

/** The value of one sample (name plus its exact label set), null when the series is absent. */
function sample(text: string, series: string): number | null {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : null;
}

async function scrape(server: ServerProcess): Promise<string> {
  const response = await server.get("/metrics", TOKEN);
  expect(response.status).toBe(200);
  return await response.text();
}

/** Requests the replay answered, by status class. */
function byClass(requests: readonly Recorded[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of requests) {
    const key = `${Math.floor(r.status / 100)}xx`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

describe("sync on /metrics", () => {
  const dataDir = tempDir("stockd-sync-metrics-");
  const requests = (s: string) =>
    `stockd_sync_requests_total{source="sec",host="${new URL(replay.url).host}",status="${s}"}`;

  test("a server reports what a sync of another process sent, as the replay saw it, and how it ended", async () => {
    const seen = new Map<string, number>();
    replay.fault = (path) => {
      const n = (seen.get(path) ?? 0) + 1;
      seen.set(path, n);
      if (path === "/files/company_tickers.json" && n === 1)
        return new Response("slow down", { status: 429 });
      if (path === `/submissions/CIK${DWGT}.json` && n <= 2) return new Response("oops", { status: 503 });
      return null;
    };
    let outcome: Awaited<ReturnType<typeof runSync>>;
    try {
      outcome = await runSync(replay, dataDir, ["--tickers", "DWGT", "--form4-since", "2099-01-01"]);
    } finally {
      replay.fault = null;
    }
    const { result, summary } = outcome;
    expect(result.code, result.stderr).toBe(0);
    const sent = byClass(replay.requests);
    expect(sent["4xx"]).toBe(1);
    expect(sent["5xx"]).toBe(2);

    const server = await ServerProcess.start({
      dataDir,
      env: syncEnv(replay, { STOCKD_METRICS_TOKEN: TOKEN }),
    });
    try {
      const text = await scrape(server);
      for (const status of ["2xx", "4xx", "5xx"])
        expect(sample(text, requests(status))).toBe(sent[status] ?? 0);
      expect(sample(text, requests("failed"))).toBeNull();
      const sec = summary?.requests.sec as { bytes: number };
      expect(sec.bytes).toBeGreaterThan(0);
      expect(sample(text, 'stockd_sync_bytes_total{source="sec"}')).toBe(sec.bytes);
      expect(sample(text, 'stockd_sync_retries_total{source="sec"}')).toBe(2);
      expect(sample(text, 'stockd_sync_pauses_total{source="sec"}')).toBe(1);
      expect(sample(text, 'stockd_sync_runs_total{status="ok"}')).toBe(1);
      expect(sample(text, 'stockd_sync_last_run_status{status="ok"}')).toBe(1);
      expect(sample(text, 'stockd_sync_last_run_status{status="failed"}')).toBe(0);
      expect(sample(text, "stockd_sync_running")).toBe(0);
      // The ticker lists (one 429 asked again), then DWGT's submissions (two 503s) and companyfacts.
      const stage = (s: string) => sample(text, `stockd_sync_last_run_stage_requests{stage="${s}"}`);
      expect([stage("tickers"), stage("baseline"), stage("daily"), stage("import")]).toEqual([3, 4, 0, 0]);
      expect(replay.requests.length).toBe(7);
      expect(sample(text, 'stockd_sync_last_run_stage_seconds{stage="import"}')).toBeGreaterThan(0);
      const ended = sample(text, "stockd_sync_last_run_end_timestamp_seconds") as number;
      expect(Math.abs(ended * 1000 - Date.now())).toBeLessThan(120_000);
      expect(sample(text, "stockd_sync_last_success_timestamp_seconds")).toBe(ended);
      expect(sample(text, "stockd_sync_index_watermark_timestamp_seconds")).not.toBeNull();
    } finally {
      await server.stop();
    }
  }, 60_000);

  test("a run of serve --sync-every is counted while it runs, and adds to the totals", async () => {
    const before = replay.requests.length;
    // Two more companies for the scheduled run to fetch (a baseline: a year of ownership documents).
    const state = SyncState.open(dataDir);
    state.addToUniverse(["0099000002", "0099000003"]);
    state.close();
    const server = await ServerProcess.start({
      dataDir,
      args: ["--sync-every", "1s"],
      env: syncEnv(replay, { STOCKD_METRICS_TOKEN: TOKEN, STOCKD_SEC_REQUESTS_PER_SECOND: "4" }),
    });
    try {
      const ok = (text: string) => sample(text, 'stockd_sync_runs_total{status="ok"}') ?? 0;
      const sentBefore = byClass(replay.requests)["2xx"] ?? 0;
      // The 2xx counted by each scrape taken while the run held the lock.
      const whileRunning: number[] = [];
      let text = await scrape(server);
      for (let i = 0; i < 600 && ok(text) < 2; i++) {
        await Bun.sleep(50);
        text = await scrape(server);
        if (sample(text, "stockd_sync_running") === 1) whileRunning.push(sample(text, requests("2xx")) ?? 0);
      }
      expect(ok(text)).toBeGreaterThanOrEqual(2);
      const sent = byClass(replay.requests);
      expect(replay.requests.length - before).toBeGreaterThan(4);
      expect(sample(text, requests("2xx"))).toBe(sent["2xx"] ?? 0);
      expect(sample(text, requests("4xx"))).toBe(sent["4xx"] ?? 0);
      // Some scrape during the run saw part of its requests: more than before it, fewer than all.
      expect(whileRunning.some((n) => n > sentBefore && n < (sent["2xx"] ?? 0))).toBe(true);
    } finally {
      await server.stop();
    }
  }, 60_000);
});

test("a counter write that fails is logged, never thrown (from the timer it would end the server)", () => {
  const dataDir = tempDir();
  const state = SyncState.open(dataDir);
  const lines: string[] = [];
  const flusher = new CounterFlusher(
    state,
    createLogger("warn", (line) => lines.push(line)),
  );
  const counters: SourceCounters = {
    requests: 3,
    bytes: 10,
    retries: 0,
    pauses: 0,
    errors: 0,
    statuses: { "www.sec.gov": { "2xx": 3 } },
  };
  flusher.watch("sec", counters);
  // A state file that no longer takes writes (a full disk, an I/O error): here, a closed one.
  state.close();
  expect(() => flusher.stop()).not.toThrow();
  expect(lines.map((l) => JSON.parse(l).level)).toEqual(["warn"]);
});
