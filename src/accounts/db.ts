import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Forward-only schema migrations, applied in order; `PRAGMA user_version` records how many
 * ran. Never edit a released entry: append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE users (
     id TEXT PRIMARY KEY,
     email TEXT NOT NULL UNIQUE COLLATE NOCASE,
     balance INTEGER NOT NULL DEFAULT 0 CHECK (balance >= 0),
     created_at TEXT NOT NULL
   );
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     user_id TEXT NOT NULL REFERENCES users(id),
     name TEXT,
     hash TEXT NOT NULL UNIQUE,
     prefix TEXT NOT NULL,
     created_at TEXT NOT NULL,
     expires_at TEXT,
     disabled_at TEXT,
     last_used_at TEXT
   );
   CREATE INDEX api_keys_user ON api_keys(user_id);
   CREATE TABLE ledger (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     user_id TEXT NOT NULL REFERENCES users(id),
     delta INTEGER NOT NULL CHECK (delta <> 0),
     reason TEXT NOT NULL,
     endpoint TEXT,
     request_id TEXT,
     created_at TEXT NOT NULL
   );
   CREATE INDEX ledger_user ON ledger(user_id);
   CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
     BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;
   CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
     BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;`,
  `CREATE TABLE idempotency (
     user_id TEXT NOT NULL REFERENCES users(id),
     key TEXT NOT NULL,
     request_hash TEXT NOT NULL,
     status INTEGER NOT NULL,
     content_type TEXT,
     body BLOB NOT NULL,
     created_at TEXT NOT NULL,
     PRIMARY KEY (user_id, key)
   );
   CREATE INDEX idempotency_created ON idempotency(created_at);`,
  // The ledger without AUTOINCREMENT: it wrote sqlite_sequence on every insert (a quarter of
  // a debit's cost). Rows are never deleted, so a new id is still the largest plus one and no
  // id is ever reused.
  `CREATE TABLE ledger_next (
     id INTEGER PRIMARY KEY,
     user_id TEXT NOT NULL REFERENCES users(id),
     delta INTEGER NOT NULL CHECK (delta <> 0),
     reason TEXT NOT NULL,
     endpoint TEXT,
     request_id TEXT,
     created_at TEXT NOT NULL
   );
   INSERT INTO ledger_next (id, user_id, delta, reason, endpoint, request_id, created_at)
     SELECT id, user_id, delta, reason, endpoint, request_id, created_at FROM ledger ORDER BY id;
   DROP TABLE ledger;
   ALTER TABLE ledger_next RENAME TO ledger;
   DELETE FROM sqlite_sequence WHERE name = 'ledger';
   CREATE INDEX ledger_user ON ledger(user_id);
   CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
     BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;
   CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
     BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;`,
  // Calls and credits per user, UTC day and endpoint, written in each debit's transaction:
  // /account's 30-day usage reads at most 30 days × endpoints rows instead of every ledger
  // row of the user (millions for a busy key, read on the serving thread). Nothing else reads
  // the ledger by user on a served path, so its user index goes: one B-tree write per debit.
  `CREATE TABLE usage_daily (
     user_id TEXT NOT NULL REFERENCES users(id),
     day TEXT NOT NULL,
     endpoint TEXT NOT NULL,
     calls INTEGER NOT NULL CHECK (calls > 0),
     credits INTEGER NOT NULL CHECK (credits >= 0),
     PRIMARY KEY (user_id, day, endpoint)
   ) WITHOUT ROWID;
   INSERT INTO usage_daily (user_id, day, endpoint, calls, credits)
     SELECT user_id, substr(created_at, 1, 10), coalesce(endpoint, ''), count(*), -sum(delta)
     FROM ledger WHERE reason = 'usage'
     GROUP BY user_id, substr(created_at, 1, 10), coalesce(endpoint, '');
   DROP INDEX ledger_user;`,
  // Remembered responses are capped per user by count and bytes: the sizes are kept beside the
  // bodies (length() of a large blob reads its overflow pages), and evicted oldest first.
  `ALTER TABLE idempotency ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
   UPDATE idempotency SET bytes = length(body);
   CREATE INDEX idempotency_user_age ON idempotency(user_id, created_at);`,
  // OAuth (docs/oauth.md): registered clients, grants (one per consent: the token family, tied
  // to the API key that approved it), authorization codes and tokens. Codes and tokens are
  // stored only as SHA-256 hashes, like keys; a used code or refresh token keeps its row
  // (used_at) so that a replay is recognised and revokes its grant.
  `CREATE TABLE oauth_clients (
     client_id TEXT PRIMARY KEY,
     client_name TEXT,
     redirect_uris TEXT NOT NULL,
     grant_types TEXT NOT NULL,
     metadata TEXT NOT NULL,
     created_at TEXT NOT NULL,
     last_used_at TEXT
   );
   CREATE INDEX oauth_clients_last_used ON oauth_clients(last_used_at);
   CREATE TABLE oauth_grants (
     id TEXT PRIMARY KEY,
     client_id TEXT NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
     user_id TEXT NOT NULL REFERENCES users(id),
     key_id TEXT NOT NULL REFERENCES api_keys(id),
     scope TEXT NOT NULL,
     resource TEXT NOT NULL,
     created_at TEXT NOT NULL,
     revoked_at TEXT
   );
   CREATE INDEX oauth_grants_client ON oauth_grants(client_id);
   CREATE INDEX oauth_grants_key ON oauth_grants(key_id);
   CREATE TABLE oauth_codes (
     hash TEXT PRIMARY KEY,
     grant_id TEXT NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
     redirect_uri TEXT NOT NULL,
     code_challenge TEXT NOT NULL,
     expires_at TEXT NOT NULL,
     used_at TEXT
   );
   CREATE INDEX oauth_codes_grant ON oauth_codes(grant_id);
   CREATE TABLE oauth_tokens (
     hash TEXT PRIMARY KEY,
     grant_id TEXT NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
     kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
     expires_at TEXT NOT NULL,
     used_at TEXT
   );
   CREATE INDEX oauth_tokens_grant ON oauth_tokens(grant_id);`,
  // Which exports each user has paid for (http/export-repeats.ts), one row per user and export
  // (snapshot and file): with a claimant, a read paying now, held until `until` (its lease);
  // without, a payment whose repeats are free until `until` (milliseconds since the epoch).
  // Rows past `until` are swept; a lease that ran out a window later (it counts as paid meanwhile).
  `CREATE TABLE export_payments (
     user_id TEXT NOT NULL REFERENCES users(id),
     export TEXT NOT NULL,
     claimant TEXT,
     until INTEGER NOT NULL,
     PRIMARY KEY (user_id, export)
   ) WITHOUT ROWID;
   CREATE INDEX export_payments_until ON export_payments(until);`,
];

/** The schema version a fully migrated database has (its `PRAGMA user_version`). */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Opens (creating if needed) the accounts database in WAL mode and migrates it forward.
 * `busy_timeout` matters: the CLI and the server write the same file, and bun:sqlite's
 * default of 0 would fail the second writer at once instead of waiting.
 */
export function openAccountsDb(path: string): Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { create: true, strict: true });
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  migrate(db);
  return db;
}

function migrate(db: Database): void {
  const row = db.query("PRAGMA user_version").get() as { user_version: number };
  for (let version = row.user_version; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version] as string);
      db.exec(`PRAGMA user_version = ${version + 1}`);
    }).immediate();
  }
}
