/** What the figures were measured on: cores, CPU model, memory, load, Bun, code under test. */
import { existsSync, readFileSync } from "node:fs";
import { availableParallelism, totalmem } from "node:os";
import { join } from "node:path";

export interface Machine {
  nproc: number;
  cpu: string;
  memory: string;
  bun: string;
  loadavg: string;
}

export function machine(): Machine {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  return {
    nproc: availableParallelism(),
    cpu: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? "unknown",
    memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    bun: Bun.version,
    loadavg: loadAverage(),
  };
}

/** The 1/5/15-minute load averages: how busy the (shared) machine was. */
export function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}

/** The commit of the code under test, "+ changes" when its tree is dirty; or `label`. */
export function codeUnderTest(root: string, label: string | undefined): string {
  if (label) return label;
  if (!existsSync(join(root, ".git"))) return root;
  const run = (args: string[]) =>
    Bun.spawnSync(["git", "-C", root, ...args])
      .stdout.toString()
      .trim();
  const commit = run(["rev-parse", "--short", "HEAD"]);
  const dirty = run(["status", "--porcelain", "--", "src"]) !== "";
  return `${commit}${dirty ? " + uncommitted changes in src/" : ""}`;
}
