/**
 * The measured endpoints, each against a bare Bun.serve returning the bytes of a sample
 * response of that endpoint, in alternating repetitions (reference, endpoint, endpoint,
 * reference, ...), so that a machine getting busier or quieter shifts both alike.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rng } from "../../src/demo/universe.ts";
import type { Tally } from "./accounts.ts";
import { type LoadResult, runLoad } from "./loadgen.ts";
import type { Mode } from "./modes.ts";
import { type Endpoint, fetchSample, startBare } from "./servers.ts";
import { median } from "./stats.ts";
import type { Universe } from "./universe.ts";

export interface Target {
  ratio: number;
  p99Ms: number;
}

export interface Scenario {
  /** The route as the table shows it. */
  name: string;
  /** The pricing key (src/http/pricing.ts) its 2xx responses are billed under. */
  endpoint: string;
  target: Target | null;
  /** A request path for a random draw. */
  path: (random: () => number) => string;
}

const SNAPSHOT_TARGET: Target = { ratio: 0.5, p99Ms: 10 };
const PRICE_TARGET: Target = { ratio: 0.3, p99Ms: 15 };
const YEAR_MS = 365 * 86_400_000;

const pick = <T>(items: readonly T[], random: () => number): T =>
  items[Math.floor(random() * items.length)] as T;

/** The endpoints of issue #5; `diag` adds /health (the edge and Elysia without auth or billing). */
export function scenarios(universe: Universe, diag: boolean): Scenario[] {
  const symbols = universe.symbols;
  const first = Date.parse(universe.firstDay);
  const lastStart = Date.parse(universe.lastDay) - YEAR_MS + 86_400_000;
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  const priceWindow = (random: () => number) => {
    const start = first + Math.floor((random() * (lastStart - first)) / 86_400_000) * 86_400_000;
    return `start_date=${day(start)}&end_date=${day(start + YEAR_MS - 86_400_000)}`;
  };
  const list: Scenario[] = [
    {
      name: "/stocks/{symbol}/profile",
      endpoint: "profile",
      target: SNAPSHOT_TARGET,
      path: (r) => `/stocks/${pick(symbols, r)}/profile`,
    },
    {
      name: "/stocks/{symbol}/fundamental-metrics",
      endpoint: "fundamental_metrics",
      target: SNAPSHOT_TARGET,
      path: (r) => `/stocks/${pick(symbols, r)}/fundamental-metrics`,
    },
    {
      name: "/stocks/{symbol}/price (1 year)",
      endpoint: "price",
      target: PRICE_TARGET,
      path: (r) => `/stocks/${pick(symbols, r)}/price?${priceWindow(r)}`,
    },
  ];
  if (diag)
    list.push({ name: "/health (diagnostic)", endpoint: "health", target: null, path: () => "/health" });
  return list;
}

export interface Comparison {
  scenario: Scenario;
  bodyBytes: number;
  real: LoadResult[];
  bare: LoadResult[];
}

export interface RunContext {
  mode: Mode;
  server: Endpoint & { url: string };
  keys: readonly string[];
  tally: Tally;
  workDir: string;
  log: (line: string) => void;
}

/** A plan for `target` drawing paths from the scenario and keys at random. */
function plan(
  ctx: RunContext,
  scenario: Scenario,
  target: Endpoint,
  seed: number,
  warmupMs: number,
  durationMs: number,
) {
  const random = rng(seed);
  return {
    host: target.host,
    port: target.port,
    connections: ctx.mode.connections,
    warmupMs,
    durationMs,
    keys: ctx.keys,
    next: () => ({ path: scenario.path(random), key: Math.floor(random() * ctx.keys.length) }),
  };
}

/** Runs the load on the stockd server and books its 2xx responses to the keys. */
async function onServer(
  ctx: RunContext,
  scenario: Scenario,
  seed: number,
  warmupMs: number,
  durationMs: number,
) {
  const result = await runLoad(plan(ctx, scenario, ctx.server, seed, warmupMs, durationMs));
  for (const [i, counts] of result.byKey.entries()) ctx.tally.add(i, scenario.endpoint, counts.ok);
  return result;
}

/** Reference and endpoint, `mode.reps` times each, alternating which goes first. */
export async function compare(ctx: RunContext, scenario: Scenario, index: number): Promise<Comparison> {
  const sample = await sampleBody(ctx, scenario);
  const bare = await startBare(sample.file, sample.contentType);
  const { warmupMs, durationMs, reps } = ctx.mode;
  const out: Comparison = { scenario, bodyBytes: sample.bytes, real: [], bare: [] };
  try {
    await onServer(ctx, scenario, 1, 0, warmupMs); // warm-up pass (JIT, caches), not reported
    for (let rep = 0; rep < reps; rep++) {
      const seed = 1000 * (index + 1) + rep;
      const runBare = async () =>
        out.bare.push(await runLoad(plan(ctx, scenario, bare, seed, warmupMs, durationMs)));
      const runReal = async () => out.real.push(await onServer(ctx, scenario, seed, warmupMs, durationMs));
      if (rep % 2 === 0) await runBare().then(runReal);
      else await runReal().then(runBare);
      const r = out.real.at(-1) as LoadResult;
      const b = out.bare.at(-1) as LoadResult;
      ctx.log(
        `  ${scenario.name} rep ${rep + 1}: ${r.rps.toFixed(0)} req/s vs bare ${b.rps.toFixed(0)} (p99 ${r.p99.toFixed(2)} / ${b.p99.toFixed(2)} ms)${statusNote(r)}`,
      );
    }
  } finally {
    await bare.stop();
  }
  return out;
}

/** ", statuses {...}" when anything but 2xx came back (a limit, an error), else "". */
function statusNote(r: LoadResult): string {
  const other = Object.keys(r.statuses).filter((status) => !status.startsWith("2"));
  if (other.length === 0 && r.errors === 0) return "";
  return `, statuses ${JSON.stringify(r.statuses)}, connection errors ${r.errors}`;
}

/** One response of the endpoint, saved for the bare server to return. */
async function sampleBody(ctx: RunContext, scenario: Scenario) {
  const path = scenario.path(rng(7));
  const sample = await fetchSample(`${ctx.server.url}${path}`, ctx.keys[0] as string);
  if (sample.status !== 200) throw new Error(`sample ${path} answered ${sample.status}`);
  if (scenario.endpoint !== "health") ctx.tally.add(0, scenario.endpoint, 1);
  mkdirSync(ctx.workDir, { recursive: true });
  const file = join(ctx.workDir, `sample-${scenario.endpoint}.body`);
  writeFileSync(file, sample.body);
  return { file, contentType: sample.contentType, bytes: sample.body.length };
}

export interface Summary {
  name: string;
  rps: number;
  bareRps: number;
  ratio: number;
  p50: number;
  p99: number;
  bareP99: number;
  non2xx: number;
  errors: number;
  bodyBytes: number;
  target: Target | null;
  pass: boolean | null;
}

/** Medians over the repetitions, and the verdict against the scenario's target. */
export function summarize(c: Comparison): Summary {
  const rps = median(c.real.map((r) => r.rps));
  const bareRps = median(c.bare.map((r) => r.rps));
  const p99 = median(c.real.map((r) => r.p99));
  const ratio = rps / bareRps;
  const non2xx = c.real.reduce((n, r) => n + r.byKey.reduce((m, k) => m + k.other, 0), 0);
  const target = c.scenario.target;
  return {
    name: c.scenario.name,
    rps,
    bareRps,
    ratio,
    p50: median(c.real.map((r) => r.p50)),
    p99,
    bareP99: median(c.bare.map((r) => r.p99)),
    non2xx,
    errors: c.real.reduce((n, r) => n + r.errors, 0),
    bodyBytes: c.bodyBytes,
    target,
    pass: target ? ratio >= target.ratio && p99 <= target.p99Ms && non2xx === 0 : null,
  };
}
