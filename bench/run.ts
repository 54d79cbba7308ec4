#!/usr/bin/env bun
/**
 * The benchmark of issue #5: `npm run bench` (full: 5,000 companies × 20 years) or
 * `npm run bench:quick` (200 × 5, a CI smoke run of under two minutes).
 *
 * 1. generates the universe once, in the importer's source layout (cached in .bench-cache/);
 * 2. imports it with `stockd import` (wall time, peak RSS);
 * 3. creates users and keys with the CLI, starts `stockd serve`, times spawn → first
 *    authenticated 200, reads the idle RSS;
 * 4. drives profile, fundamental-metrics and 1-year price calls at 64 connections against a
 *    bare Bun.serve returning the same bytes, in alternating repetitions (medians);
 * 5. checks billing per key (charged = 2xx × cost, ledger = balance) and prints the tables.
 *
 * Options: --mode full|quick, --root DIR (the stockd checkout to measure; default this one),
 * --label TEXT (names the code under test), --results FILE (default: bench/RESULTS.md for
 * full runs, none for quick), --skip-import (reuse the last import of this mode), --diag
 * (adds /health as a diagnostic row), --only ENDPOINT (repeatable: run only the scenarios
 * billed under these pricing keys, e.g. `--only profile --only price`).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { PRICING } from "../src/http/pricing.ts";
import { stockdCommand, stockdEnv } from "../test/helpers/spawn.ts";
import { type BenchKey, checkBilling, createKeys, Tally } from "./lib/accounts.ts";
import { codeUnderTest, loadAverage, machine } from "./lib/machine.ts";
import { type Mode, modeOf } from "./lib/modes.ts";
import { type MeasuredRun, memoryOf, runMeasured } from "./lib/process.ts";
import { type Report, renderReport, type ScaleFigures } from "./lib/report.ts";
import { writeResults } from "./lib/results-file.ts";
import { compare, type RunContext, type Summary, scenarios, summarize } from "./lib/scenarios.ts";
import { type StockdServer, startStockd } from "./lib/servers.ts";
import { median } from "./lib/stats.ts";
import { ensureUniverse, type Universe } from "./lib/universe.ts";

const REPO = resolve(import.meta.dir, "..");
const CREDITS_PER_KEY = 1_000_000_000;
const IDLE_SETTLE_MS = 3_000;

interface Options {
  mode: Mode;
  root: string;
  label: string | undefined;
  results: string | null;
  skipImport: boolean;
  diag: boolean;
  /** Pricing keys of the scenarios to run (all when empty). */
  only: string[];
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      mode: { type: "string", default: "full" },
      root: { type: "string" },
      label: { type: "string" },
      results: { type: "string" },
      "skip-import": { type: "boolean", default: false },
      diag: { type: "boolean", default: false },
      only: { type: "string", multiple: true },
    },
  });
  const mode = modeOf(values.mode ?? "full");
  const defaultResults = mode.name === "full" ? join(REPO, "bench/RESULTS.md") : null;
  return {
    mode,
    root: resolve(values.root ?? REPO),
    label: values.label,
    results: values.results ? resolve(values.results) : defaultResults,
    skipImport: values["skip-import"] ?? false,
    diag: values.diag ?? false,
    only: values.only ?? [],
  };
}

const log = (line: string) => console.error(`[bench] ${line}`);

/** Total size of the files under `dir`. */
function dirSize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

interface ImportFigures {
  run: Pick<MeasuredRun, "wallMs" | "peakRss" | "cpuMs">;
  priceRows: number;
  snapshotBytes: number;
}

/** Imports the universe into a fresh data dir, measured; or reuses the last one. */
async function importPhase(
  o: Options,
  universe: Universe,
  dataDir: string,
  cacheDir: string,
): Promise<ImportFigures> {
  const saved = join(cacheDir, "import.json");
  if (o.skipImport && existsSync(saved) && existsSync(join(dataDir, "CURRENT"))) {
    log("reusing the last import (--skip-import)");
    for (const f of ["accounts.db", "accounts.db-wal", "accounts.db-shm"])
      rmSync(join(dataDir, f), { force: true });
    return JSON.parse(readFileSync(saved, "utf8")) as ImportFigures;
  }
  rmSync(dataDir, { recursive: true, force: true });
  log(`importing ${universe.dir}`);
  const cmd = stockdCommand(["import", "--from", universe.dir, "--data-dir", dataDir], { root: o.root });
  const run = await runMeasured(cmd, { cwd: o.root, env: stockdEnv() });
  if (run.exitCode !== 0) throw new Error(`import failed (${run.exitCode}):\n${run.output.slice(-4000)}`);
  const manifest = currentManifest(dataDir);
  const figures: ImportFigures = {
    run: { wallMs: run.wallMs, peakRss: run.peakRss, cpuMs: run.cpuMs },
    priceRows: manifest.tables.prices?.rows ?? 0,
    snapshotBytes: [...Object.values(manifest.tables), ...Object.values(manifest.files ?? {})].reduce(
      (n, t) => n + t.bytes,
      0,
    ),
  };
  writeFileSync(saved, JSON.stringify(figures));
  log(`imported in ${(run.wallMs / 1000).toFixed(1)} s, peak RSS ${(run.peakRss / 1024 ** 2).toFixed(0)} MB`);
  return figures;
}

interface ManifestTables {
  tables: Record<string, { rows: number; bytes: number }>;
  /** Files beside the tables (the serving price files). */
  files?: Record<string, { bytes: number }>;
}

function currentManifest(dataDir: string): ManifestTables {
  const id = readFileSync(join(dataDir, "CURRENT"), "utf8").trim();
  return JSON.parse(readFileSync(join(dataDir, "snapshots", id, "manifest.json"), "utf8")) as ManifestTables;
}

/** Starts the server `mode.coldStarts` times, measuring each; the last one is returned running. */
async function coldStarts(o: Options, dataDir: string, probe: { path: string; key: string }, tally: Tally) {
  const times: number[] = [];
  let server: StockdServer | null = null;
  for (let i = 0; i < o.mode.coldStarts; i++) {
    await server?.stop();
    server = await startStockd(o.root, dataDir, probe);
    tally.add(0, "profile", server.probeOk);
    times.push(server.coldStartMs);
    log(`cold start ${i + 1}: ${server.coldStartMs.toFixed(0)} ms to the first authenticated 200`);
  }
  if (!server) throw new Error("no cold start was run");
  return { server, times };
}

interface Measured {
  summaries: Summary[];
  idleRss: number;
  after: ReturnType<typeof memoryOf>;
}

/** Idle RSS, then every scenario against its reference, then the RSS after the load. */
async function measure(
  o: Options,
  universe: Universe,
  ctx: RunContext,
  server: StockdServer,
): Promise<Measured> {
  await Bun.sleep(IDLE_SETTLE_MS);
  const idleRss = memoryOf(server.proc.pid)?.rss ?? Number.NaN;
  const summaries: Summary[] = [];
  for (const [i, scenario] of scenarios(universe, o.diag).entries()) {
    if (o.only.length > 0 && !o.only.includes(scenario.endpoint)) continue;
    summaries.push(summarize(await compare(ctx, scenario, i)));
  }
  return { summaries, idleRss, after: memoryOf(server.proc.pid) };
}

function scaleFigures(
  universe: Universe,
  imported: ImportFigures,
  times: number[],
  m: Measured,
): ScaleFigures {
  return {
    companies: universe.spec.companies,
    years: universe.spec.years,
    priceRows: imported.priceRows,
    sourceBytes: dirSize(universe.dir),
    generatedInS: universe.generatedInS,
    importMs: imported.run.wallMs,
    importPeakRss: imported.run.peakRss,
    importCpuMs: imported.run.cpuMs,
    snapshotBytes: imported.snapshotBytes,
    coldStartsMs: times,
    coldStartMs: median(times),
    idleRss: m.idleRss,
    rssAfterLoad: m.after?.rss ?? Number.NaN,
    anonAfterLoad: m.after?.anon ?? Number.NaN,
    fileAfterLoad: m.after?.file ?? Number.NaN,
    serverPeakRss: m.after?.hwm ?? Number.NaN,
  };
}

/** Prints the report, writes it to the results file, fails the run on a billing mismatch. */
function publish(o: Options, report: Report): void {
  const markdown = renderReport(report);
  console.log(markdown);
  if (o.results) {
    writeResults(o.results, o.mode.name, markdown);
    log(`wrote ${o.results}`);
  }
  if (!report.billing.every((b) => b.ok)) process.exitCode = 1;
}

async function main(): Promise<void> {
  const o = options();
  const machineBefore = machine();
  const cacheDir = join(REPO, ".bench-cache", o.mode.name);
  mkdirSync(cacheDir, { recursive: true });
  const universe = ensureUniverse(cacheDir, o.mode.universe, log);
  const dataDir = join(cacheDir, "data");
  const imported = await importPhase(o, universe, dataDir, cacheDir);
  const keys: BenchKey[] = await createKeys(o.root, dataDir, o.mode.keys, CREDITS_PER_KEY);
  const tally = new Tally();
  const probe = { path: `/stocks/${universe.symbols[0]}/profile`, key: (keys[0] as BenchKey).key };
  const { server, times } = await coldStarts(o, dataDir, probe, tally);
  const workDir = join(cacheDir, "samples");
  const ctx: RunContext = { mode: o.mode, server, keys: keys.map((k) => k.key), tally, workDir, log };
  const measured = await measure(o, universe, ctx, server).finally(() => server.stop());
  const cost = (endpoint: string) => PRICING[endpoint as keyof typeof PRICING] ?? Number.NaN;
  const billing = await checkBilling(o.root, dataDir, keys, tally, cost);
  publish(o, {
    date: `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`,
    mode: o.mode,
    machine: machineBefore,
    code: codeUnderTest(o.root, o.label),
    loadAfter: loadAverage(),
    scale: scaleFigures(universe, imported, times, measured),
    summaries: measured.summaries,
    billing,
  });
}

await main();
