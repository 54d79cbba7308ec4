#!/usr/bin/env bun
/**
 * The bulk-archive benchmark of issue 18: `stockd import` of the generated universe from
 * SEC-style archives (`edgar/companyfacts.zip`, `edgar/submissions.zip`) against the same
 * files in folders, in alternating runs of one session; the ratio of the medians (target
 * ≤ 1.2×) and each run's peak RSS (target ≤ 4 GiB).
 *
 *   bun bench/bulk-archives.ts [--companies 5000] [--years 20] [--reps 3] [--prices]
 *
 * The universe is bench/lib/universe.ts's; without `--prices` it holds the EDGAR files only,
 * so that the figures are those of the part the archives replace. It is generated once into
 * `.bench-cache/bulk-<companies>x<years>[-prices]/`, where the zipped copy is built beside it
 * (hard links for every file but the two folders, which become the archives).
 */
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { stockdCommand, stockdEnv } from "../test/helpers/spawn.ts";
import { ZipWriter } from "../test/helpers/zip-writer.ts";
import { codeUnderTest, loadAverage, machine } from "./lib/machine.ts";
import { type MeasuredRun, runMeasured } from "./lib/process.ts";
import { formatBytes, markdownTable, median } from "./lib/stats.ts";
import { ensureUniverse } from "./lib/universe.ts";

const REPO = resolve(import.meta.dir, "..");
const ARCHIVED = ["companyfacts", "submissions"] as const;

const log = (line: string) => console.error(`[bulk-archives] ${line}`);

function options() {
  const { values } = parseArgs({
    options: {
      companies: { type: "string", default: "5000" },
      years: { type: "string", default: "20" },
      reps: { type: "string", default: "3" },
      prices: { type: "boolean", default: false },
    },
  });
  return {
    companies: Number(values.companies),
    years: Number(values.years),
    reps: Number(values.reps),
    prices: values.prices ?? false,
  };
}

/** The files below `dir`, as paths relative to it. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

function sizeOf(dir: string, files: readonly string[]): number {
  return files.reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
}

/** The universe with its two EDGAR folders as archives, built once beside it. */
function zippedCopy(sources: string): string {
  const zipped = `${sources}-zipped`;
  const marker = join(zipped, ".complete");
  if (existsSync(marker)) return zipped;
  rmSync(zipped, { recursive: true, force: true });
  const archived = (file: string) => ARCHIVED.some((kind) => file.startsWith(join("edgar", kind, "")));
  for (const file of filesBelow(sources).filter((f) => !archived(f) && !f.startsWith("."))) {
    mkdirSync(join(zipped, file, ".."), { recursive: true });
    linkSync(join(sources, file), join(zipped, file));
  }
  for (const kind of ARCHIVED) {
    const folder = join(sources, "edgar", kind);
    const writer = new ZipWriter(join(zipped, "edgar", `${kind}.zip`));
    for (const name of readdirSync(folder).sort()) writer.add(name, readFileSync(join(folder, name)));
    writer.close();
    log(`wrote edgar/${kind}.zip`);
  }
  writeFileSync(marker, "");
  return zipped;
}

async function importOnce(from: string, scratch: string): Promise<MeasuredRun> {
  const dataDir = join(scratch, "data");
  rmSync(dataDir, { recursive: true, force: true });
  const cmd = stockdCommand(["import", "--from", from, "--data-dir", dataDir]);
  const run = await runMeasured(cmd, { cwd: REPO, env: stockdEnv() });
  if (run.exitCode !== 0)
    throw new Error(`import of ${from} failed (${run.exitCode}):\n${run.output.slice(-4000)}`);
  rmSync(dataDir, { recursive: true, force: true });
  return run;
}

async function main(): Promise<void> {
  const o = options();
  const lastDay = "2025-12-31";
  const name = `bulk-${o.companies}x${o.years}${o.prices ? "-prices" : ""}`;
  const cache = join(REPO, ".bench-cache", name);
  const universe = ensureUniverse(
    cache,
    { companies: o.companies, years: o.years, lastDay, prices: o.prices },
    log,
  );
  const zipped = zippedCopy(universe.dir);
  const edgarFiles = ARCHIVED.flatMap((kind) =>
    readdirSync(join(universe.dir, "edgar", kind)).map((f) => join("edgar", kind, f)),
  );
  const sizes = {
    folders: sizeOf(universe.dir, edgarFiles),
    zips: sizeOf(
      zipped,
      ARCHIVED.map((kind) => join("edgar", `${kind}.zip`)),
    ),
  };
  const loadBefore = loadAverage();
  const runs: Record<"folders" | "zips", MeasuredRun[]> = { folders: [], zips: [] };
  for (let rep = 0; rep < o.reps; rep++) {
    for (const arm of rep % 2 === 0 ? (["folders", "zips"] as const) : (["zips", "folders"] as const)) {
      const run = await importOnce(arm === "folders" ? universe.dir : zipped, cache);
      runs[arm].push(run);
      log(
        `${arm} ${rep + 1}/${o.reps}: ${(run.wallMs / 1000).toFixed(1)} s, CPU ${(run.cpuMs / 1000).toFixed(1)} s, peak RSS ${formatBytes(run.peakRss)}, load ${loadAverage()}`,
      );
    }
  }
  const wall = (arm: "folders" | "zips") => median(runs[arm].map((r) => r.wallMs)) / 1000;
  const cpu = (arm: "folders" | "zips") => median(runs[arm].map((r) => r.cpuMs)) / 1000;
  const rows = (["folders", "zips"] as const).map((arm) => [
    arm === "folders"
      ? "folders (`edgar/companyfacts/`, `edgar/submissions/`)"
      : "archives (`companyfacts.zip`, `submissions.zip`)",
    runs[arm].map((r) => (r.wallMs / 1000).toFixed(1)).join(", "),
    `${wall(arm).toFixed(1)} s`,
    formatBytes(Math.max(...runs[arm].map((r) => r.peakRss))),
    `${cpu(arm).toFixed(1)} s`,
  ]);
  const m = machine();
  console.log(
    [
      `## bulk archives, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`,
      "",
      `Universe: ${o.companies.toLocaleString("en-US")} companies × ${o.years} years (${o.years * 4} quarters of companyfacts each)${o.prices ? ", with its price files" : ", EDGAR files only (no prices)"}; the two folders hold ${formatBytes(sizes.folders)}, the two archives ${formatBytes(sizes.zips)}. Machine: ${m.nproc} cores (${m.cpu}), Bun ${m.bun}; load average ${loadBefore} before and ${loadAverage()} after. Code under test: ${codeUnderTest(REPO, undefined)}. ${o.reps} alternating runs of \`stockd import\` each.`,
      "",
      markdownTable(["source", "runs (s)", "median", "peak RSS (max)", "CPU (median)"], rows),
      "",
      `Archives / folders, ratio of medians: **${(wall("zips") / wall("folders")).toFixed(2)}×** wall time (target ≤ 1.2×), ${(cpu("zips") / cpu("folders")).toFixed(2)}× CPU time.`,
    ].join("\n"),
  );
}

await main();
