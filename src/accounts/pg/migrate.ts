/**
 * The PostgreSQL accounts schema: forward-only migrations embedded as SQL files, each applied
 * once in its own transaction under a session advisory lock (so that replicas and
 * `stockd migrate` starting together apply each exactly once), and recorded with its SHA-256.
 * A replica refuses a database whose schema is older than it needs, or whose applied files
 * differ from this build's; a newer one is accepted (migrations expand the schema first, and
 * a later release contracts it once no replica needs the old shape: docs/scale-out.md).
 */
import { createHash } from "node:crypto";
import type { SQL } from "bun";
import accounts001 from "./migrations/001_accounts.sql" with { type: "text" };
import exportPayments002 from "./migrations/002_export_payments.sql" with { type: "text" };
import oauth003 from "./migrations/003_oauth.sql" with { type: "text" };
import oauthPending004 from "./migrations/004_oauth_pending.sql" with { type: "text" };
import ledgerExported005 from "./migrations/005_ledger_exported.sql" with { type: "text" };

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

function migration(version: number, name: string, sql: string): Migration {
  return { version, name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
}

/**
 * Never edit a released file: append a new one. Versions need not be contiguous: each is
 * applied once, by its number, whatever was applied before it.
 */
export const PG_MIGRATIONS: readonly Migration[] = [
  migration(1, "001_accounts.sql", accounts001),
  migration(2, "002_export_payments.sql", exportPayments002),
  migration(3, "003_oauth.sql", oauth003),
  migration(4, "004_oauth_pending.sql", oauthPending004),
  migration(5, "005_ledger_exported.sql", ledgerExported005),
].sort((a, b) => a.version - b.version);

/** The schema version this build needs: its newest migration's. */
export const PG_SCHEMA_VERSION = Math.max(...PG_MIGRATIONS.map((m) => m.version));

/** The advisory lock key of migrations (a constant: "stockd" in ASCII). */
const LOCK_KEY = 0x73746f636b64;

const CREATE_HISTORY = `CREATE TABLE IF NOT EXISTS stockd_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

export class SchemaError extends Error {}

interface Applied {
  version: number;
  name: string;
  checksum: string;
}

/** Applies the migrations not yet applied; returns the versions it applied. */
export async function migratePostgres(sql: SQL): Promise<number[]> {
  const conn = await sql.reserve();
  try {
    await conn`SELECT pg_advisory_lock(${LOCK_KEY})`;
    try {
      await conn.unsafe(CREATE_HISTORY).simple();
      const applied = await history(conn);
      checkApplied(applied);
      const done: number[] = [];
      for (const m of missing(applied)) {
        await conn.begin(async (tx) => {
          await tx.unsafe(m.sql).simple();
          await tx`INSERT INTO stockd_migrations (version, name, checksum) VALUES (${m.version}, ${m.name}, ${m.checksum})`;
        });
        done.push(m.version);
      }
      return done;
    } finally {
      await conn`SELECT pg_advisory_unlock(${LOCK_KEY})`;
    }
  } finally {
    conn.release();
  }
}

/**
 * Checks that the database holds this build's schema: every migration applied, with the same
 * files. Throws a SchemaError saying what to do otherwise.
 */
export async function checkSchema(sql: SQL): Promise<void> {
  const exists = await sql`SELECT to_regclass('stockd_migrations') IS NOT NULL AS present`;
  const applied = exists[0]?.present ? await history(sql) : [];
  checkApplied(applied);
  const absent = missing(applied);
  if (absent.length > 0)
    throw new SchemaError(
      `the accounts database lacks migration${absent.length === 1 ? "" : "s"} ${absent.map((m) => m.name).join(", ")} (this stockd needs schema version ${PG_SCHEMA_VERSION}): run stockd migrate --accounts URL first`,
    );
}

/** This build's migrations not applied yet, in order. */
function missing(applied: readonly Applied[]): Migration[] {
  const done = new Set(applied.map((row) => row.version));
  return PG_MIGRATIONS.filter((m) => !done.has(m.version));
}

async function history(sql: SQL): Promise<Applied[]> {
  return (await sql`SELECT version, name, checksum FROM stockd_migrations ORDER BY version`) as Applied[];
}

/** The applied migrations this build knows must be its own, file for file (newer ones are not its business). */
function checkApplied(applied: readonly Applied[]): void {
  for (const row of applied) {
    const ours = PG_MIGRATIONS.find((m) => m.version === row.version);
    if (ours && row.checksum !== ours.checksum)
      throw new SchemaError(
        `migration ${row.version} (${row.name}) in the accounts database differs from this stockd's ${ours.name} (checksum)`,
      );
  }
}
