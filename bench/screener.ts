#!/usr/bin/env bun
/**
 * Screener latency (issue 21: a call over 5,000 securities within 50 ms p99):
 * `bun bench/screener.ts [--companies 5000] [--calls 400] [--clients 1,4]`.
 *
 * Generates a universe of `--companies` companies × 2 years (the screener reads one row per
 * security, so the years only cost import time; cached in .bench-cache/screener-N/), imports
 * it once with `stockd import`, starts `stockd serve`, and times `--calls` screener calls of
 * random expressions, sorts and page sizes from 1 client, then from each other client count at
 * once (the default two heavy-call slots then queue them). Every answer must be a 200.
 */
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { stockdCommand, stockdEnv } from "../test/helpers/spawn.ts";
import { createKeys } from "./lib/accounts.ts";
import { machine } from "./lib/machine.ts";
import { runMeasured } from "./lib/process.ts";
import { startStockd } from "./lib/servers.ts";
import { formatMs, markdownTable, quantileSorted } from "./lib/stats.ts";
import { ensureUniverse } from "./lib/universe.ts";

const REPO = resolve(import.meta.dir, "..");
const log = (line: string) => console.error(`[screener] ${line}`);

const { values } = parseArgs({
  options: {
    companies: { type: "string", default: "5000" },
    calls: { type: "string", default: "400" },
    clients: { type: "string", default: "1,4" },
  },
});
const companies = Number(values.companies);
const calls = Number(values.calls);
const clientCounts = (values.clients ?? "1").split(",").map(Number);

/** A random screener query: one of a few shapes a user would send, with random thresholds. */
function randomQuery(random: () => number): string {
  const x = (min: number, max: number) => (min + random() * (max - min)).toPrecision(3);
  const shapes = [
    () => ({
      where: `roe > ${x(0, 0.3)} and pe_ratio < ${x(8, 40)} and market_cap > 1e9`,
      sort: "-fcf_yield",
    }),
    () => ({
      where: `(revenue_growth_1y > ${x(-0.1, 0.3)} or eps_growth_1y > ${x(-0.1, 0.3)}) and debt_to_equity < ${x(0.2, 3)}`,
      sort: "-roe,pe_ratio",
      per_page: "100",
    }),
    () => ({
      where: `dps_ttm is not null and dividend_payout_ratio < ${x(0.2, 1)}`,
      sort: "-dividend_yield",
    }),
    () => ({ where: `net_margin > ${x(0, 0.3)} and sic is not null`, fields: "*", per_page: "20" }),
    () => ({ sort: "-market_cap", page: String(1 + Math.floor(random() * 50)) }),
  ];
  const shape = shapes[Math.floor(random() * shapes.length)] as () => Record<string, string>;
  return `/screener?${new URLSearchParams(shape())}`;
}

/** A data dir with the universe imported (once; later runs reuse it) and no accounts yet. */
async function importedDataDir(): Promise<string> {
  const cacheDir = join(REPO, ".bench-cache", `screener-${companies}`);
  mkdirSync(cacheDir, { recursive: true });
  const lastDay = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const universe = ensureUniverse(
    cacheDir,
    { companies, years: 2, lastDay: lastDay < "2025-12-31" ? lastDay : "2025-12-31" },
    log,
  );
  const dataDir = join(cacheDir, "data");
  for (const f of ["accounts.db", "accounts.db-wal", "accounts.db-shm"])
    rmSync(join(dataDir, f), { force: true });
  if (existsSync(join(dataDir, "CURRENT"))) return dataDir;
  log(`importing ${universe.dir}`);
  const cmd = stockdCommand(["import", "--from", universe.dir, "--data-dir", dataDir], { root: REPO });
  const run = await runMeasured(cmd, { cwd: REPO, env: stockdEnv() });
  if (run.exitCode !== 0) throw new Error(`import failed (${run.exitCode}):\n${run.output.slice(-4000)}`);
  log(`imported in ${(run.wallMs / 1000).toFixed(1)} s`);
  return dataDir;
}

/** Latencies of `count` calls split over `clients` concurrent loops, sorted ascending. */
async function measure(
  url: string,
  key: string,
  clients: number,
  count: number,
  seed: number,
): Promise<number[]> {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const latencies: number[] = [];
  const loop = async () => {
    for (let i = 0; i < count / clients; i++) {
      const path = randomQuery(random);
      const started = performance.now();
      const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      latencies.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: clients }, loop));
  return latencies.sort((a, b) => a - b);
}

const dataDir = await importedDataDir();
const [key] = await createKeys(REPO, dataDir, 1, 1_000_000_000);
if (!key) throw new Error("no key");
const server = await startStockd(REPO, dataDir, { path: "/screener?per_page=1", key: key.key });
try {
  const rows: string[][] = [];
  await measure(server.url, key.key, 1, 50, 1);
  for (const clients of clientCounts) {
    const sorted = await measure(server.url, key.key, clients, calls, 7 + clients);
    const p99 = quantileSorted(sorted, 0.99);
    const verdict = clients === 1 ? (p99 <= 50 ? "✅" : "❌") : "";
    rows.push([
      String(clients),
      String(sorted.length),
      formatMs(quantileSorted(sorted, 0.5)),
      formatMs(p99),
      formatMs(sorted.at(-1) ?? Number.NaN),
      clients === 1 ? `p99 ≤ 50 ms ${verdict}` : "",
    ]);
  }
  const m = machine();
  console.log(
    `Screener over ${companies.toLocaleString("en-US")} companies' securities; ${m.nproc} × ${m.cpu}, load ${m.loadavg}\n`,
  );
  console.log(markdownTable(["clients at once", "calls", "p50", "p99", "max", "target"], rows));
} finally {
  await server.stop();
}
