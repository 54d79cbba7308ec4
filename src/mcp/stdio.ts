import { join } from "node:path";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { Billing } from "../accounts/billing.ts";
import { AccountsStore } from "../accounts/store.ts";
import type { Config } from "../config.ts";
import { createApp } from "../http/app.ts";
import type { Logger } from "../log.ts";
import { SnapshotService } from "../query/snapshot.ts";
import { openDuckDb } from "../snapshot/duckdb.ts";
import { VERSION } from "../version.ts";
import { toolServer } from "./server.ts";

/**
 * `stockd mcp`: the MCP tools over stdio (both eras) for one client, in the name of `apiKey`,
 * against the data dir: the same app, prices and ledger as the server (a server running on
 * the same data dir at the same time is fine; SQLite arbitrates). Resolves once the client
 * closes stdin; false when the key is not valid (nothing is served).
 */
export async function serveMcpStdio(config: Config, log: Logger, apiKey: string): Promise<boolean> {
  const accounts = AccountsStore.open(join(config.dataDir, "accounts.db"));
  const billing = new Billing(accounts, config.accountsPollMs);
  const instance = await openDuckDb();
  const snapshots = new SnapshotService(instance, config.dataDir, log);
  try {
    if (!billing.authenticate(apiKey, new Date())) return false;
    await snapshots.refresh();
    snapshots.watch(config.accountsPollMs);
    const app = createApp({ accounts, billing, snapshots, log, version: VERSION, limits: config.limits });
    const deps = { activeSnapshot: () => snapshots.current()?.manifest ?? null };
    const closed = new Promise<void>((resolve) => {
      process.stdin.once("end", resolve);
      process.stdin.once("close", resolve);
    });
    const handle = serveStdio(() =>
      toolServer(deps, (target, ledgerName) => app.restAs(apiKey, target, ledgerName)),
    );
    await closed;
    await handle.close();
    return true;
  } finally {
    billing.close();
    snapshots.close();
    accounts.close();
    instance.closeSync();
  }
}
