/**
 * The stockd CLI in a child process, run to its end: what the tests, the soak and the bench
 * use to run a command as an operator would (spawn.ts starts the process).
 */
import { type SpawnOptions, spawnStockd } from "./spawn.ts";

/** What a command did. */
export interface CliResult {
  /** Exit code; null when a signal ended it. */
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** Wall time, milliseconds. */
  ms: number;
}

export interface CliOptions extends SpawnOptions {
  /** Passed as `--data-dir` after the arguments. */
  dataDir?: string;
  /** SIGKILLed after this long (default 120 s). */
  timeoutMs?: number;
}

/** Runs `stockd ARGS [--data-dir DIR]` to its end. */
export async function cli(args: readonly string[], opts: CliOptions = {}): Promise<CliResult> {
  const started = performance.now();
  const dataDir = opts.dataDir === undefined ? [] : ["--data-dir", opts.dataDir];
  const proc = spawnStockd([...args, ...dataDir], opts);
  const timer = setTimeout(() => proc.kill("SIGKILL"), opts.timeoutMs ?? 120_000);
  const [stdout, stderr] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  await proc.exited;
  clearTimeout(timer);
  return {
    code: proc.signalCode ? null : proc.exitCode,
    signal: proc.signalCode === null ? null : String(proc.signalCode),
    stdout,
    stderr,
    ms: performance.now() - started,
  };
}

/** Runs `stockd ARGS --json` that must succeed; returns the one JSON object it prints. */
export async function cliJson<T>(args: readonly string[], opts: CliOptions = {}): Promise<T> {
  const r = await cli([...args, "--json"], opts);
  if (r.code !== 0) throw new Error(`stockd ${args.join(" ")} exited ${r.code}: ${r.stderr.trim()}`);
  return JSON.parse(r.stdout) as T;
}
