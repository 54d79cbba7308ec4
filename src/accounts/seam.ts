/**
 * The accounts seam: what the rest of stockd asks of users, keys, credits and the ledger, with
 * two implementations that pass one contract suite (test/accounts/contract.test.ts):
 * - bun:sqlite, one machine (store.ts `AccountsStore` for the records, billing.ts `Billing`
 *   for the serving view: reservations in memory, group-committed debits);
 * - PostgreSQL, several replicas (pg/accounts.ts `PgAccounts`: reservations in the database
 *   with their replica and expiry).
 * A method returns a plain value where its store can answer without waiting (SQLite, caches)
 * and a Promise where it cannot, so that the SQLite path keeps its synchronous speed on the
 * REST hot path: the edge awaits only what is a Promise.
 */

export interface User {
  id: string;
  email: string;
  balance: number;
  created_at: string;
}

export interface ApiKeyInfo {
  id: string;
  user_id: string;
  name: string | null;
  prefix: string;
  created_at: string;
  expires_at: string | null;
  disabled_at: string | null;
  last_used_at: string | null;
}

/** A stored response of a call made with an `Idempotency-Key`. */
export interface IdempotentResponse {
  key: string;
  request_hash: string;
  status: number;
  content_type: string | null;
  body: Uint8Array;
  created_at: string;
}

/** A committed debit, one ledger row; with the response to replay when it had an idempotency key. */
export interface Debit {
  userId: string;
  keyId: string;
  cost: number;
  endpoint: string;
  requestId: string;
  idempotent?: Omit<IdempotentResponse, "created_at">;
}

export type Result<T, C extends string> = { ok: true; value: T } | { ok: false; code: C; message: string };

export type MaybePromise<T> = T | Promise<T>;

/** Credits held for one in-flight call until its final status is known. */
export interface Reservation {
  readonly userId: string;
  readonly keyId: string;
  readonly cost: number;
  /** The reservation's row in a shared store (PostgreSQL); absent where they live in memory. */
  readonly id?: string;
  settled: boolean;
}

export type ReserveResult =
  | { ok: true; reservation: Reservation }
  | { ok: false; code: "insufficient_credits"; available: number };

/**
 * The outcome of a debit: committed (with the balance left and the UTC day its usage counts
 * on), or refused by the guard.
 */
export type CommitResult =
  | { ok: true; remaining: number; day: string }
  | { ok: false; code: "insufficient_credits" };

/** Calls and credits of one endpoint over a span of days (GET /account). */
export interface EndpointUsage {
  endpoint: string;
  calls: number;
  credits: number;
}

/** One read's claim to pay for an export (http/export-repeats.ts). */
export interface ExportClaim {
  readonly userId: string;
  /** The export: its snapshot and file. */
  readonly export: string;
  /** The claim's own id (one per paying read). */
  readonly claimant: string;
}

/**
 * What a claim finds: a payment whose window lasts, or a claim whose lease ran out within the
 * window ("free"); another claim whose lease lasts ("busy"); or neither: then the claim holds
 * the export until its lease ends ("pay").
 */
export type ExportClaimResult = "free" | "busy" | "pay";

/**
 * The records: users, keys, grants, balances and the ledger, the responses remembered for
 * `Idempotency-Key` retries and the exports paid for. Used by the CLI, `/account`, the
 * idempotency gate and the exports. Every balance change writes a ledger row in the same
 * transaction: balance = Σ ledger.delta per user, always.
 */
export interface Accounts {
  createUser(email: string, credits?: number): MaybePromise<Result<User, "email_taken" | "invalid_amount">>;
  /** A user by id or email. */
  findUser(idOrEmail: string): MaybePromise<User | null>;
  userCount(): MaybePromise<number>;
  /** A new key for the user: its text (shown once) and its record; only its hash is stored. */
  createKey(
    userId: string,
    name: string | null,
    expiresAt: string | null,
  ): MaybePromise<{ key: string; info: ApiKeyInfo }>;
  listKeys(userId: string): MaybePromise<ApiKeyInfo[]>;
  /** Disables or re-enables a key; false when no such key. */
  setKeyDisabled(keyId: string, disabled: boolean): MaybePromise<boolean>;
  grantCredits(
    userId: string,
    amount: number,
    reason: string,
  ): MaybePromise<Result<number, "invalid_amount" | "no_funds">>;
  getBalance(userId: string): MaybePromise<number | null>;
  /** Sum of a user's ledger deltas (equals the balance). */
  ledgerSum(userId: string): MaybePromise<number>;
  /** Calls and credits per endpoint on the UTC days from `sinceDay` (YYYY-MM-DD) on. */
  usageSince(userId: string, sinceDay: string): MaybePromise<EndpointUsage[]>;
  /** The remembered response of a user's idempotency key, if made after `since`. */
  findIdempotent(userId: string, key: string, since: string): MaybePromise<IdempotentResponse | null>;
  /** Forgets remembered responses older than `before`. */
  purgeIdempotent(before: string): MaybePromise<number>;
  /**
   * Claims the payment of an export at `now` (milliseconds since the epoch, as every time of
   * export payments), in one atomic step: of two claims at once, one pays. A claim whose lease
   * ran out unsettled counts as paid for `windowMs` after its lease's end ("free"): its read
   * may have been charged and delivered, and a read is never charged twice.
   */
  claimExport(
    claim: ExportClaim,
    leaseUntil: number,
    now: number,
    windowMs: number,
  ): MaybePromise<ExportClaimResult>;
  /** Extends the lease of a claim still paying. */
  renewExport(claim: ExportClaim, leaseUntil: number): MaybePromise<void>;
  /** Ends a claim: paid, its repeats are free until `paidUntil`; not paid (null), it is dropped. */
  settleExport(claim: ExportClaim, paidUntil: number | null): MaybePromise<void>;
  /** Forgets the payments over at `now` and the claims whose lease ended `windowMs` before it. */
  sweepExports(now: number, windowMs: number): MaybePromise<number>;
}

/**
 * The serving view of accounts: authentication from a key cache, credit reservations, and
 * debits. `reserve` holds `cost` credits iff the user's available credits (balance minus what
 * is held) cover it; `commit` turns a reservation into one ledger debit (idempotent: a second
 * commit of the same reservation answers as the first); `release` gives it back; `refund`
 * gives back a committed debit whose response was not delivered.
 */
export interface Biller {
  /** Whether `reserve` may answer with a Promise (the routes' bill step is then awaited). */
  readonly waits: boolean;
  /** Whether the store answered its last check (a shared database may not; /health says so). */
  readonly reachable: boolean;
  /**
   * The key's record if the presented key is valid now; null for every kind of bad key
   * (unknown, disabled, expired), so callers cannot tell them apart.
   */
  authenticate(presented: string, now: Date): ApiKeyInfo | null;
  /** The key if it is cached and valid now; null otherwise (nothing is hashed or read). */
  knownKey(presented: string, now: Date): ApiKeyInfo | null;
  /** Balance minus what is held for in-flight calls, as this process last knew it. */
  available(userId: string): number;
  reserve(key: ApiKeyInfo, cost: number): MaybePromise<ReserveResult>;
  /** Gives held credits back (the call did not succeed). Idempotent. */
  release(reservation: Reservation): void;
  commit(
    reservation: Reservation,
    endpoint: string,
    requestId: string,
    idempotent?: Debit["idempotent"],
  ): Promise<CommitResult>;
  /** Gives back a committed debit whose response was not delivered; `day` is the one its commit reported. */
  refund(reservation: Reservation, endpoint: string, requestId: string, day: string): void;
  /** Credits currently held for a user by calls in flight. */
  heldFor(userId: string): MaybePromise<number>;
  /** Stops background work and commits or releases anything queued. */
  close(): MaybePromise<void>;
}
