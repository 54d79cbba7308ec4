/**
 * `stockd accounts export --to postgres://...`: moves the SQLite accounts (users, keys as their
 * hashes, the ledger) into a migrated PostgreSQL database, in one transaction, idempotently:
 * users and keys keep their ids and one already there is left as it is; ledger rows take ids
 * of the target and are recorded in `ledger_exported` (migration 005), so a second run adds
 * exactly the SQLite rows not copied yet, and their sum to each user's balance, even after
 * replicas have billed in the target. Then every user's balance in the target is compared with
 * its ledger there, and the copied rows' sum with the SQLite balance.
 * OAuth clients, grants and their unexpired tokens (hashes) go too, so that signed-in MCP
 * clients stay signed in and a rotated refresh token replayed later still revokes its grant;
 * a second run carries a grant's revocation and a refresh token's use forward (the rest of
 * such rows stays as it is). So do the exports paid within their window (their
 * repeats stay free). Codes (a minute's life), exports being paid for (a read in flight) and
 * remembered idempotent responses (a 24-hour cache) stay behind.
 */
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { CHANNEL } from "./accounts.ts";
import { checkSchema } from "./migrate.ts";

/** Rows sent in one INSERT. */
const CHUNK = 1_000;

export interface ExportReport {
  users: number;
  keys: number;
  ledger_rows: number;
  /** Rows the target did not have before this run. */
  added: { users: number; keys: number; ledger_rows: number };
  /** OAuth rows the target did not have before this run. */
  oauth_added: { clients: number; grants: number; tokens: number };
  /** Export payments (repeats free) the target did not have before this run. */
  export_payments_added: number;
  /**
   * Users whose balance in the target differs from their ledger there, or whose rows copied
   * from SQLite do not sum to the SQLite balance.
   */
  mismatches: {
    user_id: string;
    sqlite: number;
    postgres: number;
    postgres_ledger: number;
    postgres_from_sqlite: number;
  }[];
}

type Row = Record<string, unknown>;

/** Copies `sqlitePath`'s accounts into the database at `url` and verifies the copy. */
export async function exportAccounts(sqlitePath: string, url: string): Promise<ExportReport> {
  const source = new Database(sqlitePath, { readonly: true, strict: true });
  const target = new SQL(url, { max: 2 });
  try {
    await checkSchema(target);
    // One read transaction: a consistent state even while a server commits debits.
    source.exec("BEGIN");
    const users = source.query("SELECT id, email, balance, created_at FROM users ORDER BY id").all() as Row[];
    const keys = source
      .query(
        `SELECT id, user_id, name, hash, prefix, created_at, expires_at, disabled_at, last_used_at
         FROM api_keys ORDER BY id`,
      )
      .all() as Row[];
    const ledger = source
      .query("SELECT id, user_id, delta, reason, endpoint, request_id, created_at FROM ledger ORDER BY id")
      .all() as Row[];
    const oauth = readOAuth(source, new Date().toISOString());
    const payments = readExportPayments(source, Date.now());
    source.exec("COMMIT");
    const [added, oauthAdded, paymentsAdded] = await target.begin(async (tx) => {
      const counts = {
        // A new user starts at 0: the ledger rows added below bring its balance.
        users: await insertAll(
          tx,
          "users",
          users.map((user) => ({ ...user, balance: 0 })),
        ),
        keys: await insertAll(tx, "api_keys", keys),
        ledger_rows: await addLedger(tx, ledger),
      };
      const oauthCounts = {
        clients: await insertAll(tx, "oauth_clients", oauth.clients),
        grants: await carryForward(tx, "oauth_grants", oauth.grants),
        tokens: await carryForward(tx, "oauth_tokens", oauth.tokens),
      };
      // Replicas forget the access tokens they remember, in case a grant was revoked here.
      await tx`SELECT pg_notify(${CHANNEL}, 'grant revoked')`;
      return [counts, oauthCounts, await insertAll(tx, "export_payments", payments)] as const;
    });
    return {
      users: users.length,
      keys: keys.length,
      ledger_rows: ledger.length,
      added,
      oauth_added: oauthAdded,
      export_payments_added: paymentsAdded,
      mismatches: await compare(target, users),
    };
  } finally {
    source.close();
    await target.close();
  }
}

/**
 * The OAuth rows worth moving at `now`: every client and grant (a revoked one carries its
 * revocation to a copy made before it), and their unexpired tokens, used refresh tokens too:
 * a replay of one revokes its grant, as it would have on SQLite (an empty set from a database
 * made before OAuth's tables).
 */
function readOAuth(source: Database, now: string): { clients: Row[]; grants: Row[]; tokens: Row[] } {
  const present = source
    .query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'oauth_grants'")
    .get();
  if (!present) return { clients: [], grants: [], tokens: [] };
  return {
    clients: source
      .query(
        `SELECT client_id, client_name, redirect_uris, grant_types, metadata, created_at, last_used_at
         FROM oauth_clients ORDER BY client_id`,
      )
      .all() as Row[],
    grants: source
      .query(
        `SELECT id, client_id, user_id, key_id, scope, resource, created_at, revoked_at
         FROM oauth_grants ORDER BY id`,
      )
      .all() as Row[],
    tokens: source
      .query(
        `SELECT t.hash, t.grant_id, t.kind, t.expires_at, t.used_at FROM oauth_tokens t
         JOIN oauth_grants g ON g.id = t.grant_id
         WHERE g.revoked_at IS NULL AND t.expires_at > $now ORDER BY t.hash`,
      )
      .all({ now }) as Row[],
  };
}

/** The export payments whose window lasts at `now` (none from a database made before them). */
function readExportPayments(source: Database, now: number): Row[] {
  const present = source
    .query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'export_payments'")
    .get();
  if (!present) return [];
  return source
    .query(
      `SELECT user_id, export, claimant, until FROM export_payments
       WHERE claimant IS NULL AND until > $now ORDER BY user_id, export`,
    )
    .all({ now }) as Row[];
}

/** Inserts rows that are not there yet (by primary key); returns how many were added. */
async function insertAll(
  tx: SQL,
  table: "users" | "api_keys" | "oauth_clients" | "oauth_grants" | "oauth_tokens" | "export_payments",
  rows: Row[],
): Promise<number> {
  let added = 0;
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    const done = await tx`INSERT INTO ${tx(table)} ${tx(chunk)} ON CONFLICT DO NOTHING RETURNING 1`;
    added += done.length;
  }
  return added;
}

/**
 * Adds the SQLite ledger rows the target has not got, with ids of the target, records where
 * each came from, and adds their sum to each user's balance. A row counts as there when it is
 * recorded in `ledger_exported`, when it is a call's debit or refund of the same request id
 * (one of each per request, whatever wrote it), or when an export made before that table
 * copied it with its SQLite id (the same id and content). Returns how many were added.
 */
async function addLedger(tx: SQL, ledger: Row[]): Promise<number> {
  await tx`CREATE TEMP TABLE export_ledger (
    sqlite_id bigint PRIMARY KEY, user_id text NOT NULL, delta bigint NOT NULL, reason text NOT NULL,
    endpoint text, request_id text, created_at text NOT NULL) ON COMMIT DROP`;
  for (let i = 0; i < ledger.length; i += CHUNK) {
    const chunk = ledger.slice(i, i + CHUNK).map(({ id, ...row }) => ({ sqlite_id: id, ...row }));
    await tx`INSERT INTO export_ledger ${tx(chunk)}`;
  }
  // A call's debit or refund, whoever wrote it: one of each per request id.
  await tx`
    INSERT INTO ledger_exported (sqlite_id, ledger_id)
    SELECT e.sqlite_id, l.id FROM export_ledger e
    JOIN ledger l ON l.reason = e.reason AND l.request_id = e.request_id
    WHERE e.reason IN ('usage', 'refund')
    ON CONFLICT DO NOTHING`;
  // A row an export made before ledger_exported copied under its SQLite id.
  await tx`
    INSERT INTO ledger_exported (sqlite_id, ledger_id)
    SELECT e.sqlite_id, l.id FROM export_ledger e
    JOIN ledger l ON l.id = e.sqlite_id AND l.user_id = e.user_id AND l.delta = e.delta
      AND l.reason = e.reason AND l.created_at = e.created_at AND l.request_id IS NOT DISTINCT FROM e.request_id
    ON CONFLICT DO NOTHING`;
  const short = (await tx`
    SELECT u.id FROM users u JOIN (
      SELECT user_id, sum(delta) AS total FROM export_ledger e
      WHERE NOT EXISTS (SELECT 1 FROM ledger_exported x WHERE x.sqlite_id = e.sqlite_id) GROUP BY user_id
    ) s ON s.user_id = u.id
    WHERE u.balance + s.total < u.reserved ORDER BY u.id`) as { id: string }[];
  if (short.length > 0)
    throw new Error(
      `the SQLite debits not yet copied exceed the PostgreSQL balance of ${short.length} users (${short
        .slice(0, 10)
        .map((u) => u.id)
        .join(
          ", ",
        )}): they spent on both sides; grant them credits in PostgreSQL, then export again (nothing was copied)`,
    );
  const [added] = await tx`
    WITH fresh AS MATERIALIZED (
      SELECT nextval(pg_get_serial_sequence('ledger', 'id')) AS id, q.* FROM (
        SELECT e.* FROM export_ledger e
        WHERE NOT EXISTS (SELECT 1 FROM ledger_exported x WHERE x.sqlite_id = e.sqlite_id)
        ORDER BY e.sqlite_id) q
    ),
    rows AS (
      INSERT INTO ledger (id, user_id, delta, reason, endpoint, request_id, created_at)
      SELECT id, user_id, delta, reason, endpoint, request_id, created_at FROM fresh
      RETURNING user_id, delta
    ),
    origin AS (INSERT INTO ledger_exported (sqlite_id, ledger_id) SELECT sqlite_id, id FROM fresh),
    credited AS (
      UPDATE users u SET balance = u.balance + s.total
      FROM (SELECT user_id, sum(delta) AS total FROM rows GROUP BY user_id) s WHERE u.id = s.user_id
    )
    SELECT count(*)::int AS n FROM rows`;
  return (added as { n: number }).n;
}

/**
 * Inserts grants or tokens not there yet, and on one already there sets what only ever goes
 * from null to a time: a grant's revocation, a token's use. Returns how many were added.
 */
async function carryForward(tx: SQL, table: "oauth_grants" | "oauth_tokens", rows: Row[]): Promise<number> {
  let added = 0;
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    // xmax is 0 on a row this statement inserted, not on one it updated.
    const done = (
      table === "oauth_grants"
        ? await tx`INSERT INTO oauth_grants ${tx(chunk)} ON CONFLICT (id) DO UPDATE
            SET revoked_at = coalesce(oauth_grants.revoked_at, excluded.revoked_at)
            RETURNING xmax = 0 AS inserted`
        : await tx`INSERT INTO oauth_tokens ${tx(chunk)} ON CONFLICT (hash) DO UPDATE
            SET used_at = coalesce(oauth_tokens.used_at, excluded.used_at)
            RETURNING xmax = 0 AS inserted`
    ) as { inserted: boolean }[];
    added += done.filter((row) => row.inserted).length;
  }
  return added;
}

/**
 * Every exported user's balance in the target equals the target's ledger sum, and the rows
 * copied from SQLite sum to the SQLite balance (rows replicas wrote since come on top of it).
 */
async function compare(target: SQL, users: Row[]): Promise<ExportReport["mismatches"]> {
  const rows = (await target`
    SELECT u.id, u.balance::float8 AS balance, coalesce(l.total, 0)::float8 AS ledger,
      coalesce(x.total, 0)::float8 AS exported
    FROM users u
    LEFT JOIN (SELECT user_id, sum(delta) AS total FROM ledger GROUP BY user_id) l ON l.user_id = u.id
    LEFT JOIN (SELECT l.user_id, sum(l.delta) AS total FROM ledger_exported x JOIN ledger l ON l.id = x.ledger_id
               GROUP BY l.user_id) x ON x.user_id = u.id`) as {
    id: string;
    balance: number;
    ledger: number;
    exported: number;
  }[];
  const found = new Map(rows.map((r) => [r.id, r]));
  const mismatches: ExportReport["mismatches"] = [];
  for (const user of users) {
    const there = found.get(user.id as string);
    const balance = user.balance as number;
    if (there && there.balance === there.ledger && there.exported === balance) continue;
    mismatches.push({
      user_id: user.id as string,
      sqlite: balance,
      postgres: there?.balance ?? 0,
      postgres_ledger: there?.ledger ?? 0,
      postgres_from_sqlite: there?.exported ?? 0,
    });
  }
  return mismatches;
}
