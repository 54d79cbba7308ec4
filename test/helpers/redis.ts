/**
 * A Redis server of its own for a test file: `redis-server` on a free loopback port, in a
 * temporary directory, nothing saved to disk, stopped by its pid. Without the binary (Debian's
 * `redis-server` package) `redisServerBinary()` is null and the tests that need Redis skip
 * with a notice.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort } from "./postgres.ts";
import { OutputTail } from "./spawn.ts";
import { within } from "./wait.ts";

/** The path of `redis-server`; null when it is not installed. */
export function redisServerBinary(): string | null {
  return Bun.which("redis-server");
}

export interface RedisServer {
  /** `redis://127.0.0.1:PORT`. */
  url: string;
  port: number;
  /** Kills the server at once (SIGKILL): an outage, as a crash makes it. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty (nothing was saved). */
  start(): Promise<void>;
  /** Freezes it (SIGSTOP): it holds its connections and answers nothing. */
  freeze(): void;
  /** Lets a frozen server run again (SIGCONT). */
  thaw(): void;
  /** Kills it and removes its directory. */
  stop(): Promise<void>;
}

/** Starts a server of its own; throws when the binary is missing (check redisServerBinary first). */
export async function startRedis(): Promise<RedisServer> {
  const binary = redisServerBinary();
  if (!binary) throw new Error("redis-server not found on PATH");
  const dir = mkdtempSync(join(tmpdir(), "stockd-redis-"));
  const port = await freePort();
  let server: Subprocess<"ignore", "pipe", "inherit"> | null = null;
  const start = async () => {
    const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
    const proc = Bun.spawn([binary, ...args, "--dir", dir], { cwd: dir, stdin: "ignore", stdout: "pipe" });
    server = proc;
    const output = new OutputTail(proc.stdout);
    const ready = output.match(/Ready to accept connections/).then(
      () => true,
      () => false,
    );
    if (!(await within(ready, 20_000, false))) {
      proc.kill("SIGKILL");
      throw new Error(`redis-server did not start on port ${port}:\n${output.tail.slice(-2000)}`);
    }
  };
  const kill = async () => {
    const running = server as Subprocess | null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    running.kill("SIGCONT");
    running.kill("SIGKILL");
    await running.exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    start,
    freeze: () => (server as Subprocess | null)?.kill("SIGSTOP"),
    thaw: () => (server as Subprocess | null)?.kill("SIGCONT"),
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
