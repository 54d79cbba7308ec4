import { SQL } from "bun";
import { exportAccounts } from "../accounts/pg/export.ts";
import { migratePostgres, PG_SCHEMA_VERSION } from "../accounts/pg/migrate.ts";
import type { Config } from "../config.ts";
import { accountsDbPath } from "./accounts.ts";
import { Flags, type Io, type ParsedArgs, printResult, UsageError } from "./args.ts";

const POSTGRES_URL = /^postgres(ql)?:\/\/\S+$/;

/** The PostgreSQL URL of a flag, else of `accounts_url`; never printed (it may hold a password). */
function postgresUrl(flags: Flags, flag: string, config: Config): string {
  const url = flags.string(flag) ?? config.accountsUrl;
  if (url === undefined || url === null || url === "")
    throw new UsageError(`--${flag} postgres://user@host:port/database is required (or STOCKD_ACCOUNTS_URL)`);
  if (!POSTGRES_URL.test(url) || !URL.canParse(url))
    throw new UsageError(`--${flag} must be a postgres:// URL (the value is not shown)`);
  return url;
}

/** `migrate --accounts URL`: brings the shared accounts database to this build's schema. */
export async function migrateCommand(args: ParsedArgs, config: Config, io: Io): Promise<number> {
  const flags = new Flags(args, ["accounts"]);
  const sql = new SQL(postgresUrl(flags, "accounts", config), { max: 1 });
  try {
    const applied = await migratePostgres(sql);
    printResult(io, flags.bool("json"), { applied, schema_version: PG_SCHEMA_VERSION }, [
      applied.length === 0
        ? `accounts database already at schema version ${PG_SCHEMA_VERSION}`
        : `applied migration${applied.length === 1 ? "" : "s"} ${applied.join(", ")}; schema version ${PG_SCHEMA_VERSION}`,
    ]);
    return 0;
  } finally {
    await sql.close();
  }
}

/**
 * `accounts export --to URL`: copies this data dir's SQLite accounts (users, keys, ledger, and
 * OAuth's clients and live grants, the exports paid within their window) into a migrated PostgreSQL database, then checks counts and
 * balances; exit 1 on a mismatch.
 */
export async function accountsCommand(args: ParsedArgs, config: Config, io: Io): Promise<number> {
  const [, sub] = args.positional;
  if (sub !== "export")
    throw new UsageError("usage: stockd accounts export --to postgres://user@host:port/database");
  const flags = new Flags(args, ["to"]);
  const report = await exportAccounts(accountsDbPath(config), postgresUrl(flags, "to", config));
  const lines = [
    `users ${report.users} (${report.added.users} added), keys ${report.keys} (${report.added.keys} added), ledger rows ${report.ledger_rows} (${report.added.ledger_rows} added)`,
    `OAuth: ${report.oauth_added.clients} clients, ${report.oauth_added.grants} grants, ${report.oauth_added.tokens} tokens added; export payments: ${report.export_payments_added} added`,
    report.mismatches.length === 0
      ? "every balance equals the ledger's sum in PostgreSQL, and the rows copied from SQLite sum to the SQLite balance"
      : `${report.mismatches.length} users' balances differ: ${report.mismatches
          .slice(0, 10)
          .map(
            (m) =>
              `${m.user_id} sqlite ${m.sqlite}, copied rows ${m.postgres_from_sqlite}, postgres ${m.postgres} (ledger ${m.postgres_ledger})`,
          )
          .join("; ")}`,
  ];
  printResult(io, flags.bool("json"), report, lines);
  return report.mismatches.length === 0 ? 0 : 1;
}
