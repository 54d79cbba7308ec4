/**
 * Subprocesses of the benchmark measured from outside: RSS probes, a command run to its end
 * with its peak memory, a stop. stockd itself is started by test/helpers/spawn.ts and cli.ts.
 */
import { readFileSync } from "node:fs";
import type { Subprocess } from "bun";
import { OutputTail } from "../../test/helpers/spawn.ts";

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
