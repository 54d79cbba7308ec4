import { PgAccounts, pgConnection } from "../accounts/pg/accounts.ts";
import type { Accounts } from "../accounts/seam.ts";
import { AccountsStore } from "../accounts/store.ts";
import type { Config } from "../config.ts";
import { PgOAuthStore } from "../oauth/pg-store.ts";
import type { GrantListing, OAuthStore } from "../oauth/seam.ts";
import { SqliteOAuthStore } from "../oauth/store.ts";
import { accountsDbPath } from "./accounts.ts";
import { Flags, type Io, type ParsedArgs, printResult, UsageError } from "./args.ts";

const USAGE = "usage: stockd oauth grants [--user ID_OR_EMAIL] [--all] | revoke GRANT_ID";

/**
 * Runs `fn` on the OAuth records and the accounts the server uses: PostgreSQL when
 * `accounts_url` is set (a revocation is announced to every replica), else the data dir's
 * SQLite file.
 */
async function withStores<T>(
  config: Config,
  fn: (oauth: OAuthStore, accounts: Accounts) => Promise<T>,
): Promise<T> {
  if (config.accountsUrl === null) {
    const accounts = AccountsStore.open(accountsDbPath(config));
    try {
      return await fn(new SqliteOAuthStore(accounts.db), accounts);
    } finally {
      accounts.close();
    }
  }
  const options = pgConnection(config, config.accountsUrl);
  const accounts = await PgAccounts.open(options);
  try {
    const oauth = await PgOAuthStore.open(options);
    try {
      return await fn(oauth, accounts);
    } finally {
      await oauth.close();
    }
  } finally {
    await accounts.close();
  }
}

/**
 * `oauth grants [--user U] [--all]` lists the grants (one per consent: a client's access in a
 * user's name, through the key that approved it), live ones unless --all; `oauth revoke
 * GRANT_ID` ends one: its codes and tokens stop working on every replica (docs/oauth.md).
 */
export function oauthCommand(args: ParsedArgs, config: Config, io: Io): Promise<number> {
  const [, sub, grantId] = args.positional;
  return withStores(config, async (oauth, accounts) => {
    if (sub === "grants") {
      const flags = new Flags(args, ["user", "all"]);
      const named = flags.string("user");
      const user = named === undefined ? undefined : await accounts.findUser(named);
      if (user === null) throw new UsageError(`no user ${named}`);
      const grants = await oauth.listGrants({ userId: user?.id, revoked: flags.bool("all") });
      printResult(io, flags.bool("json"), { grants }, grants.length ? grants.map(grantLine) : ["no grants"]);
      return 0;
    }
    if (sub === "revoke" && grantId) {
      const flags = new Flags(args, []);
      const [found] = await oauth.listGrants({ grantId, revoked: true });
      if (!found) throw new UsageError(`no grant ${grantId}`);
      const revoked = await oauth.revokeGrant(grantId, new Date().toISOString());
      printResult(io, flags.bool("json"), { id: grantId, revoked: true, was_live: revoked }, [
        revoked ? `grant ${grantId} revoked` : `grant ${grantId} was already revoked`,
      ]);
      return 0;
    }
    throw new UsageError(USAGE);
  });
}

/** One grant, one line: id, state, client, user, key, scope, until when its tokens last. */
function grantLine(g: GrantListing): string {
  const state = g.revoked_at !== null ? "revoked" : g.live_until === null ? "idle   " : "live   ";
  const until = g.revoked_at === null && g.live_until !== null ? `  until ${g.live_until}` : "";
  return `${g.id}  ${state}  ${g.client_name ?? g.client_id}  user ${g.user_id}  key ${g.key_id}  ${g.scope}${until}`;
}
