import { join } from "node:path";
import type { Server } from "bun";
import { Billing } from "./accounts/billing.ts";
import { AccountsStore } from "./accounts/store.ts";
import type { Config } from "./config.ts";
import { createApp } from "./http/app.ts";
import type { Logger } from "./log.ts";
import { openDuckDb } from "./query/duckdb.ts";
import { SnapshotService } from "./query/snapshot.ts";
import { VERSION } from "./version.ts";

export interface RunningServer {
  url: string;
  port: number;
  accounts: AccountsStore;
  snapshots: SnapshotService;
  /**
   * Stops accepting, lets calls in flight finish (each settles its own reservation) for at
   * most `drainMs`, cuts off what is left, commits queued debits and closes the stores.
   */
  stop(drainMs?: number): Promise<void>;
}

/** How long a shutdown waits for calls in flight: within `docker stop`'s 10 s before SIGKILL. */
export const DRAIN_TIMEOUT_MS = 8_000;

/** Wires the stores and the app and listens. Used by `stockd serve` and by the tests. */
export async function startServer(config: Config, log: Logger): Promise<RunningServer> {
  const accounts = AccountsStore.open(join(config.dataDir, "accounts.db"));
  const billing = new Billing(accounts, config.accountsPollMs);
  const instance = await openDuckDb();
  const snapshots = new SnapshotService(instance, config.dataDir, log);
  await snapshots.refresh();
  snapshots.watch(config.accountsPollMs);
  const { handle, direct, idempotency } = createApp({
    accounts,
    billing,
    snapshots,
    log,
    version: VERSION,
    limits: config.limits,
    metricsToken: config.metricsToken,
  });
  // Remembered idempotent responses are replayed for 24 h; forget older ones hourly.
  idempotency.purge();
  const purge = setInterval(() => idempotency.purge(), 3600_000);
  purge.unref();
  const routes: Record<
    string,
    (request: Bun.BunRequest, bun: Server<undefined>) => Response | Promise<Response>
  > = {};
  for (const [path, respond] of Object.entries(direct)) {
    routes[path] = (request, bun) => respond(request, () => bun.requestIP(request)?.address);
  }
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    // The direct routes first (Bun's router, no Elysia); everything else through the app.
    routes,
    fetch: (request, bun) => handle(request, () => bun.requestIP(request)?.address),
    maxRequestBodySize: 16 * 1024,
  });
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${server.port}`;
  log.info("listening", { url, snapshot: snapshots.current()?.id ?? null, version: VERSION });
  return {
    url,
    port: server.port ?? config.port,
    accounts,
    snapshots,
    async stop(drainMs = DRAIN_TIMEOUT_MS) {
      await drain(server, drainMs, log);
      clearInterval(purge);
      // Calls cut off above never settled: their holds live only in this process's memory
      // and vanish with it, which is the same as releasing them (nothing was debited).
      billing.close();
      snapshots.close();
      accounts.close();
      instance.closeSync();
      log.info("stopped");
    },
  };
}

/**
 * Stops listening and waits until every call in flight has been answered (Bun's
 * `stop(false)`), for at most `ms`; then closes the connections still open.
 */
async function drain(server: Server<undefined>, ms: number, log: Logger): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  const outcome = await Promise.race([server.stop(false).then(() => "drained" as const), deadline]);
  clearTimeout(timer);
  if (outcome === "timeout") {
    log.warn("shutdown: cutting off calls still in flight", {
      pending: server.pendingRequests,
      after_ms: ms,
    });
    await server.stop(true);
  }
}
