import { join } from "node:path";
import { PgAccounts, pgConnection } from "../accounts/pg/accounts.ts";
import type { Accounts, User } from "../accounts/seam.ts";
import { AccountsStore } from "../accounts/store.ts";
import type { Config } from "../config.ts";
import { Flags, type Io, type ParsedArgs, printResult, UsageError } from "./args.ts";

export function accountsDbPath(config: Config): string {
  return join(config.dataDir, "accounts.db");
}

/**
 * Runs `fn` on the accounts the server uses: the shared PostgreSQL database when
 * `accounts_url` is set (every replica is told of the change), else the data dir's SQLite file.
 */
async function withStore<T>(config: Config, fn: (store: Accounts) => Promise<T>): Promise<T> {
  const store =
    config.accountsUrl === null
      ? AccountsStore.open(accountsDbPath(config))
      : await PgAccounts.open(pgConnection(config, config.accountsUrl));
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function userOf(store: Accounts, idOrEmail: string): Promise<User> {
  const user = await store.findUser(idOrEmail);
  if (!user) throw new UsageError(`no user ${idOrEmail}`);
  return user;
}

/** `users create --email E [--credits N]` */
export async function usersCommand(args: ParsedArgs, config: Config, io: Io): Promise<number> {
  const [, sub] = args.positional;
  if (sub !== "create") throw new UsageError("usage: stockd users create --email E [--credits N]");
  const flags = new Flags(args, ["email", "credits"]);
  const email = flags.required("email");
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254)
    throw new UsageError(`--email "${email}" is not an email address`);
  const created = await withStore(config, async (s) => s.createUser(email, flags.integer("credits", 0)));
  if (!created.ok) throw new UsageError(created.message);
  const { id, balance } = created.value;
  printResult(io, flags.bool("json"), { id, email, credits: balance }, [
    `created user ${id} (${email}) with ${balance} credits`,
  ]);
  return 0;
}

/** `keys create|list|disable|enable` */
export function keysCommand(args: ParsedArgs, config: Config, io: Io): Promise<number> {
  const [, sub, keyId] = args.positional;
  return withStore(config, async (store) => {
    if (sub === "create") {
      const flags = new Flags(args, ["user", "name", "expires-at"]);
      const user = await userOf(store, flags.required("user"));
      const expiresAt = expiry(flags.string("expires-at"));
      const { key, info } = await store.createKey(user.id, flags.string("name") ?? null, expiresAt);
      const result = { id: info.id, key, prefix: info.prefix, expires_at: info.expires_at };
      printResult(io, flags.bool("json"), result, [
        key,
        `key ${info.id} for ${user.email}; shown only now, store it safely`,
      ]);
      return 0;
    }
    if (sub === "list") {
      const flags = new Flags(args, ["user"]);
      const keys = await store.listKeys((await userOf(store, flags.required("user"))).id);
      const lines = keys.map(
        (k) => `${k.id}  sk_${k.prefix}…  ${k.disabled_at ? "disabled" : "enabled "}  ${k.name ?? ""}`,
      );
      printResult(io, flags.bool("json"), { keys }, lines.length ? lines : ["no keys"]);
      return 0;
    }
    if ((sub === "disable" || sub === "enable") && keyId) {
      const flags = new Flags(args, []);
      if (!(await store.setKeyDisabled(keyId, sub === "disable"))) throw new UsageError(`no key ${keyId}`);
      printResult(io, flags.bool("json"), { id: keyId, disabled: sub === "disable" }, [
        `key ${keyId} ${sub}d`,
      ]);
      return 0;
    }
    throw new UsageError(
      "usage: stockd keys create --user U [--name S] [--expires-at ISO] | list --user U | disable KEY_ID | enable KEY_ID",
    );
  });
}

function expiry(value: string | undefined): string | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}/.test(value))
    throw new UsageError(`--expires-at "${value}" is not an ISO 8601 time`);
  return new Date(ms).toISOString();
}

/** `credits grant --user U --amount N [--reason S]` and `credits show --user U` */
export function creditsCommand(args: ParsedArgs, config: Config, io: Io): Promise<number> {
  const [, sub] = args.positional;
  return withStore(config, async (store) => {
    if (sub === "grant") {
      const flags = new Flags(args, ["user", "amount", "reason"]);
      const user = await userOf(store, flags.required("user"));
      const amount = flags.integer("amount", 0);
      const granted = await store.grantCredits(user.id, amount, flags.string("reason") ?? "grant");
      if (!granted.ok) throw new UsageError(granted.message);
      printResult(io, flags.bool("json"), { user: user.id, balance: granted.value }, [
        `${user.email}: balance ${granted.value}`,
      ]);
      return 0;
    }
    if (sub === "show") {
      const flags = new Flags(args, ["user"]);
      const user = await userOf(store, flags.required("user"));
      // SQLite: reservations live in the serving process (GET /account shows them) and none
      // outlive it; PostgreSQL: every replica's are in the database.
      const reserved = store instanceof PgAccounts ? await store.heldFor(user.id) : 0;
      const result = { user: user.id, balance: user.balance, reserved };
      printResult(io, flags.bool("json"), result, [`${user.email}: balance ${user.balance}`]);
      return 0;
    }
    throw new UsageError("usage: stockd credits grant --user U --amount N [--reason S] | show --user U");
  });
}
