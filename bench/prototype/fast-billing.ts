/**
 * The billing contract of src/accounts/billing.ts (reserve before the handler, debit
 * committed to the WAL before the response is sent, group commit), with the per-request
 * SQLite work taken out of the request path:
 * - balances cached in memory (this process makes every debit; another process's change,
 *   e.g. `credits grant`, shows in `PRAGMA data_version` and reloads the cache, as keys do);
 * - one transaction per event-loop turn with one guarded UPDATE per user (sum of the batch)
 *   plus one ledger INSERT per call, instead of UPDATE + INSERT + 2 SELECTs per call;
 * - `api_keys.last_used_at` touched at most once a second per key.
 */
import type { Database, Statement } from "bun:sqlite";

export interface KeyInfo {
  id: string;
  userId: string;
  disabled: boolean;
  expiresAt: number | null;
}

interface Pending {
  key: KeyInfo;
  cost: number;
  endpoint: string;
  requestId: string;
  resolve: (remaining: number | null) => void;
}

const TOUCH_EVERY_MS = 1_000;

export class FastBilling {
  private readonly keys = new Map<string, KeyInfo | null>();
  private readonly balances = new Map<string, number>();
  private readonly held = new Map<string, number>();
  private readonly touched = new Map<string, number>();
  private pending: Pending[] = [];
  private scheduled = false;
  private version: number;
  private readonly findKey: Statement;
  private readonly balance: Statement;
  private readonly debit: Statement;
  private readonly ledger: Statement;
  private readonly touch: Statement;

  constructor(private readonly db: Database) {
    this.findKey = db.query("SELECT id, user_id, disabled_at, expires_at FROM api_keys WHERE hash = ?");
    this.balance = db.query("SELECT balance FROM users WHERE id = ?");
    this.debit = db.query("UPDATE users SET balance = balance - ?1 WHERE id = ?2 AND balance - ?1 >= 0");
    this.ledger = db.query(
      "INSERT INTO ledger (user_id, delta, reason, endpoint, request_id, created_at) VALUES (?, ?, 'usage', ?, ?, ?)",
    );
    this.touch = db.query("UPDATE api_keys SET last_used_at = ? WHERE id = ?");
    this.version = this.dataVersion();
    setInterval(() => this.refreshIfChanged(), 1_000).unref();
  }

  /** The key for a presented token, or null (unknown, disabled, expired). */
  authenticate(token: string, now: number): KeyInfo | null {
    const hash = new Bun.CryptoHasher("sha256").update(token).digest("hex");
    let key = this.keys.get(hash);
    if (key === undefined) {
      const row = this.findKey.get(hash) as {
        id: string;
        user_id: string;
        disabled_at: string | null;
        expires_at: string | null;
      } | null;
      key = row && {
        id: row.id,
        userId: row.user_id,
        disabled: row.disabled_at !== null,
        expiresAt: row.expires_at ? Date.parse(row.expires_at) : null,
      };
      this.keys.set(hash, key);
    }
    if (!key || key.disabled || (key.expiresAt !== null && key.expiresAt <= now)) return null;
    return key;
  }

  /** Holds `cost`; false when the balance minus what is held is short. */
  reserve(key: KeyInfo, cost: number): boolean {
    const held = this.held.get(key.userId) ?? 0;
    if (this.balanceOf(key.userId) - held < cost) return false;
    this.held.set(key.userId, held + cost);
    return true;
  }

  release(key: KeyInfo, cost: number): void {
    this.held.set(key.userId, (this.held.get(key.userId) ?? 0) - cost);
  }

  /** Queues the debit; resolves with the balance left once committed, null if refused. */
  commit(key: KeyInfo, cost: number, endpoint: string, requestId: string): Promise<number | null> {
    return new Promise((resolve) => {
      this.pending.push({ key, cost, endpoint, requestId, resolve });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.flush());
    });
  }

  private balanceOf(userId: string): number {
    let balance = this.balances.get(userId);
    if (balance === undefined) {
      balance = (this.balance.get(userId) as { balance: number } | null)?.balance ?? 0;
      this.balances.set(userId, balance);
    }
    return balance;
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    const now = Date.now();
    const at = new Date(now).toISOString();
    const sums = new Map<string, number>();
    for (const p of batch) sums.set(p.key.userId, (sums.get(p.key.userId) ?? 0) + p.cost);
    const applied = new Set<string>();
    this.db
      .transaction(() => {
        for (const [userId, sum] of sums) if (this.debit.run(sum, userId).changes === 1) applied.add(userId);
        for (const p of batch) {
          if (applied.has(p.key.userId)) this.ledger.run(p.key.userId, -p.cost, p.endpoint, p.requestId, at);
        }
        for (const p of batch) this.touchKey(p.key.id, now, at);
      })
      .immediate();
    this.settle(batch, sums, applied);
  }

  private settle(batch: readonly Pending[], sums: Map<string, number>, applied: Set<string>): void {
    for (const [userId, sum] of sums) {
      this.held.set(userId, (this.held.get(userId) ?? 0) - sum);
      if (applied.has(userId)) this.balances.set(userId, this.balanceOf(userId) - sum);
    }
    for (const p of batch) {
      p.resolve(
        applied.has(p.key.userId) ? this.balanceOf(p.key.userId) - (this.held.get(p.key.userId) ?? 0) : null,
      );
    }
  }

  private touchKey(keyId: string, now: number, at: string): void {
    if (now - (this.touched.get(keyId) ?? 0) < TOUCH_EVERY_MS) return;
    this.touched.set(keyId, now);
    this.touch.run(at, keyId);
  }

  private dataVersion(): number {
    return (this.db.query("PRAGMA data_version").get() as { data_version: number }).data_version;
  }

  /** Another process committed (a grant, a disabled key): drop the caches. */
  private refreshIfChanged(): void {
    const version = this.dataVersion();
    if (version === this.version) return;
    this.version = version;
    this.keys.clear();
    this.balances.clear();
  }
}
