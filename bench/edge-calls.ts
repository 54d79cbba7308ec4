#!/usr/bin/env bun
/**
 * The serving thread's own cost per call, without HTTP: the app's `handle` is called
 * in-process (on the direct routes) over the data dir of a previous `bench/run.ts` (its snapshot, a fresh
 * accounts.db with real keys and debits), 64 calls at a time as 64 connections would make
 * them. On a shared machine this varies far less than req/s, so it is the figure to compare
 * between two versions of the edge, billing or a route (`--root` measures another checkout of
 * the same `createApp` API: 5ac3015 and later).
 *
 * `bun bench/edge-calls.ts [--mode quick|full] [--root DIR] [--rounds 1000]`
 */
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { rng } from "../src/demo/universe.ts";
import { modeOf } from "./lib/modes.ts";
import { median } from "./lib/stats.ts";
import { universeOf } from "./lib/universe.ts";

const REPO = resolve(import.meta.dir, "..");
const CONNECTIONS = 64;
const USERS = 8;
const REPETITIONS = 7;

const { values } = parseArgs({
  options: {
    mode: { type: "string", default: "quick" },
    root: { type: "string" },
    rounds: { type: "string", default: "1000" },
  },
});
const mode = modeOf(values.mode ?? "quick");
const root = resolve(values.root ?? REPO);
const rounds = Number(values.rounds ?? 1000);

// The checkout under test, loaded by path so that `--root` can measure another version.
const { Billing } = await import(join(root, "src/accounts/billing.ts"));
const { AccountsStore } = await import(join(root, "src/accounts/store.ts"));
const { createApp } = await import(join(root, "src/http/app.ts"));
const { createLogger } = await import(join(root, "src/log.ts"));
const { openDuckDb } = await import(join(root, "src/snapshot/duckdb.ts"));
const { SnapshotService } = await import(join(root, "src/query/snapshot.ts"));

const cacheDir = join(REPO, ".bench-cache", mode.name);
const universe = universeOf(cacheDir, mode.universe);
const dir = mkdtempSync(join(tmpdir(), "stockd-edge-calls-"));
for (const entry of ["snapshots", "CURRENT"]) symlinkSync(join(cacheDir, "data", entry), join(dir, entry));

const log = createLogger("warn");
const accounts = AccountsStore.open(join(dir, "accounts.db"));
const keys = Array.from({ length: USERS }, (_, i) => {
  const user = accounts.createUser(`edge-${i}@bench.invalid`, 1_000_000_000);
  if (!user.ok) throw new Error(user.message);
  return accounts.createKey(user.value.id, "bench", null).key as string;
});
const billing = new Billing(accounts, 1000);
const duckdb = await openDuckDb();
const snapshots = new SnapshotService(duckdb, dir, log);
await snapshots.refresh();
const unlimited = {
  ratePerSecond: 1e9,
  burst: 1e9,
  maxInFlight: 1e9,
  maxInFlightPerUser: 1e9,
  heavySlots: 1e9,
  authFailuresPerMinute: 1e9,
  requestTimeoutMs: 10_000,
};
const { handle } = createApp({ accounts, billing, snapshots, log, version: "bench", limits: unlimited });

/** 64 requests for random symbols and keys, made once and sent every round. */
function requests(path: string, query: (random: () => number) => string) {
  const random = rng(42);
  return Array.from({ length: CONNECTIONS }, () => {
    const symbol = universe.symbols[Math.floor(random() * universe.symbols.length)] as string;
    const key = keys[Math.floor(random() * keys.length)] as string;
    const url = `http://127.0.0.1:1${path.replace(":symbol", symbol)}${query(random)}`;
    const headers = { authorization: `Bearer ${key}`, host: "127.0.0.1:1", accept: "*/*" };
    return new Request(url, { headers });
  });
}

const year = (random: () => number) => {
  const y = Number(universe.lastDay.slice(0, 4)) - 1 - Math.floor(random() * (mode.universe.years - 1));
  return `?start_date=${y}-03-01&end_date=${y + 1}-02-28`;
};
const cases = [
  { name: "profile", path: "/stocks/:symbol/profile", query: () => "" },
  { name: "fundamental-metrics", path: "/stocks/:symbol/fundamental-metrics", query: () => "" },
  { name: "price (1 year)", path: "/stocks/:symbol/price", query: year },
];

for (const c of cases) {
  const batch = requests(c.path, c.query);
  const round = async () => {
    const replies = await Promise.all(batch.map((r) => handle(r)));
    for (const reply of replies) if (reply.status !== 200) throw new Error(`${c.name}: ${reply.status}`);
  };
  for (let i = 0; i < rounds / 2; i++) await round();
  const perCall: number[] = [];
  for (let rep = 0; rep < REPETITIONS; rep++) {
    const started = performance.now();
    for (let i = 0; i < rounds; i++) await round();
    perCall.push(((performance.now() - started) * 1000) / (rounds * CONNECTIONS));
  }
  const sorted = [...perCall].sort((a, b) => a - b);
  console.log(
    `${c.name.padEnd(20)} ${median(perCall).toFixed(2)} µs per call (median of ${REPETITIONS}; ` +
      `min ${sorted[0]?.toFixed(2)}, max ${sorted.at(-1)?.toFixed(2)})`,
  );
}

billing.close();
snapshots.close();
accounts.close();
duckdb.closeSync();
rmSync(dir, { recursive: true, force: true });
