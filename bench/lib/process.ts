/** Subprocesses of the benchmark: the stockd CLI, the server, the bare reference; RSS probes. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";

/**
 * Per-key and per-user limits lifted for the benchmark: it measures what the serving path
 * can do, and a few keys carry all the load. The limiters still run on every call (their cost is measured).
 */
const UNLIMITED = {
  STOCKD_RATE_LIMIT_PER_SECOND: "999999999",
  STOCKD_RATE_LIMIT_BURST: "999999999",
  STOCKD_MAX_IN_FLIGHT_PER_KEY: "100000",
  STOCKD_MAX_IN_FLIGHT_PER_USER: "100000",
};

/** Environment for every stockd subprocess: quiet logs, UTC, no colour, no per-key limits. */
export function stockdEnv(extra: Record<string, string> = {}): Record<string, string> {
  const base = { ...(process.env as Record<string, string>), TZ: "UTC", NO_COLOR: "1" };
  return { ...base, STOCKD_LOG_LEVEL: "warn", ...UNLIMITED, ...extra };
}

/** `bun <root>/src/index.ts ...args`. */
export function stockdCommand(
  root: string,
  args: readonly string[],
  runtimeFlags: readonly string[] = [],
): string[] {
  return [process.execPath, ...runtimeFlags, join(root, "src/index.ts"), ...args];
}

/** Runs a CLI command with `--json` and returns the one JSON object it prints. */
export function cliJson<T>(root: string, dataDir: string, args: readonly string[]): T {
  const cmd = stockdCommand(root, [...args, "--data-dir", dataDir, "--json"]);
  const result = Bun.spawnSync(cmd, { cwd: root, env: stockdEnv(), stdout: "pipe", stderr: "pipe" });
  if (!result.success) {
    throw new Error(`stockd ${args.join(" ")} exited ${result.exitCode}: ${result.stderr.toString().trim()}`);
  }
  return JSON.parse(result.stdout.toString()) as T;
}

export interface MemoryStatus {
  /** Resident set now, bytes. */
  rss: number;
  /** Peak resident set so far (VmHWM), bytes. */
  hwm: number;
  /** Of `rss`: anonymous memory (heaps), and pages of mapped files (page cache the kernel can drop). */
  anon: number;
  file: number;
}

/** RSS and its high-water mark from /proc; null when the process is gone. */
export function memoryOf(pid: number): MemoryStatus | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return null;
  }
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM"), anon: kb("RssAnon"), file: kb("RssFile") };
}

/** Keeps reading a stream (so the child never blocks on a full pipe) and keeps its tail. */
export class OutputTail {
  private text = "";
  private readonly waiters: { pattern: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  readonly ended: Promise<void>;

  constructor(
    stream: ReadableStream<Uint8Array>,
    private readonly onText: (chunk: string) => void = () => {},
  ) {
    this.ended = this.pump(stream);
  }

  /** The last 64 KB read. */
  get tail(): string {
    return this.text;
  }

  /** Resolves with the first match of `pattern` in what was or will be read; rejects at the end. */
  match(pattern: RegExp): Promise<RegExpExecArray> {
    const found = pattern.exec(this.text);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      this.waiters.push({ pattern, resolve });
      this.ended.then(() => reject(new Error(`output ended before ${pattern}:\n${this.text.slice(-4000)}`)));
    });
  }

  private async pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      this.onText(text);
      this.text = (this.text + text).slice(-65_536);
      for (const [i, w] of [...this.waiters.entries()].reverse()) {
        const m = w.pattern.exec(this.text);
        if (!m) continue;
        this.waiters.splice(i, 1);
        w.resolve(m);
      }
    }
  }
}

export interface MeasuredRun {
  exitCode: number;
  wallMs: number;
  /** The larger of the polled VmHWM and the kernel's ru_maxrss, bytes. */
  peakRss: number;
  cpuMs: number;
  output: string;
}

/** Runs a command to its end, polling its memory every 100 ms. */
export async function runMeasured(
  cmd: string[],
  opts: { cwd: string; env: Record<string, string>; onOutput?: (text: string) => void },
): Promise<MeasuredRun> {
  const started = performance.now();
  const proc = Bun.spawn(cmd, { cwd: opts.cwd, env: opts.env, stdout: "pipe", stderr: "pipe" });
  const out = new OutputTail(proc.stdout, opts.onOutput);
  const err = new OutputTail(proc.stderr, opts.onOutput);
  let peak = 0;
  const poll = setInterval(() => {
    peak = Math.max(peak, memoryOf(proc.pid)?.hwm ?? 0);
  }, 100);
  const exitCode = await proc.exited;
  const wallMs = performance.now() - started;
  clearInterval(poll);
  await Promise.all([out.ended, err.ended]);
  const usage = proc.resourceUsage();
  return {
    exitCode,
    wallMs,
    peakRss: Math.max(peak, usage?.maxRSS ?? 0),
    cpuMs: Number(usage?.cpuTime.total ?? 0n) / 1000,
    output: `${out.tail}${err.tail}`,
  };
}

/** Sends SIGTERM and waits; SIGKILL after `graceMs`. */
export async function stopProcess(proc: Subprocess, graceMs = 15_000): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill("SIGTERM");
  const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
  await proc.exited;
  clearTimeout(timer);
}
