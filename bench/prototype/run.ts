#!/usr/bin/env bun
/**
 * Measures the prototype serving path (bench/prototype/fast-server.ts) exactly as
 * bench/run.ts measures stockd: same universe and import (run bench/run.ts for the mode
 * first), same keys through the CLI, same scenarios, references, repetitions and billing check.
 *
 * `bun bench/prototype/run.ts [--mode quick|full] [--root DIR]`
 */
import { existsSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { PRICING } from "../../src/http/pricing.ts";
import { type BenchKey, checkBilling, createKeys, Tally } from "../lib/accounts.ts";
import { loadAverage } from "../lib/machine.ts";
import { modeOf } from "../lib/modes.ts";
import { memoryOf, runMeasured, stockdEnv } from "../lib/process.ts";
import { billingTable, throughputTable } from "../lib/report.ts";
import { compare, type RunContext, scenarios, summarize } from "../lib/scenarios.ts";
import { startListening } from "../lib/servers.ts";
import { formatBytes, formatMs } from "../lib/stats.ts";
import { universeOf } from "../lib/universe.ts";

const REPO = resolve(import.meta.dir, "../..");
const log = (line: string) => console.error(`[prototype] ${line}`);

/** Builds DATA_DIR/prices.bin when it is missing or older than the active snapshot. */
async function ensurePriceFile(dataDir: string): Promise<void> {
  const file = join(dataDir, "prices.bin");
  const text = `${file}.txt`;
  if (existsSync(text) && statSync(text).mtimeMs > statSync(join(dataDir, "CURRENT")).mtimeMs) return;
  const script = join(import.meta.dir, "build-prices.ts");
  const run = await runMeasured([process.execPath, script, dataDir], { cwd: REPO, env: stockdEnv() });
  if (run.exitCode !== 0) throw new Error(`build-prices failed:\n${run.output}`);
  log(
    `prices.bin ${formatBytes(statSync(file).size)}, prices.bin.txt ${formatBytes(statSync(text).size)}: written in ${formatMs(run.wallMs)}, peak RSS ${formatBytes(run.peakRss)}`,
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { mode: { type: "string", default: "quick" }, root: { type: "string" } },
  });
  const mode = modeOf(values.mode ?? "quick");
  const root = resolve(values.root ?? REPO);
  const cacheDir = join(REPO, ".bench-cache", mode.name);
  const dataDir = join(cacheDir, "data");
  if (!existsSync(join(dataDir, "CURRENT")))
    throw new Error(`no import in ${dataDir}: run bench/run.ts first`);
  const universe = universeOf(cacheDir, mode.universe);
  await ensurePriceFile(dataDir);
  for (const f of ["accounts.db", "accounts.db-wal", "accounts.db-shm"])
    rmSync(join(dataDir, f), { force: true });
  const keys: BenchKey[] = createKeys(root, dataDir, mode.keys, 1_000_000_000);
  const tally = new Tally();
  const probe = { path: `/stocks/${universe.symbols[0]}/profile`, key: (keys[0] as BenchKey).key };
  const cmd = [process.execPath, join(import.meta.dir, "fast-server.ts"), dataDir];
  const server = await startListening(cmd, REPO, probe);
  tally.add(0, "profile", server.probeOk);
  log(`cold start ${formatMs(server.coldStartMs)}`);
  const summaries = [];
  let idle = Number.NaN;
  try {
    await Bun.sleep(3_000);
    idle = memoryOf(server.proc.pid)?.rss ?? Number.NaN;
    const ctx: RunContext = {
      mode,
      server,
      keys: keys.map((k) => k.key),
      tally,
      workDir: join(cacheDir, "samples-prototype"),
      log,
    };
    for (const [i, scenario] of scenarios(universe, false).entries())
      summaries.push(summarize(await compare(ctx, scenario, i)));
  } finally {
    const after = memoryOf(server.proc.pid);
    log(`RSS idle ${formatBytes(idle)}, after load ${formatBytes(after?.rss ?? Number.NaN)}`);
    await server.stop();
  }
  const cost = (endpoint: string) => PRICING[endpoint as keyof typeof PRICING] ?? Number.NaN;
  const billing = checkBilling(root, dataDir, keys, tally, cost);
  console.log(
    `## prototype serving path, ${mode.name} universe, ${new Date().toISOString().slice(0, 16)} UTC (load ${loadAverage()})\n`,
  );
  console.log(throughputTable(summaries));
  console.log(`\ncold start ${formatMs(server.coldStartMs)}, idle RSS ${formatBytes(idle)}\n`);
  console.log(billingTable(billing));
  if (!billing.every((b) => b.ok)) process.exitCode = 1;
}

await main();
