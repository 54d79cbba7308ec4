/** The stockd server under test and the bare reference servers, as subprocesses. */
import { join } from "node:path";
import type { Subprocess } from "bun";
import { OutputTail, ServerProcess, stockdEnv } from "../../test/helpers/spawn.ts";
import { stopProcess } from "./process.ts";

export interface Endpoint {
  host: string;
  port: number;
}

export interface StockdServer extends Endpoint {
  proc: Subprocess;
  url: string;
  /** Spawn to the first authenticated 200, milliseconds. */
  coldStartMs: number;
  /** 2xx answers to the start-up probe (billed to the probe's key). */
  probeOk: number;
  stop(): Promise<void>;
}

export interface Probe {
  path: string;
  key: string;
}

/**
 * Starts `stockd serve` of the checkout `root` on a free port (with Bun's `runtimeFlags`,
 * e.g. `--cpu-prof`) and polls `probe` until it answers 200.
 */
export async function startStockd(
  root: string,
  dataDir: string,
  probe: Probe,
  runtimeFlags: readonly string[] = [],
  env: Record<string, string> = stockdEnv(),
): Promise<StockdServer> {
  const started = performance.now();
  const server = await ServerProcess.start({ root, cwd: root, runtimeFlags, env, dataDir });
  const stop = async () => {
    await server.stop();
  };
  try {
    const probeOk = await pollUntilOk(`${server.url}${probe.path}`, probe.key, started);
    const coldStartMs = performance.now() - started;
    const { proc, url, host, port } = server;
    return { proc, url, host, port, coldStartMs, probeOk, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Polls every 2 ms until a 200; returns the number of 2xx answers (1). */
async function pollUntilOk(url: string, key: string, started: number): Promise<number> {
  const headers = { authorization: `Bearer ${key}` };
  for (;;) {
    const status = await fetch(url, { headers }).then(
      async (r) => {
        await r.arrayBuffer();
        return r.status;
      },
      () => 0,
    );
    if (status === 200) return 1;
    if (status >= 200 && status < 300) throw new Error(`${url} answered ${status}, expected 200`);
    if (performance.now() - started > 120_000) throw new Error(`${url} never answered 200 (last ${status})`);
    await Bun.sleep(2);
  }
}

export interface Sample {
  status: number;
  contentType: string;
  body: Uint8Array;
}

/** One authenticated GET, body read whole. */
export async function fetchSample(url: string, key: string): Promise<Sample> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const body = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", body };
}

export interface BareServer extends Endpoint {
  stop(): Promise<void>;
}

/** A bare Bun.serve answering every request with `body` (bench/lib/bare-server.ts). */
export async function startBare(bodyFile: string, contentType: string): Promise<BareServer> {
  const script = join(import.meta.dir, "bare-server.ts");
  const proc = Bun.spawn([process.execPath, script, bodyFile, contentType], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = new OutputTail(proc.stdout);
  const port = Number((await out.match(/listening (\d+)/))[1]);
  return { host: "127.0.0.1", port, stop: () => stopProcess(proc) };
}
