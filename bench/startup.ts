#!/usr/bin/env bun
/**
 * Cold start to the first 200 on /health, binary vs source:
 * `bun bench/startup.ts [--binary dist/stockd] [--runs 5]` (build the binary first).
 *
 * Every run is a new process on a data dir that already holds the demo snapshot, so the
 * figure is process start + DuckDB load + snapshot load + listen, not the demo import.
 * "binary, first start" also unpacks libduckdb.so into an empty cache.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { cli } from "../test/helpers/cli.ts";
import { ROOT, ServerProcess, type StockdProgram } from "../test/helpers/spawn.ts";

/** Milliseconds from spawn to the first 200 from /health. */
async function timeToFirst200(program: StockdProgram, env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const dataDir = env.STOCKD_DATA_DIR as string;
  const server = await ServerProcess.start({ ...program, env, dataDir, startTimeoutMs: 60_000 });
  try {
    for (;;) {
      const status = await server.get("/health").then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) return performance.now() - started;
      if (performance.now() - started > 60_000) throw new Error(`${server.url}/health never answered 200`);
      await Bun.sleep(2);
    }
  } finally {
    await server.stop();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { binary: { type: "string" }, runs: { type: "string" } } });
  const binary = resolve(values.binary ?? join(ROOT, "dist/stockd"));
  const runs = Number(values.runs ?? 5);
  const work = mkdtempSync(join(tmpdir(), "stockd-bench-"));
  try {
    const env = { TZ: "UTC", NO_COLOR: "1", STOCKD_DATA_DIR: join(work, "d"), STOCKD_LOG_LEVEL: "warn" };
    const demo = await cli(["demo"], { binary, env: { ...env, XDG_CACHE_HOME: join(work, "c0") } });
    if (demo.code !== 0) throw new Error(`${binary} demo failed: ${demo.stderr}`);
    const cases: [string, () => Promise<number>][] = [
      ["binary, first start (unpacks libduckdb.so)", () => firstStart(binary, env, work)],
      ["binary", () => timeToFirst200({ binary }, { ...env, XDG_CACHE_HOME: join(work, "c0") })],
      ["bun src/index.ts", () => timeToFirst200({}, env)],
    ];
    for (const [name, run] of cases) {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) times.push(await run());
      console.log(
        `${name.padEnd(44)} median ${median(times).toFixed(0)} ms  (${times.map((t) => t.toFixed(0)).join(", ")})`,
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A start with an empty library cache: what the first run after an install or upgrade pays. */
async function firstStart(binary: string, env: Record<string, string>, work: string): Promise<number> {
  const cache = mkdtempSync(join(work, "cache-"));
  try {
    return await timeToFirst200({ binary }, { ...env, XDG_CACHE_HOME: cache });
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

await main();
