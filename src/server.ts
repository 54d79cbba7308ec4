import { join } from "node:path";
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
  /** Stops accepting, lets calls in flight finish, settles credits, closes the stores. */
  stop(): Promise<void>;
}

/** Wires the stores and the app and listens. Used by `stockd serve` and by the tests. */
export async function startServer(config: Config, log: Logger): Promise<RunningServer> {
  const accounts = AccountsStore.open(join(config.dataDir, "accounts.db"));
  const billing = new Billing(accounts, config.accountsPollMs);
  const instance = await openDuckDb();
  const snapshots = new SnapshotService(instance, config.dataDir, log);
  await snapshots.refresh();
  snapshots.watch(config.accountsPollMs);
  const { handle } = createApp({ accounts, billing, snapshots, log, version: VERSION });
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    fetch: handle,
    maxRequestBodySize: 16 * 1024,
  });
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${server.port}`;
  log.info("listening", { url, snapshot: snapshots.current()?.id ?? null, version: VERSION });
  return {
    url,
    port: server.port ?? config.port,
    accounts,
    snapshots,
    async stop() {
      await server.stop(false);
      billing.close();
      snapshots.close();
      accounts.close();
      instance.closeSync();
    },
  };
}
