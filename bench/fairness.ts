#!/usr/bin/env bun
/**
 * One caller cannot starve the rest: `bun bench/fairness.ts [--root DIR ...] [--seconds N]`.
 *
 * Over the demo data and the shipped limits (per key, per user, heavy-call slots), a second
 * user calls `/sec_filings` one call after another (at most 50 a second, under its key's rate
 * limit); its latencies are measured on an idle
 * server, then while one user with 8 keys keeps 256 heavy calls in flight. The figure is the
 * ratio of the two p99s (the target: within 2×). Each `--root` (a stockd checkout) is measured
 * in the same run, in turn, so that two versions compare on one machine's same moment.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { cli, cliJson } from "../test/helpers/cli.ts";
import { LIFTED_LIMITS, stockdEnv } from "../test/helpers/spawn.ts";
import { runLoad } from "./lib/loadgen.ts";
import { loadAverage } from "./lib/machine.ts";
import { startStockd } from "./lib/servers.ts";
import { median, quantileSorted } from "./lib/stats.ts";

const VICTIM_PATH = "/sec_filings?ticker=DWGT&per_page=20";
/** The victim's pace: one call every 20 ms, well under its key's rate limit (100/s). */
const VICTIM_EVERY_MS = 20;
/** The flood: the slowest heavy calls of the demo data, and a statement. */
const FLOOD_PATHS = [
  "/sec_filings?per_page=1000",
  "/stocks/DWGT/income-statement?period_type=quarterly&limit=40",
];
const FLOOD_KEYS = 8;
const FLOOD_CONNECTIONS = Number(process.env.FLOOD_CONNECTIONS ?? 256);

const { values } = parseArgs({
  options: {
    root: { type: "string", multiple: true },
    seconds: { type: "string", default: "8" },
    repetitions: { type: "string", default: "3" },
  },
});
const roots = (values.root ?? ["."]).map((r) => resolve(r));
const seconds = Number(values.seconds);
const repetitions = Number(values.repetitions);

interface Phase {
  p50: number;
  p99: number;
  calls: number;
  statuses: Record<number, number>;
}

interface Figures {
  root: string;
  idle: Phase[];
  loaded: Phase[];
  floods: { rps: number; statuses: Record<string, number> }[];
}

/** The shipped limits: stockdEnv lifts them for the throughput bench; this bench measures them. */
function shippedLimitsEnv(): Record<string, string> {
  const env = stockdEnv();
  for (const name of Object.keys(LIFTED_LIMITS)) delete env[name];
  return env;
}

async function victimCalls(url: string, key: string, ms: number) {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const started = performance.now();
    const res = await fetch(url + VICTIM_PATH, { headers: { authorization: `Bearer ${key}` } });
    await res.arrayBuffer();
    const took = performance.now() - started;
    latencies.push(took);
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    if (took < VICTIM_EVERY_MS) await Bun.sleep(VICTIM_EVERY_MS - took);
  }
  latencies.sort((a, b) => a - b);
  return {
    p50: quantileSorted(latencies, 0.5),
    p99: quantileSorted(latencies, 0.99),
    calls: latencies.length,
    statuses,
  };
}

async function measure(root: string): Promise<Figures> {
  const dataDir = mkdtempSync(join(tmpdir(), "stockd-fairness-"));
  try {
    const opts = { root, cwd: root, dataDir };
    const demo = await cli(["demo"], opts);
    if (demo.code !== 0) throw new Error(`stockd demo failed: ${demo.stderr}`);
    const user = async (email: string, keys: number) => {
      await cliJson(["users", "create", "--email", email, "--credits", "1000000000"], opts);
      const made: string[] = [];
      for (let i = 0; i < keys; i++)
        made.push(
          (await cliJson<{ key: string }>(["keys", "create", "--user", email, "--name", `k${i}`], opts)).key,
        );
      return made;
    };
    const [victim] = (await user("victim@bench.invalid", 1)) as [string];
    const flooder = await user("flooder@bench.invalid", FLOOD_KEYS);
    const server = await startStockd(
      root,
      dataDir,
      { path: VICTIM_PATH, key: victim },
      [],
      shippedLimitsEnv(),
    );
    try {
      await victimCalls(server.url, victim, 1_000);
      const idle: Phase[] = [];
      const loaded: Phase[] = [];
      const floods: { rps: number; statuses: Record<string, number> }[] = [];
      for (let rep = 0; rep < repetitions; rep++) {
        idle.push(await victimCalls(server.url, victim, seconds * 1000));
        let i = 0;
        const flood = runLoad({
          host: server.host,
          port: server.port,
          connections: FLOOD_CONNECTIONS,
          warmupMs: 1_000,
          durationMs: seconds * 1000,
          keys: flooder,
          next: () => ({ path: FLOOD_PATHS[i % FLOOD_PATHS.length] as string, key: i++ % FLOOD_KEYS }),
        });
        await Bun.sleep(1_000);
        loaded.push(await victimCalls(server.url, victim, seconds * 1000));
        const result = await flood;
        floods.push({ rps: result.rps, statuses: result.statuses });
      }
      return { root, idle, loaded, floods };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(
  `fairness: ${repetitions} × (${seconds} s idle, ${seconds} s under ${FLOOD_CONNECTIONS} heavy calls of one user with ` +
    `${FLOOD_KEYS} keys), medians; load average ${loadAverage()}`,
);
console.log(
  "| root | idle p50 / p99 ms | under the flood p50 / p99 ms | p99 ratio | victim calls idle / loaded (non-200) | flood req/s (429s) |",
);
console.log("|---|---|---|---|---|---|");
for (const root of roots) {
  const f = await measure(root);
  const ms = (n: number) => n.toFixed(1);
  const mid = (phases: Phase[], pick: (p: Phase) => number) => median(phases.map(pick));
  const calls = (phases: Phase[]) => phases.reduce((n, p) => n + p.calls, 0);
  const failed = (phases: Phase[]) =>
    phases.reduce(
      (n, p) => n + Object.entries(p.statuses).reduce((m, [s, c]) => m + (s === "200" ? 0 : c), 0),
      0,
    );
  const idleP99 = mid(f.idle, (p) => p.p99);
  const loadedP99 = mid(f.loaded, (p) => p.p99);
  console.log(
    `| ${f.root} | ${ms(mid(f.idle, (p) => p.p50))} / ${ms(idleP99)} | ${ms(mid(f.loaded, (p) => p.p50))} / ${ms(loadedP99)} | ` +
      `${(loadedP99 / idleP99).toFixed(2)}× | ${calls(f.idle)} / ${calls(f.loaded)} (${failed(f.loaded)}) | ` +
      `${Math.round(median(f.floods.map((x) => x.rps)))} (${f.floods.reduce((n, x) => n + (x.statuses["429"] ?? 0), 0)}) |`,
  );
}
