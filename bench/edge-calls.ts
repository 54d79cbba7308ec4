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
import { inProcessApp } from "./lib/in-process.ts";
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

const cacheDir = join(REPO, ".bench-cache", mode.name);
const universe = universeOf(cacheDir, mode.universe);
const dir = mkdtempSync(join(tmpdir(), "stockd-edge-calls-"));
for (const entry of ["snapshots", "CURRENT"]) symlinkSync(join(cacheDir, "data", entry), join(dir, entry));

// The checkout under test, loaded by path so that `--root` can measure another version.
const bench = await inProcessApp(root, dir, { users: USERS });
const { keys } = bench;

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
    const replies = await Promise.all(batch.map((r) => bench.app.handle(r)));
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

bench.close();
rmSync(dir, { recursive: true, force: true });
