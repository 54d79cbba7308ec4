#!/usr/bin/env bun
/**
 * Where the server's time goes under load: starts `bun --cpu-prof src/index.ts serve` on the
 * data dir of a previous `bench/run.ts` (its .bench-cache/<mode>/data), drives one endpoint
 * at 64 connections, stops the server and summarises the profile by self time, by inclusive
 * time of the project's own functions, and by package.
 *
 * Also prints the CPU time per request of the server and of the load generator (which share
 * the machine's cores); `--plain` runs without the profiler and prints only that.
 *
 * `bun bench/profile.ts [--mode quick] [--endpoint profile|fundamental-metrics|price|health]
 *  [--seconds 10] [--root DIR] [--plain]`
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { rng } from "../src/demo/universe.ts";
import { createKeys } from "./lib/accounts.ts";
import { runLoad } from "./lib/loadgen.ts";
import { modeOf } from "./lib/modes.ts";
import { startStockd } from "./lib/servers.ts";
import { universeOf } from "./lib/universe.ts";

const REPO = resolve(import.meta.dir, "..");
/** Linux's USER_HZ, the unit of /proc/<pid>/stat's CPU times. */
const CLOCK_TICKS = 100;

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function options() {
  const { values } = parseArgs({
    options: {
      mode: { type: "string", default: "quick" },
      endpoint: { type: "string", default: "profile" },
      seconds: { type: "string", default: "10" },
      root: { type: "string" },
      plain: { type: "boolean", default: false },
    },
  });
  return {
    mode: values.mode ?? "quick",
    endpoint: values.endpoint ?? "profile",
    seconds: Number(values.seconds ?? 10),
    root: resolve(values.root ?? REPO),
    plain: values.plain ?? false,
  };
}

/** CPU time (user + system, all threads) a process has used so far, seconds. */
function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
    .replace(/^.*\) /, "")
    .split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** A request path of `endpoint` for a random symbol of the cached universe. */
function pathFor(endpoint: string, symbols: readonly string[], random: () => number): string {
  const symbol = symbols[Math.floor(random() * symbols.length)];
  if (endpoint === "health") return "/health";
  if (endpoint === "price") {
    const year = 2021 + Math.floor(random() * 4);
    return `/stocks/${symbol}/price?start_date=${year}-03-01&end_date=${year + 1}-02-28`;
  }
  return `/stocks/${symbol}/${endpoint}`;
}

/** Where a frame comes from: the project's file, a package, Bun's runtime, or native code. */
function packageOf(url: string): string {
  if (url === "") return "(native / GC / idle)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  const own = /\/(src\/[^/]+(?:\/[^/]+)?)/.exec(url)?.[1];
  return own ?? url.replace(/^.*\//, "");
}

const label = (f: CallFrame) =>
  `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\/(src|node_modules)\//, "$1/")}:${f.lineNumber + 1}`;

/** Layers, most specific first: a sample counts for the first one any frame of its stack is in. */
const LAYERS: readonly (readonly [string, (f: CallFrame) => boolean])[] = [
  ["billing: bun:sqlite + src/accounts", (f) => f.url.includes("/src/accounts/") || f.url === "bun:sqlite"],
  [
    "DuckDB (@duckdb/node-api, src/snapshot/duckdb.ts)",
    (f) => f.url.includes("@duckdb") || f.url.endsWith("/src/snapshot/duckdb.ts"),
  ],
  ["route handlers, models, queries", (f) => /\/src\/(http\/routes|http\/models|query|domain)\//.test(f.url)],
  [
    "Elysia (router, validation, response mapping)",
    (f) =>
      /node_modules\/(elysia|@sinclair|memoirist|exact-mirror)/.test(f.url) ||
      (/^(handle|mirror|map|check)$/.test(f.functionName) && f.url === ""),
  ],
  ["edge: src/http/app.ts, context, log", (f) => /\/src\/(http\/app|http\/context|log)\.ts$/.test(f.url)],
];

function layerOf(stack: readonly CallFrame[]): string {
  for (const [name, test] of LAYERS) if (stack.some(test)) return name;
  return stack.length <= 2 ? "outside JS (idle, HTTP I/O, GC)" : "other JS";
}

/** Self and inclusive milliseconds per frame label, self per package, and time per layer. */
function summarise(profile: CpuProfile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const packages = new Map<string, number>();
  const layers = new Map<string, number>();
  let total = 0;
  for (const [i, id] of profile.samples.entries()) {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const node = byId.get(id);
    if (!node) continue;
    total += ms;
    self.set(label(node.callFrame), (self.get(label(node.callFrame)) ?? 0) + ms);
    packages.set(packageOf(node.callFrame.url), (packages.get(packageOf(node.callFrame.url)) ?? 0) + ms);
    const stack: CallFrame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      stack.push((byId.get(at) as ProfileNode).callFrame);
    }
    const layer = layerOf(stack);
    layers.set(layer, (layers.get(layer) ?? 0) + ms);
    for (const name of new Set(stack.filter((f) => f.url.includes("/src/")).map(label))) {
      inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
    }
  }
  return { total, self, inclusive, packages, layers };
}

function printTop(title: string, map: Map<string, number>, total: number, count: number): void {
  console.log(`\n${title}`);
  const top = [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, count);
  for (const [name, ms] of top) console.log(`${((100 * ms) / total).toFixed(1).padStart(6)}%  ${name}`);
}

async function main(): Promise<void> {
  const o = options();
  const cacheDir = join(REPO, ".bench-cache", o.mode);
  const dataDir = join(cacheDir, "data");
  const profDir = join(cacheDir, "cpu-profile");
  rmSync(profDir, { recursive: true, force: true });
  mkdirSync(profDir, { recursive: true });
  for (const f of ["accounts.db", "accounts.db-wal", "accounts.db-shm"])
    rmSync(join(dataDir, f), { force: true });
  const keys = (await createKeys(o.root, dataDir, 4, 1_000_000_000)).map((k) => k.key);
  const symbols = universeOf(cacheDir, modeOf(o.mode).universe).symbols;
  const random = rng(99);
  const probe = { path: pathFor(o.endpoint, symbols, random), key: keys[0] as string };
  const flags = o.plain ? [] : ["--cpu-prof", `--cpu-prof-dir=${profDir}`];
  const server = await startStockd(o.root, dataDir, probe, flags);
  const cpuBefore = { server: cpuSecondsOf(server.proc.pid), generator: process.cpuUsage() };
  const result = await runLoad({
    host: server.host,
    port: server.port,
    connections: 64,
    warmupMs: 1000,
    durationMs: o.seconds * 1000,
    keys,
    next: () => ({ path: pathFor(o.endpoint, symbols, random), key: Math.floor(random() * keys.length) }),
  });
  const served = result.byKey.reduce((n, k) => n + k.ok + k.other, 0);
  const serverUs = ((cpuSecondsOf(server.proc.pid) - cpuBefore.server) * 1e6) / served;
  const used = process.cpuUsage(cpuBefore.generator);
  const generatorUs = (used.user + used.system) / served;
  await server.stop();
  console.log(
    `${o.endpoint}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms`,
  );
  console.log(
    `CPU per request: server ${serverUs.toFixed(1)} µs (all its threads), load generator ${generatorUs.toFixed(1)} µs`,
  );
  if (o.plain) return;
  const file = readdirSync(profDir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no .cpuprofile in ${profDir}`);
  const { total, self, inclusive, packages, layers } = summarise(
    JSON.parse(readFileSync(join(profDir, file), "utf8")),
  );
  console.log(`profile: ${join(profDir, file)} (${(total / 1000).toFixed(1)} s sampled on the JS thread)`);
  printTop("time by layer (a sample counts for the most specific layer on its stack)", layers, total, 10);
  printTop("self time by package", packages, total, 12);
  printTop("self time by function", self, total, 25);
  printTop("inclusive time, project functions", inclusive, total, 25);
}

await main();
