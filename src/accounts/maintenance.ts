/**
 * Read-only inspection and online backup of the accounts database, for `stockd doctor` and
 * `stockd backup`. Both open their own read-only connection, so they never migrate, create
 * or lock out a running server (WAL: readers and the writer do not block each other).
 */
import { Database } from "bun:sqlite";
import { constants, copyFileSync, existsSync, linkSync, mkdirSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { SCHEMA_VERSION } from "./db.ts";

export interface LedgerMismatch {
  user_id: string;
  email: string;
  balance: number;
  ledger_sum: number;
}

export interface AccountsInspection {
  /** `PRAGMA user_version` of the file, and the version this build migrates to. */
  schema_version: number;
  expected_schema_version: number;
  /** `PRAGMA integrity_check` lines other than "ok", plus foreign key violations. */
  integrity_errors: string[];
  users: number;
  /** Users whose balance differs from the sum of their ledger deltas. */
  ledger_mismatches: LedgerMismatch[];
  /** Users with a balance below zero (the schema forbids it; a hand-edited file may not). */
  negative_balances: { user_id: string; email: string; balance: number }[];
  /** Days whose daily usage row differs from the ledger's usage rows of that user, day and endpoint. */
  usage_mismatches: UsageMismatch[];
}

export interface UsageMismatch {
  user_id: string;
  day: string;
  endpoint: string;
  usage_calls: number;
  usage_credits: number;
  ledger_calls: number;
  ledger_credits: number;
}

const MISMATCHES = `
  SELECT u.id AS user_id, u.email, u.balance, coalesce(l.total, 0) AS ledger_sum
  FROM users u LEFT JOIN (SELECT user_id, sum(delta) AS total FROM ledger GROUP BY user_id) l
    ON l.user_id = u.id
  WHERE u.balance <> coalesce(l.total, 0)
  ORDER BY u.id`;
const NEGATIVE = "SELECT id AS user_id, email, balance FROM users WHERE balance < 0 ORDER BY id";
// A refund takes its call back from the usage of its debit's day (the row of the same request id).
const USAGE_MISMATCHES = `
  WITH l AS (
    SELECT d.user_id, substr(d.created_at, 1, 10) AS day, coalesce(d.endpoint, '') AS endpoint,
           count(*) - count(r.request_id) AS calls, -sum(d.delta) - coalesce(sum(r.delta), 0) AS credits
    FROM ledger d LEFT JOIN ledger r
      ON r.reason = 'refund' AND r.user_id = d.user_id AND r.request_id = d.request_id
    WHERE d.reason = 'usage' GROUP BY 1, 2, 3 HAVING calls > 0
  )
  SELECT coalesce(u.user_id, l.user_id) AS user_id, coalesce(u.day, l.day) AS day,
         coalesce(u.endpoint, l.endpoint) AS endpoint,
         coalesce(u.calls, 0) AS usage_calls, coalesce(u.credits, 0) AS usage_credits,
         coalesce(l.calls, 0) AS ledger_calls, coalesce(l.credits, 0) AS ledger_credits
  FROM usage_daily u FULL JOIN l ON u.user_id = l.user_id AND u.day = l.day AND u.endpoint = l.endpoint
  WHERE coalesce(u.calls, 0) <> coalesce(l.calls, 0) OR coalesce(u.credits, 0) <> coalesce(l.credits, 0)
  ORDER BY 1, 2, 3`;

/** Opens an existing database read-only, waiting (as the server's writers do) on a busy file. */
function openReadOnly(path: string): Database {
  const db = new Database(path, { readonly: true, strict: true });
  db.exec("PRAGMA busy_timeout = 5000");
  return db;
}

/**
 * Checks a database file: page integrity, foreign keys, balance = sum(ledger) per user, and
 * the daily usage table against the ledger (a file not yet migrated to it is skipped there).
 * Balances are not compared in a file that failed the integrity check (its rows are suspect).
 */
export function inspectAccountsDb(path: string): AccountsInspection {
  const db = openReadOnly(path);
  try {
    const version = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
    const integrity_errors = integrityErrors(db);
    const hasUsers = db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'users'").get();
    const readable = hasUsers !== null && integrity_errors.length === 0;
    const hasUsage =
      readable && db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'usage_daily'").get();
    return {
      schema_version: version,
      expected_schema_version: SCHEMA_VERSION,
      integrity_errors,
      users: readable ? (db.query("SELECT count(*) AS n FROM users").get() as { n: number }).n : 0,
      ledger_mismatches: readable ? (db.query(MISMATCHES).all() as LedgerMismatch[]) : [],
      negative_balances: readable
        ? (db.query(NEGATIVE).all() as AccountsInspection["negative_balances"])
        : [],
      usage_mismatches: hasUsage ? (db.query(USAGE_MISMATCHES).all() as UsageMismatch[]) : [],
    };
  } finally {
    db.close();
  }
}

/** `PRAGMA integrity_check` and `foreign_key_check` problems; a corrupt page can make them throw. */
function integrityErrors(db: Database): string[] {
  try {
    const pages = (db.query("PRAGMA integrity_check").all() as { integrity_check: string }[])
      .map((r) => r.integrity_check)
      .filter((line) => line !== "ok");
    const foreign = db.query("PRAGMA foreign_key_check").all() as { table: string; parent: string }[];
    return [...pages, ...foreign.map((f) => `${f.table}: row without its ${f.parent}`)];
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
}

export interface BackupResult {
  path: string;
  bytes: number;
  users: number;
  schema_version: number;
}

export type BackupOutcome =
  | { ok: true; value: BackupResult }
  | { ok: false; code: "no_source" | "exists" | "bad_copy"; message: string };

/**
 * Copies the database to `dest` with `VACUUM INTO`: one read transaction, so the copy is a
 * consistent state even while a server commits debits. It is written under a temporary name
 * and then hard-linked into place, which fails rather than replaces when `dest` exists; the
 * copy is then checked with `PRAGMA integrity_check`.
 */
export function backupAccountsDb(source: string, dest: string): BackupOutcome {
  if (!existsSync(source))
    return { ok: false, code: "no_source", message: `no accounts database at ${source}` };
  if (existsSync(dest)) return exists(dest);
  mkdirSync(dirname(dest), { recursive: true });
  const partial = `${dest}.${process.pid}.partial`;
  try {
    const db = openReadOnly(source);
    try {
      db.query("VACUUM INTO $path").run({ path: partial });
    } finally {
      db.close();
    }
    if (!publish(partial, dest)) return exists(dest);
  } finally {
    rmSync(partial, { force: true });
  }
  return verifyCopy(dest);
}

function exists(dest: string): BackupOutcome {
  return { ok: false, code: "exists", message: `${dest} exists; refusing to overwrite it` };
}

/** Moves the finished copy to `dest` unless something is already there; false if it is. */
function publish(partial: string, dest: string): boolean {
  try {
    linkSync(partial, dest);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw error;
  }
  // A file system without hard links (some network shares): an exclusive copy instead.
  try {
    copyFileSync(partial, dest, constants.COPYFILE_EXCL);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

function verifyCopy(dest: string): BackupOutcome {
  const check = inspectAccountsDb(dest);
  if (check.integrity_errors.length > 0)
    return { ok: false, code: "bad_copy", message: `${dest}: ${check.integrity_errors.join("; ")}` };
  return {
    ok: true,
    value: {
      path: dest,
      bytes: statSync(dest).size,
      users: check.users,
      schema_version: check.schema_version,
    },
  };
}
