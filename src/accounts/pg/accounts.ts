import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { SQL } from "bun";
import type { Config } from "../../config.ts";
import { ApiError } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import { generateApiKey, hashApiKey, isValidNow, keyPrefix, newId } from "../keys.ts";
import type {
  Accounts,
  ApiKeyInfo,
  Biller,
  CommitResult,
  Debit,
  EndpointUsage,
  ExportClaim,
  ExportClaimResult,
  IdempotentResponse,
  Reservation,
  ReserveResult,
  Result,
  User,
} from "../seam.ts";
import { IDEMPOTENCY_MAX_BYTES, IDEMPOTENCY_MAX_RESPONSES } from "../store.ts";
import { Guard } from "./guard.ts";
import { checkSchema } from "./migrate.ts";

/** The channel on which a change of users, keys or balances is announced to every replica. */
export const CHANNEL = "stockd_accounts";
/** `last_used_at` is a hint for operators: one write a second per key is enough. */
const TOUCH_EVERY_MS = 1_000;
/** How often, and for how long, a commit whose outcome is unknown is tried again. */
const RECOMMIT_EVERY_MS = 1_000;
const RECOMMIT_TRIES = 60;

export interface PgAccountsOptions {
  /** `postgres://user:password@host:port/database` */
  url: string;
  /** This replica's id, on each reservation it holds (released at its next start). */
  replicaId?: string;
  /** The longest wait for one database call, ms. */
  timeoutMs?: number;
  /** How long a reservation lives without being committed or released, s (any replica sweeps it then). */
  reservationTtlSeconds?: number;
  /** How often this replica sweeps expired reservations, ms. */
  sweepMs?: number;
  /** How often the key and balance caches are reloaded even without a notification, ms. */
  cacheTtlMs?: number;
  /** Connections in the pool. */
  poolSize?: number;
  /** Named prepared statements (false behind a pooler in transaction mode). */
  prepare?: boolean;
  /**
   * LISTEN for changes made by other replicas (false behind a pooler in transaction mode,
   * which does not keep it: the caches are then reloaded every `cacheTtlMs` only).
   */
  listen?: boolean;
  /** Serving: caches, notifications, the sweeper, and this replica's old reservations released. */
  serve?: boolean;
  log?: Logger;
}

/** How to reach the shared accounts database. */
export type PgConnection = Required<Pick<PgAccountsOptions, "url" | "timeoutMs" | "prepare" | "listen">>;

/**
 * How to reach the shared accounts database at `url` (the configuration's `accounts_url`):
 * behind a pooler in transaction mode, without named prepared statements or LISTEN.
 */
export function pgConnection(
  config: Pick<Config, "accountsTimeoutMs" | "accountsPooler">,
  url: string,
): PgConnection {
  const direct = config.accountsPooler === "none";
  return { url, timeoutMs: config.accountsTimeoutMs, prepare: direct, listen: direct };
}

/** The defaults of the options above (docs/scale-out.md says how to size them). */
export const PG_DEFAULTS = {
  timeoutMs: 2_000,
  reservationTtlSeconds: 120,
  sweepMs: 1_000,
  cacheTtlMs: 5_000,
  poolSize: 16,
} as const;

type Row = Record<string, unknown>;

const USER_COLUMNS = "id, email, balance::float8 AS balance, created_at";
const KEY_COLUMNS = "id, user_id, name, prefix, created_at, expires_at, disabled_at, last_used_at";

/**
 * The accounts on PostgreSQL, shared by several stockd replicas (docs/scale-out.md). Every
 * credit step is one statement (a data-modifying CTE: one implicit transaction, one round
 * trip) at READ COMMITTED: reserve is a guarded `UPDATE … WHERE balance - reserved >= cost`
 * plus the reservation's row (its replica and an expiry on the database's clock); commit
 * deletes the reservation, debits the balance and appends the ledger row; release deletes it
 * and gives the credits back. A second reserver of the same user waits on the row lock and
 * re-checks the guard against the committed row, so replicas never overdraw together.
 *
 * Keys are authenticated from an in-memory copy of the key table (hashes only), reloaded on a
 * notification (LISTEN/NOTIFY on `stockd_accounts`, sent by every change made through this
 * class) and every `cacheTtlMs`: a disabled key stops working on every replica within that.
 * Every call has a timeout and passes a circuit breaker (guard.ts): an unreachable database
 * answers 503 at once, never a charge.
 */
export class PgAccounts implements Accounts, Biller {
  readonly waits = true;
  /** Whether the last ping (each sweep period) answered and the breaker is closed. */
  get reachable(): boolean {
    return this.pinged && !this.guard.open;
  }
  private pinged = true;
  readonly replicaId: string;
  private readonly guard: Guard;
  private readonly ttl: number;
  private keysByHash = new Map<string, ApiKeyInfo>();
  /** Changes this replica made to its copies of the tables; a reload that overlaps one reads again. */
  private localChanges = 0;
  /** Keys by their presented text (process memory only): a known key costs no hash. */
  private keyCache = new Map<string, ApiKeyInfo>();
  /** Each user's available credits as this replica last saw them (header fields only). */
  private availableOf = new Map<string, number>();
  private readonly touched = new Map<string, number>();
  /** Each committed reservation's outcome and the write behind it (a refund waits for it). */
  private readonly commits = new WeakMap<
    Reservation,
    { result: Promise<CommitResult>; landed: Promise<void> }
  >();
  /** Writes started and not awaited by their caller (releases, refunds, retried commits). */
  private readonly pending = new Set<Promise<unknown>>();
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private listening: SQL.ListenSubscription | null = null;
  private reloading: Promise<void> | null = null;

  private constructor(
    private readonly sql: SQL,
    private readonly options: PgAccountsOptions,
  ) {
    this.replicaId = options.replicaId ?? hostname();
    this.guard = new Guard(options.timeoutMs ?? PG_DEFAULTS.timeoutMs, 1_000);
    this.ttl = options.reservationTtlSeconds ?? PG_DEFAULTS.reservationTtlSeconds;
  }

  /**
   * Connects, checks the schema (migrate.ts: a database older than this build needs is
   * refused) and, when serving, releases what this replica held before a restart, loads the
   * caches, listens for changes and starts the sweeper.
   */
  static async open(options: PgAccountsOptions): Promise<PgAccounts> {
    const sql = new SQL(options.url, {
      max: options.poolSize ?? PG_DEFAULTS.poolSize,
      prepare: options.prepare ?? true,
      connectionTimeout: Math.ceil((options.timeoutMs ?? PG_DEFAULTS.timeoutMs) / 1000),
    });
    const accounts = new PgAccounts(sql, options);
    try {
      await accounts.guard.run(checkSchema(sql), "schema check");
      if (options.serve) await accounts.startServing();
    } catch (error) {
      await accounts.close();
      throw error;
    }
    return accounts;
  }

  private async startServing(): Promise<void> {
    await this.releaseReplica(this.replicaId);
    await this.reload();
    if (this.options.listen !== false)
      this.listening = await this.sql.listen(CHANNEL, () => {
        void this.reload();
      });
    const sweep = setInterval(() => {
      this.track(
        this.sweepExpired().then(
          () => {
            this.pinged = true;
          },
          (error) => {
            this.pinged = false;
            throw error;
          },
        ),
      );
    }, this.options.sweepMs ?? PG_DEFAULTS.sweepMs);
    const reload = setInterval(() => {
      void this.reload();
    }, this.options.cacheTtlMs ?? PG_DEFAULTS.cacheTtlMs);
    for (const timer of [sweep, reload]) {
      timer.unref?.();
      this.timers.push(timer);
    }
  }

  /** Reloads the key table and the users' available credits (one reload at a time). */
  reload(): Promise<void> {
    this.reloading ??= this.loadCaches().finally(() => {
      this.reloading = null;
    });
    return this.reloading;
  }

  private async loadCaches(): Promise<void> {
    const changes = this.localChanges;
    try {
      const keys = (await this.q(
        this.sql.unsafe(`SELECT hash, ${KEY_COLUMNS} FROM api_keys`),
        "load keys",
      )) as (ApiKeyInfo & { hash: string })[];
      const users = await this.q(
        this.sql`SELECT id, (balance - reserved)::float8 AS available FROM users`,
        "load balances",
      );
      // A key this replica made or disabled while the tables were read may be missing from what
      // was read: replacing the copies now would lose it until the next reload.
      if (this.localChanges !== changes) return this.loadCaches();
      const byHash = new Map<string, ApiKeyInfo>();
      for (const { hash, ...info } of keys) byHash.set(hash, info);
      this.keysByHash = byHash;
      this.keyCache = new Map();
      this.availableOf = new Map(users.map((u: Row) => [u.id as string, u.available as number]));
    } catch (error) {
      this.options.log?.warn("accounts: reloading keys failed; the previous ones stay", {
        error: errorText(error),
      });
    }
  }

  // --- Biller: the serving view -------------------------------------------------------------

  authenticate(presented: string, now: Date): ApiKeyInfo | null {
    let key = this.keyCache.get(presented);
    if (!key) {
      const found = this.keysByHash.get(hashApiKey(presented));
      if (!found) return null;
      key = found;
      this.keyCache.set(presented, key);
    }
    return isValidNow(key, now) ? key : null;
  }

  knownKey(presented: string, now: Date): ApiKeyInfo | null {
    const key = this.keyCache.get(presented);
    return key && isValidNow(key, now) ? key : null;
  }

  available(userId: string): number {
    return this.availableOf.get(userId) ?? 0;
  }

  reserve(key: ApiKeyInfo, cost: number): ReserveResult | Promise<ReserveResult> {
    const free = { userId: key.user_id, keyId: key.id, cost, settled: false };
    if (cost === 0) return { ok: true, reservation: free };
    return this.hold(key, cost);
  }

  private async hold(key: ApiKeyInfo, cost: number): Promise<ReserveResult> {
    const id = randomUUID();
    const rows = await this.reserving(
      id,
      this.sql`
        WITH u AS (
          UPDATE users SET reserved = reserved + ${cost}
          WHERE id = ${key.user_id} AND balance - reserved >= ${cost}
          RETURNING id, (balance - reserved)::float8 AS available
        ), r AS (
          INSERT INTO reservations (id, user_id, cost, replica, expires_at)
          SELECT ${id}, id, ${cost}, ${this.replicaId}, now() + ${this.ttl} * interval '1 second' FROM u
        )
        SELECT (SELECT available FROM u) AS held,
               (SELECT (balance - reserved)::float8 FROM users WHERE id = ${key.user_id}) AS was`,
    );
    const row = rows[0] as { held: number | null; was: number | null } | undefined;
    if (row?.held === null || row?.held === undefined) {
      const available = row?.was ?? 0;
      this.availableOf.set(key.user_id, available);
      return { ok: false, code: "insufficient_credits", available };
    }
    this.availableOf.set(key.user_id, row.held);
    return { ok: true, reservation: { id, userId: key.user_id, keyId: key.id, cost, settled: false } };
  }

  /**
   * The reserve statement. When the database does not answer in time, the call is refused
   * (503), but the statement sent may still be committed, or have been with its answer lost:
   * once it settles, the reservation it may have made is released, so that its credits are
   * not held until its expiry. (An open breaker refuses before anything is sent.)
   */
  private async reserving(id: string, statement: SQL.Query<Row[]>): Promise<Row[]> {
    const sent = !this.guard.open;
    try {
      return await this.q(statement, "reserve");
    } catch (error) {
      if (sent && error instanceof ApiError) {
        const release = () => this.releaseId(id);
        statement.then(release, release);
      }
      throw error;
    }
  }

  release(reservation: Reservation): void {
    if (reservation.settled) return;
    reservation.settled = true;
    if (reservation.id !== undefined) this.releaseId(reservation.id);
  }

  /** Gives back the credits of reservation `id` if it is held (a no-op for one never made or gone). */
  private releaseId(id: string): void {
    this.track(
      this.retried(
        () => this.sql`
          WITH r AS (DELETE FROM reservations WHERE id = ${id} RETURNING user_id, cost)
          UPDATE users SET reserved = reserved - r.cost FROM r WHERE users.id = r.user_id
          RETURNING users.id, (users.balance - users.reserved)::float8 AS available`,
        "release",
      ).then((rows) => this.remember(rows)),
    );
  }

  commit(
    reservation: Reservation,
    endpoint: string,
    requestId: string,
    idempotent?: Debit["idempotent"],
  ): Promise<CommitResult> {
    const first = this.commits.get(reservation);
    if (first) return first.result;
    if (reservation.settled) return Promise.reject(new Error("reservation already released"));
    reservation.settled = true;
    const day = new Date().toISOString().slice(0, 10);
    if (reservation.id === undefined) {
      const free = Promise.resolve<CommitResult>({
        ok: true,
        remaining: this.available(reservation.userId),
        day,
      });
      this.commits.set(reservation, { result: free, landed: Promise.resolve() });
      return free;
    }
    let landed: () => void = () => {};
    const entry = {
      result: this.debit(reservation, endpoint, requestId, idempotent, day, () => landed()),
      landed: new Promise<void>((resolve) => {
        landed = resolve;
      }),
    };
    this.commits.set(reservation, entry);
    return entry.result;
  }

  /**
   * The debit of a reservation. When the database does not answer, the outcome is unknown:
   * the call is answered as charged and the same debit is tried again in the background
   * (idempotent by request id), so that a 2xx is at worst under-billed, never billed twice.
   */
  private async debit(
    r: Reservation,
    endpoint: string,
    requestId: string,
    idempotent: Debit["idempotent"],
    day: string,
    landed: () => void,
  ): Promise<CommitResult> {
    const now = new Date().toISOString();
    try {
      const result = await this.writeDebit(r, endpoint, requestId, idempotent, now, day);
      landed();
      return result;
    } catch (error) {
      this.options.log?.warn("accounts: commit outcome unknown; retrying in the background", {
        request_id: requestId,
        error: errorText(error),
      });
      this.track(this.recommit(r, endpoint, requestId, idempotent, now, day).finally(landed));
      return { ok: true, remaining: Math.max(0, this.available(r.userId) - r.cost), day };
    }
  }

  private async recommit(
    r: Reservation,
    endpoint: string,
    requestId: string,
    idempotent: Debit["idempotent"],
    now: string,
    day: string,
  ): Promise<void> {
    for (let i = 0; i < RECOMMIT_TRIES; i++) {
      await Bun.sleep(RECOMMIT_EVERY_MS);
      try {
        await this.writeDebit(r, endpoint, requestId, idempotent, now, day);
        return;
      } catch {}
    }
    this.options.log?.error("accounts: a served call could not be debited (under-billed)", {
      request_id: requestId,
      user_id: r.userId,
      credits: r.cost,
    });
  }

  /**
   * One debit: the reservation turned into a ledger row. A reservation already gone was
   * either committed (its ledger row exists: the same answer again) or swept after its
   * expiry: then the balance is debited directly, if it still covers the cost.
   */
  private async writeDebit(
    r: Reservation,
    endpoint: string,
    requestId: string,
    idempotent: Debit["idempotent"],
    now: string,
    day: string,
  ): Promise<CommitResult> {
    const remembered = idempotent && idempotent.body.byteLength <= IDEMPOTENCY_MAX_BYTES ? idempotent : null;
    const rows = await this.q(
      this.sql`
        WITH r AS (
          DELETE FROM reservations WHERE id = ${r.id ?? ""} AND user_id = ${r.userId} RETURNING user_id, cost
        ), u AS (
          UPDATE users SET balance = balance - r.cost, reserved = reserved - r.cost FROM r
          WHERE users.id = r.user_id RETURNING (users.balance - users.reserved)::float8 AS available
        ), l AS (
          INSERT INTO ledger (user_id, delta, reason, endpoint, request_id, created_at)
          SELECT user_id, -cost, 'usage', ${endpoint}, ${requestId}, ${now} FROM r
        ), i AS (
          INSERT INTO idempotency (user_id, key, request_hash, status, content_type, body, bytes, created_at)
          SELECT user_id, ${remembered?.key ?? ""}, ${remembered?.request_hash ?? ""}, ${remembered?.status ?? 0},
                 ${remembered?.content_type ?? null}, ${remembered?.body ?? new Uint8Array()},
                 ${remembered?.body.byteLength ?? 0}, ${now}
          FROM r WHERE ${remembered !== null}
          ON CONFLICT (user_id, key) DO UPDATE SET request_hash = excluded.request_hash,
            status = excluded.status, content_type = excluded.content_type, body = excluded.body,
            bytes = excluded.bytes, created_at = excluded.created_at
        )
        SELECT available FROM u`,
      "commit",
    );
    const row = rows[0] as { available: number } | undefined;
    if (row) {
      this.availableOf.set(r.userId, row.available);
      this.touch(r.keyId, now);
      if (remembered) this.track(this.evictRemembered(r.userId));
      return { ok: true, remaining: row.available, day };
    }
    return this.debitDirectly(r, endpoint, requestId, now, day);
  }

  /** A debit without its reservation (committed already, or swept): guarded, once per request id. */
  private async debitDirectly(
    r: Reservation,
    endpoint: string,
    requestId: string,
    now: string,
    day: string,
  ): Promise<CommitResult> {
    const rows = await this.q(
      this.sql`
        WITH done AS (
          SELECT 1 FROM ledger WHERE request_id = ${requestId} AND reason = 'usage' AND user_id = ${r.userId}
        ), u AS (
          UPDATE users SET balance = balance - ${r.cost}
          WHERE id = ${r.userId} AND balance - reserved >= ${r.cost} AND NOT EXISTS (SELECT 1 FROM done)
          RETURNING id, (balance - reserved)::float8 AS available
        ), l AS (
          INSERT INTO ledger (user_id, delta, reason, endpoint, request_id, created_at)
          SELECT id, ${-r.cost}, 'usage', ${endpoint}, ${requestId}, ${now} FROM u
        )
        SELECT EXISTS (SELECT 1 FROM done) AS done, (SELECT available FROM u) AS available,
               (SELECT (balance - reserved)::float8 FROM users WHERE id = ${r.userId}) AS was`,
      "commit",
    );
    const row = rows[0] as { done: boolean; available: number | null; was: number };
    if (row.done) return { ok: true, remaining: row.was, day };
    if (row.available === null) return { ok: false, code: "insufficient_credits" };
    this.availableOf.set(r.userId, row.available);
    return { ok: true, remaining: row.available, day };
  }

  refund(reservation: Reservation, endpoint: string, requestId: string, _day: string): void {
    if (reservation.cost === 0) return;
    const landed = this.commits.get(reservation)?.landed ?? Promise.resolve();
    const now = new Date().toISOString();
    this.track(
      landed
        .then(() =>
          this.retried(
            () => this.sql`
              WITH d AS (
                SELECT user_id, -delta AS cost FROM ledger
                WHERE request_id = ${requestId} AND reason = 'usage' AND user_id = ${reservation.userId}
              ), l AS (
                INSERT INTO ledger (user_id, delta, reason, endpoint, request_id, created_at)
                SELECT user_id, cost, 'refund', ${endpoint}, ${requestId}, ${now} FROM d
                ON CONFLICT (request_id) WHERE reason = 'refund' DO NOTHING
                RETURNING user_id, delta
              )
              UPDATE users SET balance = balance + l.delta FROM l WHERE users.id = l.user_id
              RETURNING users.id, (users.balance - users.reserved)::float8 AS available`,
            "refund",
          ),
        )
        .then((rows) => this.remember(rows)),
    );
  }

  async heldFor(userId: string): Promise<number> {
    const rows = await this.q(
      this.sql`SELECT reserved::float8 AS reserved FROM users WHERE id = ${userId}`,
      "held",
    );
    return (rows[0] as { reserved: number } | undefined)?.reserved ?? 0;
  }

  /** Releases expired reservations, whoever held them; returns how many. */
  async sweepExpired(): Promise<number> {
    return this.sweep(this.sql`DELETE FROM reservations WHERE expires_at < now() RETURNING user_id, cost`);
  }

  /** Releases every reservation a replica holds (at its start: a restart holds none). */
  releaseReplica(replicaId: string): Promise<number> {
    return this.sweep(
      this.sql`DELETE FROM reservations WHERE replica = ${replicaId} RETURNING user_id, cost`,
    );
  }

  private async sweep(deleted: SQL.Query<Row[]>): Promise<number> {
    // The deleting statement is nested: the whole sweep is still one statement.
    const rows = await this.q(
      this.sql`
        WITH r AS (${deleted}), s AS (SELECT user_id, sum(cost) AS c, count(*) AS n FROM r GROUP BY user_id)
        UPDATE users SET reserved = reserved - s.c FROM s WHERE users.id = s.user_id
        RETURNING s.n::int AS n`,
      "sweep",
    );
    return rows.reduce((n: number, row: Row) => n + (row.n as number), 0);
  }

  // --- Accounts: the records ----------------------------------------------------------------

  async createUser(email: string, credits = 0): Promise<Result<User, "email_taken" | "invalid_amount">> {
    if (!Number.isSafeInteger(credits) || credits < 0)
      return { ok: false, code: "invalid_amount", message: "credits must be a non-negative integer" };
    const user: User = { id: newId("usr"), email, balance: credits, created_at: new Date().toISOString() };
    const rows = await this.q(
      this.sql`
        WITH u AS (
          INSERT INTO users (id, email, balance, created_at)
          VALUES (${user.id}, ${email}, ${credits}, ${user.created_at})
          ON CONFLICT DO NOTHING RETURNING id, balance
        ), l AS (
          INSERT INTO ledger (user_id, delta, reason, created_at)
          SELECT id, balance, 'initial grant', ${user.created_at} FROM u WHERE balance > 0
        )
        SELECT id FROM u`,
      "create user",
    );
    if (rows.length === 0) return { ok: false, code: "email_taken", message: `user ${email} exists` };
    this.availableOf.set(user.id, credits);
    this.localChanges++;
    await this.announce();
    return { ok: true, value: user };
  }

  async findUser(idOrEmail: string): Promise<User | null> {
    const rows = await this.q(
      this.sql.unsafe(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1 OR lower(email) = lower($1)`, [
        idOrEmail,
      ]),
      "find user",
    );
    return (rows[0] as User | undefined) ?? null;
  }

  async userCount(): Promise<number> {
    const rows = await this.q(this.sql`SELECT count(*)::int AS n FROM users`, "count users");
    return (rows[0] as { n: number }).n;
  }

  async createKey(userId: string, name: string | null, expiresAt: string | null) {
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
    const hash = hashApiKey(key);
    await this.q(
      this.sql`
        INSERT INTO api_keys (id, user_id, name, hash, prefix, created_at, expires_at)
        VALUES (${info.id}, ${userId}, ${name}, ${hash}, ${info.prefix}, ${info.created_at}, ${expiresAt})`,
      "create key",
    );
    this.keysByHash.set(hash, info);
    this.localChanges++;
    await this.announce();
    return { key, info };
  }

  async listKeys(userId: string): Promise<ApiKeyInfo[]> {
    return (await this.q(
      this.sql.unsafe(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE user_id = $1 ORDER BY created_at`, [userId]),
      "list keys",
    )) as ApiKeyInfo[];
  }

  async setKeyDisabled(keyId: string, disabled: boolean): Promise<boolean> {
    const at = disabled ? new Date().toISOString() : null;
    const rows = await this.q(
      this.sql`UPDATE api_keys SET disabled_at = ${at} WHERE id = ${keyId} RETURNING id`,
      "disable key",
    );
    if (rows.length !== 1) return false;
    for (const info of this.keysByHash.values()) if (info.id === keyId) info.disabled_at = at;
    this.localChanges++;
    await this.announce();
    return true;
  }

  async grantCredits(
    userId: string,
    amount: number,
    reason: string,
  ): Promise<Result<number, "invalid_amount" | "no_funds">> {
    if (!Number.isSafeInteger(amount) || amount === 0)
      return { ok: false, code: "invalid_amount", message: "amount must be a non-zero integer" };
    const rows = await this.q(
      this.sql`
        WITH u AS (
          UPDATE users SET balance = balance + ${amount}
          WHERE id = ${userId} AND balance + ${amount} >= reserved
          RETURNING id, balance::float8 AS balance, (balance - reserved)::float8 AS available
        ), l AS (
          INSERT INTO ledger (user_id, delta, reason, created_at)
          SELECT id, ${amount}, ${reason}, ${new Date().toISOString()} FROM u
        )
        SELECT balance, available FROM u`,
      "grant",
    );
    const row = rows[0] as { balance: number; available: number } | undefined;
    if (!row)
      return {
        ok: false,
        code: "no_funds",
        message: "a negative grant may not take the balance below 0 (or below what calls in flight hold)",
      };
    this.availableOf.set(userId, row.available);
    await this.announce();
    return { ok: true, value: row.balance };
  }

  async getBalance(userId: string): Promise<number | null> {
    const rows = await this.q(
      this.sql`SELECT balance::float8 AS balance FROM users WHERE id = ${userId}`,
      "balance",
    );
    return (rows[0] as { balance: number } | undefined)?.balance ?? null;
  }

  async ledgerSum(userId: string): Promise<number> {
    const rows = await this.q(
      this.sql`SELECT coalesce(sum(delta), 0)::float8 AS s FROM ledger WHERE user_id = ${userId}`,
      "ledger sum",
    );
    return (rows[0] as { s: number }).s;
  }

  /** From the ledger: each day's debits less those refunded (the SQLite store keeps a daily table). */
  async usageSince(userId: string, sinceDay: string): Promise<EndpointUsage[]> {
    return (await this.q(
      this.sql`
        SELECT coalesce(d.endpoint, '') AS endpoint,
               (count(*) - count(r.id))::int AS calls,
               (-sum(d.delta) - coalesce(sum(r.delta), 0))::float8 AS credits
        FROM ledger d LEFT JOIN ledger r
          ON r.reason = 'refund' AND r.request_id = d.request_id AND r.user_id = d.user_id
        WHERE d.user_id = ${userId} AND d.reason = 'usage' AND d.created_at >= ${sinceDay}
        GROUP BY 1 HAVING count(*) - count(r.id) > 0 ORDER BY 1`,
      "usage",
    )) as EndpointUsage[];
  }

  async findIdempotent(userId: string, key: string, since: string): Promise<IdempotentResponse | null> {
    const rows = await this.q(
      this.sql`
        SELECT key, request_hash, status, content_type, body, created_at FROM idempotency
        WHERE user_id = ${userId} AND key = ${key} AND created_at >= ${since}`,
      "idempotent response",
    );
    const row = rows[0] as IdempotentResponse | undefined;
    return row ? { ...row, body: new Uint8Array(row.body) } : null;
  }

  async purgeIdempotent(before: string): Promise<number> {
    const rows = await this.q(
      this.sql`DELETE FROM idempotency WHERE created_at < ${before} RETURNING 1`,
      "purge idempotent",
    );
    return rows.length;
  }

  /**
   * Claims an export's payment in one statement: the row is inserted, or taken over when its
   * time is over (a lease's: its window too); of two claims at once, the second waits on the
   * first's row and finds it held. When it is not taken, the row says why (read again if it
   * went meanwhile).
   */
  async claimExport(
    claim: ExportClaim,
    leaseUntil: number,
    now: number,
    windowMs: number,
  ): Promise<ExportClaimResult> {
    for (;;) {
      const taken = await this.q(
        this.sql`
          INSERT INTO export_payments (user_id, export, claimant, until)
          VALUES (${claim.userId}, ${claim.export}, ${claim.claimant}, ${leaseUntil})
          ON CONFLICT (user_id, export) DO UPDATE SET claimant = excluded.claimant, until = excluded.until
          WHERE export_payments.until <= ${now}
            AND (export_payments.claimant IS NULL OR export_payments.until <= ${now - windowMs})
          RETURNING 1`,
        "claim export",
      );
      if (taken.length > 0) return "pay";
      const [held] = await this.q(
        this.sql`
          SELECT claimant, until::float8 AS until FROM export_payments
          WHERE user_id = ${claim.userId} AND export = ${claim.export}`,
        "read export claim",
      );
      if (!held) continue;
      const until = held.until as number;
      if (until > now) return held.claimant === null ? "free" : "busy";
      if (held.claimant !== null && until + windowMs > now) return "free";
    }
  }

  async renewExport(claim: ExportClaim, leaseUntil: number): Promise<void> {
    await this.q(
      this.sql`
        UPDATE export_payments SET until = ${leaseUntil}
        WHERE user_id = ${claim.userId} AND export = ${claim.export} AND claimant = ${claim.claimant}`,
      "renew export claim",
    );
  }

  /** Ends a claim; tried again while the database does not answer (the statements are idempotent). */
  async settleExport(claim: ExportClaim, paidUntil: number | null): Promise<void> {
    const { userId, export: file, claimant } = claim;
    await this.retried(
      () =>
        paidUntil === null
          ? this.sql`
              DELETE FROM export_payments
              WHERE user_id = ${userId} AND export = ${file} AND claimant = ${claimant}`
          : this.sql`
              UPDATE export_payments SET claimant = NULL, until = ${paidUntil}
              WHERE user_id = ${userId} AND export = ${file} AND claimant = ${claimant}`,
      "settle export claim",
    );
  }

  async sweepExports(now: number, windowMs: number): Promise<number> {
    const rows = await this.q(
      this.sql`
        DELETE FROM export_payments
        WHERE until <= ${now} AND (claimant IS NULL OR until <= ${now - windowMs}) RETURNING 1`,
      "sweep export payments",
    );
    return rows.length;
  }

  /** Stops the sweeper and the notifications, waits (briefly) for writes in flight, closes the pool. */
  async close(): Promise<void> {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    await this.listening?.unlisten().catch(() => {});
    await Promise.race([Promise.allSettled([...this.pending]), Bun.sleep(3_000)]);
    await this.sql.close({ timeout: 1 });
  }

  // --- helpers ------------------------------------------------------------------------------

  /** One database call under the timeout and the breaker. */
  private q<T = Row[]>(query: PromiseLike<T> & { cancel?: () => unknown }, what: string): Promise<T> {
    return this.guard.run(query, what);
  }

  /**
   * A write nobody waits for, made idempotent by its statement (a release, a refund): tried
   * again each second while the database does not answer, for as long as a commit is.
   */
  private async retried(statement: () => SQL.Query<Row[]>, what: string): Promise<Row[]> {
    for (let i = 0; ; i++) {
      try {
        return await this.q(statement(), what);
      } catch (error) {
        if (i >= RECOMMIT_TRIES || !(error instanceof ApiError)) throw error;
        await Bun.sleep(RECOMMIT_EVERY_MS);
      }
    }
  }

  /** Keeps a write that nobody awaits: its failure is logged (the sweeper or a retry repairs it). */
  private track(write: Promise<unknown>): void {
    const kept = write.catch((error) =>
      this.options.log?.warn("accounts: a background write failed", { error: errorText(error) }),
    );
    this.pending.add(kept);
    void kept.finally(() => this.pending.delete(kept));
  }

  private remember(rows: Row[]): void {
    for (const row of rows) this.availableOf.set(row.id as string, row.available as number);
  }

  /** Tells every replica to reload its keys and balances. */
  private async announce(): Promise<void> {
    await this.q(this.sql`SELECT pg_notify(${CHANNEL}, 'changed')`, "notify");
  }

  private touch(keyId: string, now: string): void {
    const ms = Date.parse(now);
    if (ms - (this.touched.get(keyId) ?? 0) < TOUCH_EVERY_MS) return;
    if (this.touched.size >= 100_000) this.touched.clear();
    this.touched.set(keyId, ms);
    this.track(this.q(this.sql`UPDATE api_keys SET last_used_at = ${now} WHERE id = ${keyId}`, "touch key"));
  }

  /** Forgets a user's oldest remembered responses beyond the caps (count and bytes). */
  private evictRemembered(userId: string): Promise<unknown> {
    return this.q(
      this.sql`
        DELETE FROM idempotency i USING (
          SELECT key, row_number() OVER w AS n, sum(bytes) OVER w AS total FROM idempotency
          WHERE user_id = ${userId} WINDOW w AS (ORDER BY created_at DESC, key DESC)
        ) x
        WHERE i.user_id = ${userId} AND i.key = x.key
          AND (x.n > ${IDEMPOTENCY_MAX_RESPONSES} OR x.total > ${IDEMPOTENCY_MAX_BYTES})`,
      "evict remembered",
    );
  }
}

function errorText(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  return typeof cause === "string" ? cause : String(error instanceof Error ? error.message : error);
}
