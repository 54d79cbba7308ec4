import { workerUrl } from "../worker-url.ts";
import type { CheckpointRequest } from "./checkpoint-worker.ts";
import { hashApiKey, isValidNow } from "./keys.ts";
import type { ApiKeyInfo, Biller, CommitResult, Debit, Reservation, ReserveResult } from "./seam.ts";
import type { AccountsStore } from "./store.ts";

/** Entries a cache holds before it starts over (bounds memory under floods of keys). */
const MAX_CACHED = 100_000;

interface PendingDebit extends Debit {
  reservation: Reservation;
  resolve: (result: CommitResult) => void;
  reject: (error: unknown) => void;
}

/**
 * The serving process's view of accounts: authentication with a key cache, in-memory
 * credit reservations, and group-committed debits.
 *
 * Reservations live in this process only. Every debit is made by this process, so
 * `available = balance - reserved` is exact; a crash drops all reservations, which is the
 * same as releasing them. Debits queued within one event-loop turn are committed in one
 * SQLite transaction, and each caller is answered only after that commit: durability of
 * every 2xx is kept without one transaction per call. The WAL is checkpointed by a worker
 * thread (checkpoint-worker.ts), never inside these commits.
 */
export class Billing implements Biller {
  readonly waits = false;
  /** The file is local: if it fails, every call fails with it. */
  readonly reachable = true;
  private readonly reserved = new Map<string, number>();
  private readonly keyCache = new Map<string, ApiKeyInfo>();
  /** Balances as last read or debited by this process; dropped when the accounts change elsewhere. */
  private readonly balances = new Map<string, number>();
  private seenRevision: number;
  private pending: PendingDebit[] = [];
  private flushScheduled = false;
  private seenVersion: number;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly checkpointer: Worker;
  /** Each committed reservation's outcome, so that a second commit answers as the first. */
  private readonly commits = new WeakMap<Reservation, Promise<CommitResult>>();
  /** The reservations whose debit was refunded: a second refund gives nothing more. */
  private readonly refunded = new WeakSet<Reservation>();

  constructor(
    private readonly store: AccountsStore,
    pollMs: number,
  ) {
    store.db.exec("PRAGMA wal_autocheckpoint = 0");
    this.checkpointer = new Worker(workerUrl("accounts/checkpoint-worker.ts"));
    this.checkpointer.postMessage({ path: store.path, everyMs: 1_000 } satisfies CheckpointRequest);
    // Without its worker the WAL would grow without end: SQLite's own checkpoints come back.
    this.checkpointer.onerror = () => store.db.exec("PRAGMA wal_autocheckpoint = 1000");
    this.checkpointer.unref();
    this.seenVersion = store.dataVersion();
    this.seenRevision = store.revision;
    this.timer = setInterval(() => this.refreshIfChanged(), pollMs);
    this.timer.unref?.();
  }

  /**
   * The key's record if the presented key is valid now; null for every kind of bad key
   * (unknown, disabled, expired), so callers cannot tell them apart. Valid keys are cached by
   * their text (process memory only: what is stored on disk is the hash), so a known key
   * costs no hash; an unknown one is hashed and looked up every time.
   */
  authenticate(presented: string, now: Date): ApiKeyInfo | null {
    this.refreshIfChangedHere();
    let key = this.keyCache.get(presented);
    if (!key) {
      const found = this.store.findKeyByHash(hashApiKey(presented));
      if (!found) return null;
      key = found;
      if (this.keyCache.size >= MAX_CACHED) this.keyCache.clear();
      this.keyCache.set(presented, key);
    }
    return isValidNow(key, now) ? key : null;
  }

  /** The key if it is cached and valid now; null otherwise (nothing is hashed or read). */
  knownKey(presented: string, now: Date): ApiKeyInfo | null {
    this.refreshIfChangedHere();
    const key = this.keyCache.get(presented);
    return key && isValidNow(key, now) ? key : null;
  }

  /** Balance minus what is held for in-flight calls. */
  available(userId: string): number {
    this.refreshIfChangedHere();
    let balance = this.balances.get(userId);
    if (balance === undefined) {
      balance = this.store.getBalance(userId) ?? 0;
      if (this.balances.size >= MAX_CACHED) this.balances.clear();
      this.balances.set(userId, balance);
    }
    return balance - (this.reserved.get(userId) ?? 0);
  }

  /** Holds `cost` credits atomically (this runs synchronously on the one JS thread). */
  reserve(key: ApiKeyInfo, cost: number): ReserveResult {
    const available = this.available(key.user_id);
    if (available < cost) return { ok: false, code: "insufficient_credits", available };
    this.reserved.set(key.user_id, (this.reserved.get(key.user_id) ?? 0) + cost);
    return { ok: true, reservation: { userId: key.user_id, keyId: key.id, cost, settled: false } };
  }

  /** Gives held credits back (the call did not succeed). Idempotent. */
  release(reservation: Reservation): void {
    if (reservation.settled) return;
    reservation.settled = true;
    this.unhold(reservation);
  }

  /**
   * Turns a reservation into a ledger debit; resolves once it is committed to the WAL. The
   * debit joins the batch committed at the end of this event-loop turn. A second commit of
   * the same reservation answers as the first and debits nothing more.
   */
  commit(
    reservation: Reservation,
    endpoint: string,
    requestId: string,
    idempotent?: Debit["idempotent"],
  ): Promise<CommitResult> {
    const first = this.commits.get(reservation);
    if (first) return first;
    if (reservation.settled) return Promise.reject(new Error("reservation already released"));
    const committed = this.debit(reservation, endpoint, requestId, idempotent);
    this.commits.set(reservation, committed);
    return committed;
  }

  private debit(
    reservation: Reservation,
    endpoint: string,
    requestId: string,
    idempotent?: Debit["idempotent"],
  ): Promise<CommitResult> {
    reservation.settled = true;
    if (reservation.cost === 0) {
      this.unhold(reservation);
      const day = new Date().toISOString().slice(0, 10);
      return Promise.resolve({ ok: true, remaining: this.available(reservation.userId), day });
    }
    return new Promise((resolve, reject) => {
      const { userId, keyId, cost } = reservation;
      this.pending.push({
        userId,
        keyId,
        cost,
        endpoint,
        requestId,
        idempotent,
        reservation,
        resolve,
        reject,
      });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          this.flush();
        });
      }
    });
  }

  /** Commits everything queued, in one transaction; scheduled after each first queued debit, and run at shutdown. */
  flush(): void {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    const ms = Date.now();
    const day = new Date(ms).toISOString().slice(0, 10);
    let applied: boolean[];
    try {
      applied = this.store.commitDebits(batch, ms);
    } catch (error) {
      for (const p of batch) {
        this.unhold(p.reservation);
        p.reject(error);
      }
      return;
    }
    for (const [i, p] of batch.entries()) {
      this.unhold(p.reservation);
      const cached = this.balances.get(p.userId);
      if (applied[i] && cached !== undefined) this.balances.set(p.userId, cached - p.cost);
      else if (!applied[i]) this.balances.delete(p.userId);
    }
    for (const [i, p] of batch.entries()) {
      p.resolve(
        applied[i]
          ? { ok: true, remaining: this.available(p.userId), day }
          : { ok: false, code: "insufficient_credits" },
      );
    }
  }

  /**
   * Gives back a committed debit whose response was not delivered (see `AccountsStore.refundDebit`);
   * `day` is the one its commit reported.
   */
  refund(reservation: Reservation, endpoint: string, requestId: string, day: string): void {
    const { userId, keyId, cost } = reservation;
    if (cost === 0 || this.refunded.has(reservation)) return;
    this.store.refundDebit({ userId, keyId, cost, endpoint, requestId }, day);
    this.refunded.add(reservation);
    const cached = this.balances.get(userId);
    if (cached !== undefined) this.balances.set(userId, cached + cost);
  }

  /** Number of credits currently held for a user. */
  heldFor(userId: string): number {
    return this.reserved.get(userId) ?? 0;
  }

  /** Stops the change poll and commits anything queued. */
  close(): void {
    clearInterval(this.timer);
    this.flush();
    this.checkpointer.terminate();
  }

  private unhold(reservation: Reservation): void {
    const left = (this.reserved.get(reservation.userId) ?? 0) - reservation.cost;
    if (left > 0) this.reserved.set(reservation.userId, left);
    else this.reserved.delete(reservation.userId);
  }

  /** Drops cached keys and balances when another process (the CLI) committed a change. */
  private refreshIfChanged(): void {
    const version = this.store.dataVersion();
    if (version === this.seenVersion) return;
    this.seenVersion = version;
    this.dropCaches();
  }

  /** The same for changes made through this process's own store (grants, key changes). */
  private refreshIfChangedHere(): void {
    if (this.store.revision === this.seenRevision) return;
    this.seenRevision = this.store.revision;
    this.dropCaches();
  }

  private dropCaches(): void {
    this.keyCache.clear();
    this.balances.clear();
  }
}
