/**
 * Running `stockd sync` against the replay server as an operator would: the CLI in a child
 * process, every base URL on loopback, short pauses and deadlines so that faults cost little.
 */
import { Database } from "bun:sqlite";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type CliResult, cli } from "../helpers/cli.ts";
import { stockdEnv } from "../helpers/spawn.ts";
import type { Recorded, ReplayServer } from "./replay.ts";

export const USER_AGENT = "stockd tests ops@stockd.example";

/** The environment of a sync against `replay`: 10 requests/s, a 1 s throttle pause, a 1.5 s deadline, retries from 50 ms. */
export function syncEnv(replay: ReplayServer, extra: Record<string, string> = {}): Record<string, string> {
  return stockdEnv({
    STOCKD_SEC_URL: replay.url,
    STOCKD_SEC_USER_AGENT: USER_AGENT,
    STOCKD_SEC_REQUESTS_PER_SECOND: "10",
    STOCKD_SEC_PAUSE_SECONDS: "1",
    STOCKD_SYNC_TIMEOUT_MS: "1500",
    STOCKD_SYNC_BACKOFF_MS: "50",
    ...extra,
  });
}

/** What `sync --json` printed. */
export interface Summary {
  status: "ok" | "partial" | "failed";
  snapshot: string | null;
  edgar: {
    universe: number;
    companies: number;
    documents: number;
    indexDays: number;
    watermark: string | null;
    failures: string[];
  } | null;
  prices: {
    provider: string;
    updated: number;
    tickers: number;
    unknown: string[];
    failures: string[];
  } | null;
  requests: Record<string, { requests: number; bytes: number; pauses: number; retries: number }>;
  error: string | null;
}

/** Runs `stockd sync ARGS --json` on `dataDir`; returns the result and the parsed summary (null when none was printed). */
export async function runSync(
  replay: ReplayServer,
  dataDir: string,
  args: readonly string[],
  extra: Record<string, string> = {},
): Promise<{ result: CliResult; summary: Summary | null }> {
  const result = await cli(["sync", ...args, "--json"], {
    dataDir,
    env: syncEnv(replay, extra),
    timeoutMs: 60_000,
  });
  const line = result.stdout.trim().split("\n").at(-1) ?? "";
  return { result, summary: line.startsWith("{") ? (JSON.parse(line) as Summary) : null };
}

/** The active snapshot of a data dir, or null. */
export function current(dataDir: string): string | null {
  const path = join(dataDir, "CURRENT");
  return existsSync(path) ? readFileSync(path, "utf8").trim() : null;
}

/** The SHA-256 of each table of a snapshot (its manifest's). */
export function tableHashes(dataDir: string, id: string): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(dataDir, "snapshots", id, "manifest.json"), "utf8")) as {
    tables: Record<string, { sha256: string }>;
  };
  return Object.fromEntries(Object.entries(manifest.tables).map(([t, e]) => [t, e.sha256]));
}

/** The most requests that arrived within any `windowMs` (half-open windows). */
export function peakRate(requests: readonly Recorded[], windowMs = 1000): number {
  const times = requests.map((r) => r.at).sort((a, b) => a - b);
  let peak = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while ((times[end] as number) - (times[start] as number) >= windowMs) start++;
    peak = Math.max(peak, end - start + 1);
  }
  return peak;
}

/**
 * Moves the sync state back `days` days, as if the last run had been that long ago: every fetch
 * record, and the daily-index watermark.
 */
export function ageFetches(dataDir: string, days: number): void {
  const db = new Database(join(dataDir, "sync", "state.db"));
  try {
    db.query("UPDATE fetched SET fetched_at = strftime('%Y-%m-%dT%H:%M:%fZ', fetched_at, ?)").run(
      `-${days} days`,
    );
    db.query("UPDATE watermark SET value = date(value, ?) WHERE name = 'edgar.daily_index'").run(
      `-${days} days`,
    );
  } finally {
    db.close();
  }
}
