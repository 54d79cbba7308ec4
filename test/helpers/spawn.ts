/**
 * stockd in a child process, the one way the tests, the soak (test/soak) and the bench start
 * it: the command (this checkout's source, another checkout's, or a compiled binary), a fixed
 * environment, `stockd serve` once it has printed its URL, and every process started tracked
 * until it exits. It imports nothing of the serving code: a child is seen from outside, as a
 * client and an operator see it. Commands run to their end are in cli.ts.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { within } from "./wait.ts";

/** The checkout the tests belong to. */
export const ROOT = resolve(import.meta.dir, "../..");

/** Which stockd runs. */
export interface StockdProgram {
  /** A compiled stockd to run instead of the source (its path, as the child's cwd sees it). */
  binary?: string;
  /** The checkout whose `src/index.ts` runs (default ROOT; the bench can measure another). */
  root?: string;
  /** Bun's own flags, before the entry (e.g. `--cpu-prof`). */
  runtimeFlags?: readonly string[];
}

/** The command line of `stockd ARGS`: `bun [flags] ROOT/src/index.ts ARGS`, or the binary. */
export function stockdCommand(args: readonly string[], program: StockdProgram = {}): string[] {
  if (program.binary !== undefined) return [program.binary, ...args];
  const entry = join(program.root ?? ROOT, "src", "index.ts");
  return [process.execPath, ...(program.runtimeFlags ?? []), entry, ...args];
}

/**
 * The per-key and per-user limits and the auth-failure throttle lifted: a test or a load that
 * drives a few keys hard is not refused with 429 (the limits have their own tests; the
 * limiters still run on every call).
 */
export const LIFTED_LIMITS: Readonly<Record<string, string>> = {
  STOCKD_RATE_LIMIT_PER_SECOND: "1000000",
  STOCKD_RATE_LIMIT_BURST: "1000000",
  STOCKD_MAX_IN_FLIGHT_PER_KEY: "100000",
  STOCKD_MAX_IN_FLIGHT_PER_USER: "100000",
  STOCKD_AUTH_FAILURES_PER_MINUTE: "1000000",
};

/**
 * The environment of a stockd child: the caller's, minus every stockd setting (a developer's
 * STOCKD_DATA_DIR, STOCKD_CONFIG, PORT or HOST must not leak in), with TZ=UTC, no colour,
 * LIFTED_LIMITS and the server's logs at warn (at info it logs a line per call), plus `extra`.
 */
export function stockdEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name.startsWith("STOCKD_") || name === "PORT" || name === "HOST") continue;
    env[name] = value;
  }
  return { ...env, TZ: "UTC", NO_COLOR: "1", STOCKD_LOG_LEVEL: "warn", ...LIFTED_LIMITS, ...extra };
}

/** Where and how a child runs. */
export interface SpawnOptions extends StockdProgram {
  /** Its working directory (default ROOT). */
  cwd?: string;
  /** Its whole environment (default `stockdEnv()`). */
  env?: Record<string, string>;
}

type Tracked = Pick<Subprocess, "kill" | "exited">;

/** Every process started here that has not exited yet. */
const live = new Set<Tracked>();

function track<P extends Tracked>(proc: P): P {
  live.add(proc);
  proc.exited.finally(() => live.delete(proc));
  return proc;
}

/** SIGKILLs every process started here that is still running (the soak's last word). */
export function killStarted(): void {
  for (const proc of live) proc.kill("SIGKILL");
}

/** Starts `stockd ARGS` with stdout and stderr piped, tracked until it exits. */
export function spawnStockd(args: readonly string[], opts: SpawnOptions = {}) {
  return track(
    Bun.spawn(stockdCommand(args, opts), {
      cwd: opts.cwd ?? ROOT,
      env: opts.env ?? stockdEnv(),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    }),
  );
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

/** How `stockd serve` is started. */
export interface ServeOptions extends SpawnOptions {
  /** Its `--data-dir` (it listens on a free port of the default host, 127.0.0.1). */
  dataDir: string;
  /** More arguments of `serve`, e.g. `["--log-level", "warn"]`. */
  args?: readonly string[];
  /**
   * A file that gets all the server prints (stdout's logs and stderr), after a header line
   * naming the start; without one, stdout is dropped and the tail of stderr kept (`stderr`).
   */
  logFile?: string;
  /** How long it may take to print its URL (default 30 s). */
  startTimeoutMs?: number;
}

const LISTENING = /stockd listening on (http:\/\/\S+)/;

/** `stockd serve` in a child process, listening (`ServerProcess.start`). */
export class ServerProcess {
  readonly host: string;
  readonly port: number;

  private constructor(
    readonly proc: Subprocess<"ignore", "ignore" | number, "pipe">,
    readonly url: string,
    private readonly output: OutputTail,
  ) {
    const { hostname, port } = new URL(url);
    this.host = hostname;
    this.port = Number(port);
  }

  /** Starts the server and resolves once it has printed its URL; throws (the child killed) if it does not. */
  static async start(opts: ServeOptions): Promise<ServerProcess> {
    const args = ["serve", "--data-dir", opts.dataDir, "--port", "0", ...(opts.args ?? [])];
    const env = opts.env ?? stockdEnv();
    const log = opts.logFile === undefined ? null : openSync(opts.logFile, "a");
    if (log !== null) {
      const settings = Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith("STOCKD_")));
      writeSync(log, `--- ${args.join(" ")} ${new Date().toISOString()} ${JSON.stringify(settings)}\n`);
    }
    const proc = track(
      Bun.spawn(stockdCommand(args, opts), {
        cwd: opts.cwd ?? ROOT,
        env,
        stdin: "ignore",
        stdout: log ?? "ignore",
        stderr: "pipe",
      }),
    );
    const output = new OutputTail(proc.stderr, log === null ? undefined : (text) => writeSync(log, text));
    if (log !== null) proc.exited.finally(() => closeSync(log));
    const timeoutMs = opts.startTimeoutMs ?? 30_000;
    const printed = output.match(LISTENING).then(
      (m) => m[1] as string,
      () => null,
    );
    const url = await within(printed, timeoutMs, null);
    if (url === null) {
      proc.kill("SIGKILL");
      await proc.exited;
      const where = opts.logFile === undefined ? `:\n${output.tail.slice(-4000)}` : `; see ${opts.logFile}`;
      throw new Error(
        `stockd serve did not print its URL within ${timeoutMs} ms (exit ${proc.exitCode})${where}`,
      );
    }
    return new ServerProcess(proc, url, output);
  }

  get pid(): number {
    return this.proc.pid;
  }

  get exited(): Promise<number> {
    return this.proc.exited;
  }

  get exitCode(): number | null {
    return this.proc.exitCode;
  }

  get signalCode(): string | null {
    return this.proc.signalCode === null ? null : String(this.proc.signalCode);
  }

  /** What it has printed on stderr (the last 64 KB). */
  get stderr(): string {
    return this.output.tail;
  }

  /** A request to the server, with `key` (when given) as a Bearer token. */
  get(path: string, key?: string | null, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (key) headers.set("authorization", `Bearer ${key}`);
    return fetch(`${this.url}${path}`, { ...init, headers });
  }

  /**
   * Sends `signal` and waits up to `graceMs` for the exit, then SIGKILLs and waits; returns
   * whether it ended within the grace time.
   */
  async stop(signal: "SIGTERM" | "SIGKILL" = "SIGTERM", graceMs = 15_000): Promise<boolean> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return true;
    this.proc.kill(signal);
    const ended = await within(
      this.proc.exited.then(() => true),
      graceMs,
      false,
    );
    if (!ended) {
      this.proc.kill("SIGKILL");
      await this.proc.exited;
    }
    return ended;
  }

  /** SIGKILL, and waits for the exit. */
  async kill(): Promise<void> {
    this.killNow();
    await this.proc.exited;
  }

  /** SIGKILL now, without waiting. */
  killNow(): void {
    this.proc.kill("SIGKILL");
  }
}
