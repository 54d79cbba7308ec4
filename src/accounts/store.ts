import { type Database, Statement } from "bun:sqlite";
import { openAccountsDb } from "./db.ts";
import { generateApiKey, hashApiKey, keyPrefix, newId } from "./keys.ts";
import type {
  Accounts,
  ApiKeyInfo,
  Debit,
  ExportClaim,
  ExportClaimResult,
  IdempotentResponse,
  Result,
  User,
} from "./seam.ts";

/**
 * What is remembered for idempotent replays, per user: at most this many responses and this
 * many body bytes (the oldest go first). A body over the byte cap alone is not remembered:
 * its retry runs, and is charged, again.
 */
export const IDEMPOTENCY_MAX_RESPONSES = 1_000;
export const IDEMPOTENCY_MAX_BYTES = 16 * 1024 * 1024;

/** `last_used_at` is a hint for operators, not a log: one write a second per key is enough. */
const TOUCH_EVERY_MS = 1_000;
/** Keys whose last write time is remembered before the map starts over. */
const MAX_TOUCHED = 100_000;

const KEY_COLUMNS = "id, user_id, name, prefix, created_at, expires_at, disabled_at, last_used_at";

/**
 * Users, API keys and the credit ledger in one SQLite file. Every balance change writes a
 * ledger row in the same transaction, so balance = sum(ledger.delta) per user, always.
 */
export class AccountsStore implements Accounts {
  /**
   * Counts changes made through this connection other than debits (users, keys, grants), so
   * a cache over this store (Billing) knows to reload; other processes' changes show in
   * `dataVersion`.
   */
  revision = 0;

  /** When each key's `last_used_at` was last written by this store (ms since the epoch). */
  private readonly touched = new Map<string, number>();

  private constructor(
    readonly db: Database,
    readonly path: string,
  ) {}

  static open(path: string): AccountsStore {
    return new AccountsStore(openAccountsDb(path), path);
  }

  /** Finalizes the prepared statements (an open statement keeps the file open) and closes. */
  close(): void {
    for (const prepared of Object.values(this.prepared ?? {}))
      if (prepared instanceof Statement) prepared.finalize();
    this.prepared = null;
    this.db.close();
  }

  createUser(email: string, credits = 0): Result<User, "email_taken" | "invalid_amount"> {
    this.revision++;
    if (!Number.isSafeInteger(credits) || credits < 0) {
      return { ok: false, code: "invalid_amount", message: "credits must be a non-negative integer" };
    }
    if (this.findUser(email)) return { ok: false, code: "email_taken", message: `user ${email} exists` };
    const user: User = { id: newId("usr"), email, balance: 0, created_at: new Date().toISOString() };
    this.db.transaction(() => {
      this.db
        .query("INSERT INTO users (id, email, balance, created_at) VALUES ($id, $email, 0, $created_at)")
        .run({ id: user.id, email, created_at: user.created_at });
      if (credits > 0) this.applyDelta(user.id, credits, "initial grant");
    })();
    return { ok: true, value: { ...user, balance: credits } };
  }

  userCount(): number {
    return (this.db.query("SELECT count(*) AS n FROM users").get() as { n: number }).n;
  }

  /** A user by id or email. */
  findUser(idOrEmail: string): User | null {
    return this.db
      .query<User, { v: string }>(
        "SELECT id, email, balance, created_at FROM users WHERE id = $v OR email = $v",
      )
      .get({ v: idOrEmail });
  }

  createKey(userId: string, name: string | null, expiresAt: string | null) {
    this.revision++;
    const key = generateApiKey();
    const info: ApiKeyInfo = {
      id: newId("key"),
      user_id: userId,
      name,
      prefix: keyPrefix(key),
      created_at: new Date().toISOString(),
      expires_at: expiresAt,
      disabled_at: null,
      last_used_at: null,
    };
    this.db
      .query(
        `INSERT INTO api_keys (id, user_id, name, hash, prefix, created_at, expires_at)
         VALUES ($id, $user_id, $name, $hash, $prefix, $created_at, $expires_at)`,
      )
      .run({
        id: info.id,
        user_id: userId,
        name,
        hash: hashApiKey(key),
        prefix: info.prefix,
        created_at: info.created_at,
        expires_at: expiresAt,
      });
    return { key, info };
  }

  listKeys(userId: string): ApiKeyInfo[] {
    return this.db
      .query<ApiKeyInfo, { u: string }>(
        `SELECT ${KEY_COLUMNS} FROM api_keys WHERE user_id = $u ORDER BY created_at`,
      )
      .all({ u: userId });
  }

  /** Disables or re-enables a key; false when no such key. */
  setKeyDisabled(keyId: string, disabled: boolean): boolean {
    this.revision++;
    const result = this.db
      .query("UPDATE api_keys SET disabled_at = $at WHERE id = $id")
      .run({ id: keyId, at: disabled ? new Date().toISOString() : null });
    return result.changes === 1;
  }

  /** The key whose hash this is, whatever its state; the caller decides validity. */
  findKeyByHash(hash: string): ApiKeyInfo | null {
    return this.db
      .query<ApiKeyInfo, { h: string }>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = $h`)
      .get({ h: hash });
  }

  grantCredits(
    userId: string,
    amount: number,
    reason: string,
  ): Result<number, "invalid_amount" | "no_funds"> {
    this.revision++;
    if (!Number.isSafeInteger(amount) || amount === 0) {
      return { ok: false, code: "invalid_amount", message: "amount must be a non-zero integer" };
    }
    const applied = this.db.transaction(() => this.applyDelta(userId, amount, reason))();
    if (!applied)
      return { ok: false, code: "no_funds", message: "a negative grant may not take the balance below 0" };
    return { ok: true, value: this.getBalance(userId) ?? 0 };
  }

  getBalance(userId: string): number | null {
    const row = this.db
      .query<{ balance: number }, { u: string }>("SELECT balance FROM users WHERE id = $u")
      .get({ u: userId });
    return row?.balance ?? null;
  }

  /** Sum of a user's ledger deltas (equals the balance; checked by tests and `doctor`). */
  ledgerSum(userId: string): number {
    const row = this.db
      .query<{ s: number }, { u: string }>(
        "SELECT coalesce(sum(delta), 0) AS s FROM ledger WHERE user_id = $u",
      )
      .get({ u: userId });
    return row?.s ?? 0;
  }

  /**
   * Gives back a committed debit whose response was not delivered, in one transaction: a
   * `refund` ledger row with the debit's request id, and the usage of the debit's day (`day`)
   * taken back.
   */
  refundDebit(debit: Omit<Debit, "idempotent">, day: string): void {
    const s = this.statements();
    const usage = { u: debit.userId, day, endpoint: debit.endpoint };
    this.db.transaction(() => {
      this.applyDelta(debit.userId, debit.cost, "refund", debit.endpoint, debit.requestId);
      // A day's last call goes with its row (the table keeps calls > 0).
      if (s.unusedDay.run(usage).changes === 0) s.unuse.run({ ...usage, credits: debit.cost });
    })();
  }

  /**
   * Commits many debits in one transaction (group commit): one guarded balance update per
   * user for the batch's total, one ledger row per call, and the response of each call made
   * with an idempotency key — both or neither. If a user's total is not covered (reservations
   * make that impossible within one serving process), that user's debits are applied one by
   * one, each guarded. A key's `last_used_at` is written at most once a second. Returns, per
   * debit, whether it applied.
   */
  commitDebits(debits: readonly Debit[], ms = Date.now()): boolean[] {
    return this.statements().debitBatch.immediate(debits, ms);
  }

  /** The body of `commitDebits`, inside its transaction. */
  private writeDebits(debits: readonly Debit[], ms: number): boolean[] {
    const now = new Date(ms).toISOString();
    const s = this.statements();
    const totals = new Map<string, number>();
    for (const d of debits) totals.set(d.userId, (totals.get(d.userId) ?? 0) + d.cost);
    const covered = new Set<string>();
    for (const [u, total] of totals) if (s.debitUser.run({ u, total }).changes === 1) covered.add(u);
    const usage = new Map<string, { u: string; endpoint: string; calls: number; credits: number }>();
    const applied = debits.map((d) => {
      const ok = covered.has(d.userId) || this.applyDelta(d.userId, -d.cost, "usage", null, null, now, true);
      if (!ok) return false;
      const at = `${d.userId}\n${d.endpoint}`;
      const entry = usage.get(at);
      if (entry) {
        entry.calls++;
        entry.credits += d.cost;
      } else usage.set(at, { u: d.userId, endpoint: d.endpoint, calls: 1, credits: d.cost });
      s.ledger.run({
        u: d.userId,
        delta: -d.cost,
        reason: "usage",
        endpoint: d.endpoint,
        request_id: d.requestId,
        now,
      });
      const r = d.idempotent;
      if (r && r.body.byteLength <= IDEMPOTENCY_MAX_BYTES) {
        s.remember.run({
          u: d.userId,
          key: r.key,
          hash: r.request_hash,
          status: r.status,
          type: r.content_type,
          body: r.body,
          bytes: r.body.byteLength,
          now,
        });
        this.evictRemembered(d.userId);
      }
      return true;
    });
    const day = now.slice(0, 10);
    for (const entry of usage.values()) s.usage.run({ ...entry, day });
    for (const d of debits) {
      if (ms - (this.touched.get(d.keyId) ?? 0) < TOUCH_EVERY_MS) continue;
      if (this.touched.size >= MAX_TOUCHED) this.touched.clear();
      this.touched.set(d.keyId, ms);
      s.touch.run({ now, id: d.keyId });
    }
    return applied;
  }

  /** Forgets a user's oldest remembered responses until both caps hold; inside the debit's transaction. */
  private evictRemembered(userId: string): void {
    const s = this.statements();
    let { n, bytes } = s.remembered.get({ u: userId }) ?? { n: 0, bytes: 0 };
    while (n > IDEMPOTENCY_MAX_RESPONSES || bytes > IDEMPOTENCY_MAX_BYTES) {
      const oldest = s.oldest.get({ u: userId });
      if (!oldest) return;
      s.forget.run({ u: userId, key: oldest.key });
      n--;
      bytes -= oldest.bytes;
    }
  }

  private prepared: ReturnType<AccountsStore["prepare"]> | null = null;

  /**
   * The statements of the debit path and its transaction function, made once (bun:sqlite
   * builds a new wrapper on every `transaction()` call: ~10 µs more for a one-debit commit).
   */
  private statements() {
    this.prepared ??= this.prepare();
    return this.prepared;
  }

  private prepare() {
    return {
      debitBatch: this.db.transaction((batch: readonly Debit[], ms: number) => this.writeDebits(batch, ms)),
      debitUser: this.db.prepare<unknown, { u: string; total: number }>(
        "UPDATE users SET balance = balance - $total WHERE id = $u AND balance >= $total",
      ),
      ledger: this.db.prepare<
        unknown,
        { u: string; delta: number; reason: string; endpoint: string; request_id: string; now: string }
      >(
        `INSERT INTO ledger (user_id, delta, reason, endpoint, request_id, created_at)
         VALUES ($u, $delta, $reason, $endpoint, $request_id, $now)`,
      ),
      remember: this.db.prepare<
        unknown,
        {
          u: string;
          key: string;
          hash: string;
          status: number;
          type: string | null;
          body: Uint8Array;
          bytes: number;
          now: string;
        }
      >(
        `INSERT OR REPLACE INTO idempotency (user_id, key, request_hash, status, content_type, body, bytes, created_at)
         VALUES ($u, $key, $hash, $status, $type, $body, $bytes, $now)`,
      ),
      remembered: this.db.prepare<{ n: number; bytes: number }, { u: string }>(
        "SELECT count(*) AS n, coalesce(sum(bytes), 0) AS bytes FROM idempotency WHERE user_id = $u",
      ),
      oldest: this.db.prepare<{ key: string; bytes: number }, { u: string }>(
        "SELECT key, bytes FROM idempotency WHERE user_id = $u ORDER BY created_at, rowid LIMIT 1",
      ),
      usage: this.db.prepare<
        unknown,
        { u: string; day: string; endpoint: string; calls: number; credits: number }
      >(
        `INSERT INTO usage_daily (user_id, day, endpoint, calls, credits)
         VALUES ($u, $day, $endpoint, $calls, $credits)
         ON CONFLICT (user_id, day, endpoint)
         DO UPDATE SET calls = calls + excluded.calls, credits = credits + excluded.credits`,
      ),
      unuse: this.db.prepare<unknown, { u: string; day: string; endpoint: string; credits: number }>(
        `UPDATE usage_daily SET calls = calls - 1, credits = credits - $credits
         WHERE user_id = $u AND day = $day AND endpoint = $endpoint`,
      ),
      unusedDay: this.db.prepare<unknown, { u: string; day: string; endpoint: string }>(
        "DELETE FROM usage_daily WHERE user_id = $u AND day = $day AND endpoint = $endpoint AND calls = 1",
      ),
      forget: this.db.prepare<unknown, { u: string; key: string }>(
        "DELETE FROM idempotency WHERE user_id = $u AND key = $key",
      ),
      touch: this.db.prepare<unknown, { now: string; id: string }>(
        "UPDATE api_keys SET last_used_at = $now WHERE id = $id",
      ),
    };
  }

  /**
   * Calls and credits per endpoint on the UTC days from `sinceDay` (YYYY-MM-DD) on, from the
   * daily usage table that each debit's transaction updates (it equals the ledger's usage rows).
   */
  usageSince(userId: string, sinceDay: string): { endpoint: string; calls: number; credits: number }[] {
    return this.db
      .query<{ endpoint: string; calls: number; credits: number }, { u: string; since: string }>(
        `SELECT endpoint, sum(calls) AS calls, sum(credits) AS credits FROM usage_daily
         WHERE user_id = $u AND day >= $since
         GROUP BY endpoint ORDER BY endpoint`,
      )
      .all({ u: userId, since: sinceDay });
  }

  /** The remembered response of a user's idempotency key, if made after `since`. */
  findIdempotent(userId: string, key: string, since: string): IdempotentResponse | null {
    return this.db
      .query<IdempotentResponse, { u: string; key: string; since: string }>(
        `SELECT key, request_hash, status, content_type, body, created_at FROM idempotency
         WHERE user_id = $u AND key = $key AND created_at >= $since`,
      )
      .get({ u: userId, key, since });
  }

  /** Forgets remembered responses older than `before`. */
  purgeIdempotent(before: string): number {
    return this.db.query("DELETE FROM idempotency WHERE created_at < $before").run({ before }).changes;
  }

  /** Claims an export's payment: read and written in one immediate transaction (other processes wait). */
  claimExport(claim: ExportClaim, leaseUntil: number, now: number, windowMs: number): ExportClaimResult {
    return this.db
      .transaction((): ExportClaimResult => {
        const held = this.db
          .query<{ claimant: string | null; until: number }, { u: string; e: string }>(
            "SELECT claimant, until FROM export_payments WHERE user_id = $u AND export = $e",
          )
          .get({ u: claim.userId, e: claim.export });
        if (held && held.until > now) return held.claimant === null ? "free" : "busy";
        if (held && held.claimant !== null && held.until + windowMs > now) return "free";
        this.db
          .query(
            `INSERT OR REPLACE INTO export_payments (user_id, export, claimant, until)
             VALUES ($u, $e, $c, $until)`,
          )
          .run({ u: claim.userId, e: claim.export, c: claim.claimant, until: leaseUntil });
        return "pay";
      })
      .immediate();
  }

  renewExport(claim: ExportClaim, leaseUntil: number): void {
    this.db
      .query("UPDATE export_payments SET until = $until WHERE user_id = $u AND export = $e AND claimant = $c")
      .run({ u: claim.userId, e: claim.export, c: claim.claimant, until: leaseUntil });
  }

  settleExport(claim: ExportClaim, paidUntil: number | null): void {
    const row = { u: claim.userId, e: claim.export, c: claim.claimant };
    if (paidUntil === null)
      this.db
        .query("DELETE FROM export_payments WHERE user_id = $u AND export = $e AND claimant = $c")
        .run(row);
    else
      this.db
        .query(
          `UPDATE export_payments SET claimant = NULL, until = $until
           WHERE user_id = $u AND export = $e AND claimant = $c`,
        )
        .run({ ...row, until: paidUntil });
  }

  sweepExports(now: number, windowMs: number): number {
    return this.db
      .query(
        `DELETE FROM export_payments
         WHERE until <= $now AND (claimant IS NULL OR until <= $now - $window)`,
      )
      .run({ now, window: windowMs }).changes;
  }

  /** Changes whenever another connection commits; a cheap "did anything change?" probe. */
  dataVersion(): number {
    return (this.db.query("PRAGMA data_version").get() as { data_version: number }).data_version;
  }

  /** One guarded balance change plus (unless `balanceOnly`) its ledger row; run inside a transaction. */
  private applyDelta(
    userId: string,
    delta: number,
    reason: string,
    endpoint: string | null = null,
    requestId: string | null = null,
    now = new Date().toISOString(),
    balanceOnly = false,
  ): boolean {
    const updated = this.db
      .query("UPDATE users SET balance = balance + $delta WHERE id = $u AND balance + $delta >= 0")
      .run({ delta, u: userId });
    if (updated.changes !== 1) return false;
    if (balanceOnly) return true;
    this.db
      .query(
        `INSERT INTO ledger (user_id, delta, reason, endpoint, request_id, created_at)
         VALUES ($u, $delta, $reason, $endpoint, $request_id, $now)`,
      )
      .run({ u: userId, delta, reason, endpoint, request_id: requestId, now });
    return true;
  }
}
