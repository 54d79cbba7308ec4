/**
 * Shared machinery of the soak runs (test/soak/run.ts): a seeded generator, invariant
 * bookkeeping, plain HTTP calls, and read-only inspection of `accounts.db`; the stockd CLI and
 * server as subprocesses are test/helpers/cli.ts and spawn.ts. Nothing here imports the
 * serving code: the soak looks at the program from outside, as a client and an operator would.
 */
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { rng as mulberry32 } from "../../src/demo/universe.ts";

// ---------------------------------------------------------------------------------------------
// Seeds

/** The demo's seeded generator (mulberry32) with the draws the soak needs; the whole run follows from one 32-bit seed. */
export class Rng {
  readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  /** An integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** One of `choices`, with probability proportional to its weight. */
  weighted<T extends string>(choices: Readonly<Record<T, number>>): T {
    const entries = Object.entries(choices) as [T, number][];
    let r = this.next() * entries.reduce((n, [, w]) => n + w, 0);
    for (const [value, weight] of entries) {
      r -= weight;
      if (r < 0) return value;
    }
    return (entries[entries.length - 1] as [T, number])[0];
  }

  /** `n` lowercase letters and digits. */
  word(n: number): string {
    const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
    let s = "";
    for (let i = 0; i < n; i++) s += alphabet[this.int(0, alphabet.length - 1)];
    return s;
  }
}

/** The seed of one scenario, from the run's seed and the scenario's name (each replays alone). */
export function deriveSeed(seed: number, label: string): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

// ---------------------------------------------------------------------------------------------
// Results

const MAX_MESSAGES = 40;

/** Counts every invariant evaluated and keeps the messages of those that failed. */
export class Checks {
  count = 0;
  failed = 0;
  readonly messages: string[] = [];

  /** Records one evaluated invariant; returns whether it held. */
  check(ok: boolean, message: () => string): boolean {
    this.count++;
    if (!ok) {
      this.failed++;
      if (this.messages.length < MAX_MESSAGES) this.messages.push(message());
    }
    return ok;
  }
}

export interface ScenarioResult {
  name: string;
  seed: number;
  /** What was run, e.g. "20 kills". */
  runs: string;
  /** What was injected, e.g. "20 SIGKILL under load". */
  faults: string;
  checks: number;
  violations: number;
  messages: string[];
  /** The invariants the scenario asserts (each line says what held when violations is 0). */
  held: string[];
  figures: Record<string, number | string>;
  seconds: number;
  /** The scenario's work directory (kept when something failed). */
  workDir: string;
}

/** The state every scenario gets: where to work, the demo data dir to copy, the clock. */
export interface SoakContext {
  short: boolean;
  seed: number;
  workDir: string;
  /** A data dir holding the demo snapshot and nothing else; scenarios copy it. */
  template: string;
  /** Wall-clock limit of the scenario (ms since the epoch). */
  deadline: number;
  /** Progress lines (stderr). */
  say: (message: string) => void;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

// ---------------------------------------------------------------------------------------------
// HTTP

/** What a client saw of one call. */
export interface Outcome {
  /** 0 when no status line arrived (connection refused, reset, timeout). */
  status: number;
  requestId: string | null;
  /** X-Credits-Charged (0 when absent). */
  charged: number;
  /** When the status arrived or the call failed (performance.now()). */
  at: number;
  body: string;
  error: string | null;
}

export async function call(
  base: string,
  path: string,
  opts: {
    key?: string | null;
    method?: string;
    timeoutMs?: number;
    headers?: Record<string, string>;
    /** Called once when the status arrives or the call fails, before the body is read. */
    onSettled?: () => void;
  } = {},
): Promise<Outcome> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method: opts.method ?? "GET",
      headers,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 20_000),
    });
  } catch (error) {
    opts.onSettled?.();
    return { status: 0, requestId: null, charged: 0, at: performance.now(), body: "", error: String(error) };
  }
  opts.onSettled?.();
  const at = performance.now();
  const outcome: Outcome = {
    status: res.status,
    requestId: res.headers.get("x-request-id"),
    charged: Number(res.headers.get("x-credits-charged") ?? "0"),
    at,
    body: "",
    error: null,
  };
  try {
    outcome.body = await res.text();
  } catch (error) {
    // The status arrived, the body did not (the server died while sending it).
    outcome.error = `body: ${String(error)}`;
  }
  return outcome;
}

export interface AccountView {
  user_id: string;
  balance: number;
  reserved: number;
  available: number;
}

// ---------------------------------------------------------------------------------------------
// accounts.db, read from outside

export interface LedgerRow {
  id: number;
  user_id: string;
  delta: number;
  reason: string;
  endpoint: string | null;
  request_id: string | null;
  created_at: string;
}

export interface UserRow {
  id: string;
  email: string;
  balance: number;
  ledger_sum: number;
}

export interface DbState {
  /** `PRAGMA integrity_check` (or quick_check) lines; ["ok"] when sound. */
  integrity: string[];
  users: UserRow[];
  ledger: LedgerRow[];
}

/**
 * Reads the accounts database without writing it: integrity, users with the sum of their
 * ledger, and every ledger row. `mode: "live"` reads a database a server may be writing
 * (a read-only WAL reader); "copy" opens a copy made by `copyDb` (read-write: SQLite
 * recovers the copied WAL as a restarting server would, without touching the original).
 */
export function readDb(path: string, opts: { integrity: "full" | "quick"; mode: "live" | "copy" }): DbState {
  const db =
    opts.mode === "live"
      ? new Database(path, { readonly: true })
      : new Database(path, { readwrite: true, create: false });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    const pragma = opts.integrity === "full" ? "integrity_check" : "quick_check";
    const integrity = db
      .query<Record<string, string>, []>(`PRAGMA ${pragma}`)
      .all()
      .map((row) => String(Object.values(row)[0]));
    // One read transaction: users and ledger from the same commit.
    return db.transaction(() => {
      const users = db
        .query<UserRow, []>(
          `SELECT u.id, u.email, u.balance,
                  (SELECT coalesce(sum(delta), 0) FROM ledger l WHERE l.user_id = u.id) AS ledger_sum
           FROM users u ORDER BY u.id`,
        )
        .all();
      const ledger = db
        .query<LedgerRow, []>(
          "SELECT id, user_id, delta, reason, endpoint, request_id, created_at FROM ledger ORDER BY id",
        )
        .all();
      return { integrity, users, ledger };
    })();
  } finally {
    db.close();
  }
}

/** Every key's id and whether it is disabled, from the live database. */
export function readKeyStates(path: string): Map<string, boolean> {
  const db = new Database(path, { readonly: true });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    const rows = db
      .query<{ id: string; disabled_at: string | null }, []>("SELECT id, disabled_at FROM api_keys")
      .all();
    return new Map(rows.map((r) => [r.id, r.disabled_at !== null]));
  } finally {
    db.close();
  }
}

/**
 * Copies `accounts.db` and its WAL (as a SIGKILL left them) into `dir`, so they can be
 * inspected while the original is left for the next server start to recover by itself.
 */
export function copyDb(dataDir: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const target = join(dir, "accounts.db");
  copyFileSync(join(dataDir, "accounts.db"), target);
  const wal = join(dataDir, "accounts.db-wal");
  if (existsSync(wal)) copyFileSync(wal, `${target}-wal`);
  return target;
}

/**
 * The ledger is append-only: between two looks the row count never decreases and every row
 * seen before is unchanged. Keeps a SHA-256 over the rows seen (by id, every column).
 */
export class LedgerWatcher {
  private seenCount = 0;
  private seenMaxId = 0;
  private seenHash = new Bun.CryptoHasher("sha256").digest("hex");

  observe(rows: readonly LedgerRow[], checks: Checks, where: string): void {
    checks.check(
      rows.length >= this.seenCount,
      () => `${where}: ledger shrank from ${this.seenCount} to ${rows.length} rows`,
    );
    const prefix = new Bun.CryptoHasher("sha256");
    const all = new Bun.CryptoHasher("sha256");
    let maxId = 0;
    for (const row of rows) {
      const line = `${row.id}\u0000${row.user_id}\u0000${row.delta}\u0000${row.reason}\u0000${row.endpoint}\u0000${row.request_id}\u0000${row.created_at}\n`;
      if (row.id <= this.seenMaxId) prefix.update(line);
      all.update(line);
      maxId = Math.max(maxId, row.id);
    }
    checks.check(
      prefix.digest("hex") === this.seenHash,
      () => `${where}: ledger rows 1..${this.seenMaxId} changed since the last look (not append-only)`,
    );
    this.seenCount = rows.length;
    this.seenMaxId = maxId;
    this.seenHash = all.digest("hex");
  }

  get count(): number {
    return this.seenCount;
  }
}

/** balance = sum(ledger.delta) for every user, and no balance below zero. */
export function checkBalances(state: DbState, checks: Checks, where: string): void {
  for (const u of state.users) {
    checks.check(
      u.balance === u.ledger_sum,
      () => `${where}: user ${u.email} balance ${u.balance} but ledger sums to ${u.ledger_sum}`,
    );
    checks.check(u.balance >= 0, () => `${where}: user ${u.email} has a negative balance ${u.balance}`);
  }
}

/** No request id is debited twice, and a refund takes back a debit of its request id, once. */
export function checkNoDoubleDebit(state: DbState, checks: Checks, where: string): void {
  const debited = new Set<string>();
  const refunded = new Set<string>();
  let dupes = 0;
  let strays = 0;
  for (const row of state.ledger) {
    if (row.request_id === null) continue;
    if (row.reason === "refund") {
      if (!debited.has(row.request_id) || refunded.has(row.request_id)) strays++;
      refunded.add(row.request_id);
    } else {
      if (debited.has(row.request_id)) dupes++;
      debited.add(row.request_id);
    }
  }
  checks.check(dupes === 0, () => `${where}: ${dupes} request ids debited more than once`);
  checks.check(
    strays === 0,
    () => `${where}: ${strays} refunds without a debit of their request id, or repeated`,
  );
}

export function integrityOk(state: DbState): boolean {
  return state.integrity.length === 1 && state.integrity[0] === "ok";
}
