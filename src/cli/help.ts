/** The text of `stockd --help` and `stockd <command> --help`. */

const COMMON = `Every command takes --data-dir DIR (default: $STOCKD_DATA_DIR, else ./data), --config FILE
(default: stockd.toml in the data dir, else in the working dir) and --log-level LEVEL;
commands that create or show things take --json and then print one JSON object on stdout.`;

/** One entry per command: its usage lines and what it does. */
export const COMMAND_HELP: Readonly<Record<string, string>> = {
  serve: `usage: stockd serve [--port N] [--host H] [--sync-every 24h]

Serves the HTTP API (default 127.0.0.1:8080; env PORT, HOST). On a fresh data dir (no
snapshot, no accounts) it first builds the demo data set and prints a demo API key.
SIGTERM or SIGINT stops it gracefully: calls in flight finish (up to 8 s), then exit 0.
--sync-every runs "stockd sync" on that interval (needs sec_user_agent; see docs/sync.md).`,
  demo: `usage: stockd demo [--json]

Generates the fictional demo universe, imports it as a new snapshot and activates it.`,
  import: `usage: stockd import --from DIR [--lenient] [--publish SOURCE] [--json]

Imports a source directory (SEC, price, dividend, calendar, estimate and FIGI files; see the
README) into a new snapshot and activates it. Bad input fails with the file and line named.
--publish then publishes it to a snapshot source, as "snapshots publish" does.`,
  sync: `usage: stockd sync --user-agent "NAME EMAIL" [--tickers A,B,...] [--all-listed] [--since YYYY-MM-DD]
                   [--form4-since YYYY-MM-DD] [--lenient] [--no-import] [--json]
       stockd sync status [--json]

Fetches what the universe needs from SEC EDGAR (and prices, when a provider is configured)
into DATA_DIR/sources/, imports it as a new snapshot and activates it (a running server
follows). The first run fetches each company; later runs read the daily EDGAR indexes since
the last one and fetch only what changed. The universe grows with --tickers (resolved through
the SEC's ticker lists) or --all-listed; --no-import fills the mirror only (the next run
imports it). A failed or interrupted run changes nothing served;
the next one resumes. One sync at a time per data dir. See docs/sync.md.
Exit 0 done, 1 stopped (nothing activated), 2 usage, 3 imported with items to retry.`,
  mcp: `usage: STOCKD_API_KEY=sk_... stockd mcp

Speaks MCP over stdin/stdout for one local client (Claude Desktop and other stdio clients),
in the name of the API key in STOCKD_API_KEY, against the data dir: the same tools, prices
and ledger as /mcp on the server (both may run at once). Logs go to stderr. Exits 0 when the
client closes stdin, 1 for a key that is not valid, 2 without a key. See docs/mcp.md.`,
  snapshots: `usage: stockd snapshots list [--json]
       stockd snapshots activate ID [--json]
       stockd snapshots publish ID --to SOURCE [--json]

Lists the snapshots in the data dir, or switches the served one (a running server follows).
publish uploads a snapshot to SOURCE (dir:/path or s3://bucket/prefix; S3 settings from
S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY), then points the source's
CURRENT at it; replicas serving with STOCKD_SNAPSHOT_SOURCE switch to it (docs/scale-out.md).`,
  users: `usage: stockd users create --email E [--credits N] [--json]`,
  keys: `usage: stockd keys create --user ID_OR_EMAIL [--name S] [--expires-at ISO8601] [--json]
       stockd keys list --user ID_OR_EMAIL [--json]
       stockd keys disable KEY_ID
       stockd keys enable KEY_ID

The full key is printed only by "keys create"; only its hash is stored.`,
  credits: `usage: stockd credits grant --user ID_OR_EMAIL --amount N [--reason S] [--json]
       stockd credits show --user ID_OR_EMAIL [--json]`,
  healthcheck: `usage: stockd healthcheck [--url URL]

GETs the server's /health (default http://127.0.0.1:$PORT/health) and exits 0 when it
answers 200, 1 otherwise. For container health checks: the image has no curl.`,
  doctor: `usage: stockd doctor [--json]

Checks the installation without changing it: the data dir exists and is writable; CURRENT
names a complete snapshot whose table files all match the manifest (size, sha256, Parquet
row count); leftover staging dirs (a warning); the accounts database passes
PRAGMA integrity_check, every balance equals the sum of its ledger and none is negative.
With STOCKD_ACCOUNTS_URL set, the PostgreSQL accounts instead: reachable, every migration
applied, every balance the sum of its ledger and every hold the sum of its reservations.
Prints each finding; exits 0 when nothing failed, 1 otherwise.`,
  backup: `usage: stockd backup --to DIR [--json]

Writes a consistent copy of the accounts database to DIR/accounts.db (VACUUM INTO; safe
while a server runs) and prints it with the active snapshot's id. Refuses to overwrite an
existing file. Snapshots are immutable files: copy DATA_DIR/snapshots with any tool.
With STOCKD_ACCOUNTS_URL set it refuses: back up PostgreSQL with pg_dump.`,
  export: `usage: stockd export --to DIR [--tables A,B,...] [--format parquet|csv] [--snapshot ID] [--json]

Writes the active snapshot's tables (or the snapshot ID's) to DIR as the server's
GET /exports/{name}.{format} serves them: every table of the export list (stockd serves it
at /exports), or those named; Parquet by default. Never overwrites a file.`,
  migrate: `usage: stockd migrate --accounts postgres://user@host:port/database [--json]

Brings a shared PostgreSQL accounts database to this build's schema (forward only, each
migration once, under an advisory lock, checksummed). Replicas refuse an older schema.
The URL may come from STOCKD_ACCOUNTS_URL instead. See docs/scale-out.md.`,
  accounts: `usage: stockd accounts export --to postgres://user@host:port/database [--json]

Copies this data dir's SQLite accounts (users, keys as hashes, the ledger) into a migrated
PostgreSQL database in one transaction; a second run adds nothing. Then checks that every
balance equals the SQLite one and the ledger's sum there: exit 1 when one differs.
OAuth clients, live grants and their unexpired tokens are copied too (clients stay signed in);
remembered idempotent responses are not.`,
  oauth: `usage: stockd oauth grants [--user ID_OR_EMAIL] [--all] [--json]
       stockd oauth revoke GRANT_ID [--json]

Lists the OAuth grants (one per consent on the /mcp sign-in page: a client's access in a
user's name through the key that approved it), live ones unless --all; or revokes one: its
codes and tokens stop working at once, on every replica. See docs/oauth.md.`,
};

/** `stockd --help`: the version line, then one summary line per command. */
export function generalHelp(version: string): string {
  return `stockd ${version}: a self-hosted, read-only stock-data REST service

usage: stockd <command> [options]      stockd <command> --help      stockd --version

  serve [--port N] [--host H]        serve HTTP (default 127.0.0.1:8080); a fresh data dir gets the demo data
  demo                               build the demo data set and activate it
  import --from DIR [--lenient]      import a source directory into a new snapshot and activate it
  sync --user-agent UA [--tickers A,B | --all-listed] | status
                                     fetch SEC EDGAR (and prices) into DATA_DIR/sources, import, activate
  mcp                                MCP over stdio for a local client, with the key in STOCKD_API_KEY
  snapshots list | activate ID       list snapshots, switch the active one
  snapshots publish ID --to SOURCE   publish a snapshot to replicas that follow SOURCE
  users create --email E [--credits N]
  keys create --user U [--name S] [--expires-at ISO8601] | list --user U | disable ID | enable ID
  credits grant --user U --amount N [--reason S] | show --user U
  healthcheck [--url URL]            exit 0 when the server's /health answers 200
  doctor                             check the data dir, the active snapshot and the accounts DB
  backup --to DIR                    copy the accounts DB consistently (also while serving)
  export --to DIR [--tables A,B] [--format parquet|csv]
                                     write the snapshot's tables as files (as GET /exports serves them)
  migrate --accounts URL             bring a shared PostgreSQL accounts database to this schema
  accounts export --to URL           copy the SQLite accounts (users, keys, ledger) into PostgreSQL
  oauth grants [--user U] | revoke ID
                                     list the OAuth grants of /mcp clients, revoke one

${COMMON}`;
}

/** `stockd <command> --help`, or null for an unknown command. */
export function commandHelp(name: string): string | null {
  return Object.hasOwn(COMMAND_HELP, name) ? `${COMMAND_HELP[name]}\n\n${COMMON}` : null;
}
