import { join } from "node:path";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { PgOAuthStore } from "../oauth/pg-store.ts";
import type { OAuthStore } from "../oauth/seam.ts";
import { SqliteOAuthStore } from "../oauth/store.ts";
import { Billing } from "./billing.ts";
import { PgAccounts, pgConnection } from "./pg/accounts.ts";
import type { Accounts, Biller } from "./seam.ts";
import { AccountsStore } from "./store.ts";

/** The accounts a server runs on: the records, the serving view, and OAuth's records beside them. */
export interface ServingAccounts {
  accounts: Accounts;
  billing: Biller;
  oauth: OAuthStore;
  /** Commits or releases what is queued and closes the stores. */
  close(): Promise<void>;
}

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
      oauth: new SqliteOAuthStore(store.db),
      async close() {
        billing.close();
        store.close();
      },
    };
  }
  const connection = pgConnection(config, config.accountsUrl);
  const pg = await PgAccounts.open({ ...connection, replicaId: config.replicaId, serve: true, log });
  const oauth = await PgOAuthStore.open({ ...connection, serve: true }).catch(async (error) => {
    await pg.close();
    throw error;
  });
  return {
    accounts: pg,
    billing: pg,
    oauth,
    async close() {
      await oauth.close();
      await pg.close();
    },
  };
}
