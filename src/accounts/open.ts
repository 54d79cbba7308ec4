import { join } from "node:path";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { Billing } from "./billing.ts";
import { PgAccounts } from "./pg/accounts.ts";
import type { Accounts, Biller } from "./seam.ts";
import { AccountsStore } from "./store.ts";

/**
 * The accounts a server runs on: the records, the serving view, and the SQLite store when that
 * is the one (the OAuth tables live there only).
 */
export type ServingAccounts = (
  | { sqlite: AccountsStore; billing: Billing }
  | { sqlite: null; billing: Biller }
) & {
  accounts: Accounts;
  /** Commits or releases what is queued and closes the store. */
  close(): Promise<void>;
};

/**
 * Opens the accounts a server serves from: the shared PostgreSQL database when
 * `accounts_url` is set (docs/scale-out.md), else `accounts.db` in the data dir.
 */
export async function openServingAccounts(config: Config, log: Logger): Promise<ServingAccounts> {
  if (config.accountsUrl === null) {
    const store = AccountsStore.open(join(config.dataDir, "accounts.db"));
    const billing = new Billing(store, config.accountsPollMs);
    return {
      accounts: store,
      billing,
      sqlite: store,
      async close() {
        billing.close();
        store.close();
      },
    };
  }
  const pg = await PgAccounts.open({
    url: config.accountsUrl,
    replicaId: config.replicaId,
    timeoutMs: config.accountsTimeoutMs,
    serve: true,
    log,
  });
  return { accounts: pg, billing: pg, sqlite: null, close: () => pg.close() };
}
