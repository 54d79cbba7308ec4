#!/usr/bin/env bun
/**
 * `npm run test:soak`: the long reliability runs (docs/reliability.md), kept out of `npm test`.
 *
 *   bun test/soak/run.ts [--short] [--seed N] [--only crash,simulation,import] [--report FILE] [--keep]
 *
 * --short (or STOCKD_SOAK_SHORT=1) is the CI size. The seed (--seed or STOCKD_SOAK_SEED, else
 * random) is printed first and decides every random choice: kill moments, client mixes,
 * simulation steps, damaged files. Timing between processes is not replayed, only the plan.
 * Exits 1 when any invariant failed (the work dir is kept then), 2 on bad arguments.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli } from "../helpers/cli.ts";
import { killStarted } from "../helpers/spawn.ts";
import { crashScenario } from "./crash.ts";
import { importScenario } from "./import-faults.ts";
import type { ScenarioResult, SoakContext } from "./lib.ts";
import { simulationScenario } from "./simulation.ts";

/**
 * Each scenario stops starting new runs once its budget is spent (a violation: the run was cut
 * short). The budgets guard against a hang; they are several times the usual duration.
 */
const SCENARIOS = {
  crash: { run: crashScenario, budgetS: { short: 90, full: 600 } },
  simulation: { run: simulationScenario, budgetS: { short: 120, full: 1200 } },
  import: { run: importScenario, budgetS: { short: 150, full: 600 } },
} as const;
type Name = keyof typeof SCENARIOS;

interface Options {
  short: boolean;
  seed: number;
  only: Name[];
  report: string | null;
  keep: boolean;
}

function usage(message: string): never {
  console.error(`test:soak: ${message}`);
  console.error(
    "usage: bun test/soak/run.ts [--short] [--seed N] [--only crash,simulation,import] [--report FILE] [--keep]",
  );
  process.exit(2);
}

function parseSeed(text: string, where: string): number {
  if (!/^\d{1,10}$/.test(text) || Number(text) > 0xffffffff)
    usage(`${where}: a seed is an integer 0..4294967295`);
  return Number(text);
}

function options(argv: string[]): Options {
  const envShort = process.env.STOCKD_SOAK_SHORT;
  const envSeed = process.env.STOCKD_SOAK_SEED;
  const opts: Options = {
    short: envShort !== undefined && envShort !== "" && envShort !== "0",
    seed: envSeed
      ? parseSeed(envSeed, "STOCKD_SOAK_SEED")
      : (crypto.getRandomValues(new Uint32Array(1))[0] as number),
    only: Object.keys(SCENARIOS) as Name[],
    report: null,
    keep: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) usage(`${arg} needs a value`);
      return v;
    };
    if (arg === "--short") opts.short = true;
    else if (arg === "--full") opts.short = false;
    else if (arg === "--keep") opts.keep = true;
    else if (arg === "--seed") opts.seed = parseSeed(value(), "--seed");
    else if (arg === "--report") opts.report = value();
    else if (arg === "--only") {
      const names = value().split(",");
      for (const n of names) if (!Object.hasOwn(SCENARIOS, n)) usage(`--only: unknown scenario ${n}`);
      opts.only = names as Name[];
    } else usage(`unknown argument ${arg}`);
  }
  return opts;
}

function table(rows: string[][]): string {
  const widths = (rows[0] as string[]).map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  const line = (r: string[]) => `| ${r.map((cell, c) => cell.padEnd(widths[c] as number)).join(" | ")} |`;
  const rule = `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`;
  return [line(rows[0] as string[]), rule, ...rows.slice(1).map(line)].join("\n");
}

async function main(): Promise<number> {
  const opts = options(process.argv.slice(2));
  const mode = opts.short ? "short" : "full";
  const replay = `STOCKD_SOAK_SEED=${opts.seed} npm run test:soak${opts.short ? " -- --short" : ""}`;
  console.error(`test:soak: seed ${opts.seed}, ${mode} mode (replay: ${replay})`);
  const workDir = mkdtempSync(join(tmpdir(), "stockd-soak-"));
  const say = (message: string) => console.error(`  ${message}`);
  const started = performance.now();

  // The demo data, built once by the real CLI; every scenario copies it.
  const template = join(workDir, "template");
  const demo = await cli(["demo", "--json"], { cwd: workDir, dataDir: template });
  if (demo.code !== 0) {
    console.error(`test:soak: stockd demo failed (${demo.code}): ${demo.stderr}`);
    return 1;
  }
  say(`demo data built in ${(demo.ms / 1000).toFixed(1)} s`);

  const results: ScenarioResult[] = [];
  for (const name of opts.only) {
    const scenario = SCENARIOS[name];
    const ctx: SoakContext = {
      short: opts.short,
      seed: opts.seed,
      workDir,
      template,
      deadline: Date.now() + scenario.budgetS[mode] * 1000,
      say,
    };
    say(`${name}: starting`);
    const t0 = performance.now();
    try {
      results.push(await scenario.run(ctx));
    } catch (error) {
      killStarted();
      results.push({
        name,
        seed: 0,
        runs: "aborted",
        faults: "-",
        checks: 1,
        violations: 1,
        messages: [`the scenario threw: ${(error as Error).stack ?? String(error)}`],
        held: [],
        figures: {},
        seconds: (performance.now() - t0) / 1000,
        workDir: join(workDir, name),
      });
    }
    const r = results[results.length - 1] as ScenarioResult;
    say(`${name}: ${r.violations === 0 ? "held" : `${r.violations} VIOLATIONS`} (${r.seconds.toFixed(1)} s)`);
  }
  const seconds = (performance.now() - started) / 1000;

  const rows = [
    ["scenario", "runs", "seed", "faults injected", "checks", "violations", "time"],
    ...results.map((r) => [
      r.name,
      r.runs,
      String(r.seed),
      r.faults,
      String(r.checks),
      String(r.violations),
      `${r.seconds.toFixed(1)} s`,
    ]),
  ];
  console.log(`\nstockd soak, ${mode} mode, seed ${opts.seed}, ${seconds.toFixed(1)} s in all\n`);
  console.log(table(rows));
  for (const r of results) {
    console.log(`\n${r.name} (scenario seed ${r.seed}):`);
    if (r.violations === 0) for (const h of r.held) console.log(`  held: ${h}`);
    const figures = Object.entries(r.figures).map(([k, v]) => `${k}=${v}`);
    if (figures.length) console.log(`  figures: ${figures.join(", ")}`);
    for (const m of r.messages) console.log(`  VIOLATION: ${m}`);
    if (r.violations > r.messages.length) console.log(`  ... and ${r.violations - r.messages.length} more`);
  }
  if (opts.report)
    writeFileSync(
      opts.report,
      `${JSON.stringify({ seed: opts.seed, mode, seconds, results, at: new Date().toISOString() }, null, 2)}\n`,
    );
  const failed = results.some((r) => r.violations > 0);
  if (failed) {
    console.log(`\nFAILED. Replay with: ${replay}\nWork dir kept: ${workDir}`);
    return 1;
  }
  console.log(`\nall invariants held (${results.reduce((n, r) => n + r.checks, 0)} checks)`);
  if (opts.keep) console.log(`work dir kept: ${workDir}`);
  else rmSync(workDir, { recursive: true, force: true });
  return 0;
}

for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    killStarted();
    process.exit(130);
  });

const code = await main().catch((error) => {
  console.error(error);
  return 1;
});
killStarted();
process.exit(code);
