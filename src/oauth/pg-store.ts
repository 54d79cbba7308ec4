import { SQL } from "bun";
import { CHANNEL, PG_DEFAULTS } from "../accounts/pg/accounts.ts";
import { Guard } from "../accounts/pg/guard.ts";
import { checkSchema } from "../accounts/pg/migrate.ts";
import {
  MAX_ATTEMPTS,
  MAX_PENDING,
  MAX_PENDING_PER_ADDRESS,
  type NewPendingRequest,
  newPending,
  type PendingRequest,
} from "./pending.ts";
import type {
  AccessToken,
  CodeRecord,
  Exchange,
  Grant,
  GrantFilter,
  GrantListing,
  OAuthClient,
  OAuthStore,
  Redeemable,
  TokenRecord,
} from "./seam.ts";
import { type ClientRow, clientOf, GRANT_COLUMNS, type JoinedRow, joined } from "./store.ts";

/** Connections of the pool (OAuth statements are few: a consent, a token request, a cache miss). */
const POOL_SIZE = 4;
/** Access tokens this replica remembers at most (then it forgets them all and reads again). */
const MAX_CACHED_TOKENS = 10_000;
/** The transaction lock of opening a consent page (a constant: "oauth" in ASCII). */
const PENDING_LOCK_KEY = 0x6f61757468;

export interface PgOAuthStoreOptions {
  /** `postgres://user:password@host:port/database`: the accounts database. */
  url: string;
  /** The longest wait for one database call, ms. */
  timeoutMs?: number;
  /**
   * Serving: access tokens are remembered for `cacheTtlMs` and forgotten at once when any
   * replica or the CLI announces a change of keys or grants (NOTIFY on the accounts channel).
   */
  serve?: boolean;
  /** How long a remembered access token is trusted without a notification, ms. */
  cacheTtlMs?: number;
  /** Named prepared statements; LISTEN (both false behind a pooler in transaction mode: pgConnection). */
  prepare?: boolean;
  listen?: boolean;
}

/** A consent page's row (004_oauth_pending.sql). */
interface PendingRow {
  id: string;
  csrf: string;
  client: string;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  scope: string;
  resource: string;
  address: string;
  failures: number;
  expires_at: number;
}

/**
 * The authorization server's records in the shared PostgreSQL accounts database (migrations
 * 003_oauth.sql, 004_oauth_pending.sql: the consent pages being shown too), for several
 * replicas (docs/scale-out.md). Each step that decides something is one statement at READ
 * COMMITTED: a code or refresh token is marked used by a guarded `UPDATE … WHERE used_at IS
 * NULL`, so of two replicas redeeming the same one exactly one wins (the other waits on the
 * row lock and finds it used), in one transaction with the tokens it gives (`exchange`); a
 * revocation is one `UPDATE` of the grant that also sends the notification, delivered when it
 * commits; a consent page opens under a transaction lock, so its limits are counted exactly.
 *
 * `/mcp` checks an access token on every call: a serving replica remembers the tokens it has
 * read for `cacheTtlMs`, and forgets them all on any notification of the accounts channel —
 * a key disabled (pg/accounts.ts announces it) or a grant revoked anywhere — so both reach
 * every replica as fast as a disabled key does. Every call has the accounts' timeout and a
 * circuit breaker (pg/guard.ts): an unreachable database is an ApiError "unavailable".
 */
export class PgOAuthStore implements OAuthStore {
  private readonly guard: Guard;
  private readonly ttlMs: number;
  private tokens = new Map<string, { found: AccessToken; until: number }>();
  /** Bumped by every notification: a read that overlaps one is not remembered. */
  private generation = 0;
  private listening: SQL.ListenSubscription | null = null;

  private constructor(
    private readonly sql: SQL,
    options: PgOAuthStoreOptions,
  ) {
    this.guard = new Guard(options.timeoutMs ?? PG_DEFAULTS.timeoutMs, 1_000);
    this.ttlMs = options.serve ? (options.cacheTtlMs ?? PG_DEFAULTS.cacheTtlMs) : 0;
  }

  /** Connects, checks the schema (an older one is refused), and when serving listens for changes. */
  static async open(options: PgOAuthStoreOptions): Promise<PgOAuthStore> {
    const sql = new SQL(options.url, {
      max: POOL_SIZE,
      prepare: options.prepare ?? true,
      connectionTimeout: Math.ceil((options.timeoutMs ?? PG_DEFAULTS.timeoutMs) / 1000),
    });
    const store = new PgOAuthStore(sql, options);
    try {
      await store.guard.run(checkSchema(sql), "schema check");
      if (options.serve && options.listen !== false)
        store.listening = await sql.listen(CHANNEL, () => store.forgetTokens());
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  async addClient(client: OAuthClient): Promise<void> {
    await this.q(
      this.sql`
        INSERT INTO oauth_clients (client_id, client_name, redirect_uris, grant_types, metadata, created_at, last_used_at)
        VALUES (${client.client_id}, ${client.client_name}, ${JSON.stringify(client.redirect_uris)},
                ${JSON.stringify(client.grant_types)}, ${JSON.stringify(client.metadata)}, ${client.created_at},
                ${client.created_at})`,
      "add client",
    );
  }

  async saveDocumentClient(client: OAuthClient, now: string): Promise<void> {
    await this.q(
      this.sql`
        INSERT INTO oauth_clients (client_id, client_name, redirect_uris, grant_types, metadata, created_at, last_used_at)
        VALUES (${client.client_id}, ${client.client_name}, ${JSON.stringify(client.redirect_uris)},
                ${JSON.stringify(client.grant_types)}, ${JSON.stringify(client.metadata)}, ${now}, ${now})
        ON CONFLICT (client_id) DO UPDATE SET client_name = excluded.client_name,
          redirect_uris = excluded.redirect_uris, grant_types = excluded.grant_types,
          metadata = excluded.metadata, last_used_at = excluded.last_used_at`,
      "save client",
    );
  }

  async findClient(clientId: string): Promise<OAuthClient | null> {
    const rows = await this.q(
      this.sql`
        SELECT client_id, client_name, redirect_uris, grant_types, metadata, created_at
        FROM oauth_clients WHERE client_id = ${clientId}`,
      "find client",
    );
    const row = rows[0] as ClientRow | undefined;
    return row ? clientOf(row) : null;
  }

  async clientCount(): Promise<number> {
    const rows = await this.q(this.sql`SELECT count(*)::int AS n FROM oauth_clients`, "count clients");
    return (rows[0] as { n: number }).n;
  }

  async forgetIdleClients(before: string, now: string): Promise<number> {
    const rows = await this.q(
      this.sql`
        DELETE FROM oauth_clients WHERE coalesce(last_used_at, created_at) < ${before}
        AND NOT EXISTS (SELECT 1 FROM oauth_grants g JOIN oauth_tokens t ON t.grant_id = g.id
          WHERE g.client_id = oauth_clients.client_id AND g.revoked_at IS NULL AND t.expires_at > ${now})
        RETURNING 1`,
      "forget idle clients",
    );
    return rows.length;
  }

  async addGrantWithCode(grant: Omit<Grant, "revoked_at">, code: CodeRecord): Promise<void> {
    await this.q(
      this.sql`
        WITH g AS (
          INSERT INTO oauth_grants (id, client_id, user_id, key_id, scope, resource, created_at)
          VALUES (${grant.id}, ${grant.client_id}, ${grant.user_id}, ${grant.key_id}, ${grant.scope},
                  ${grant.resource}, ${grant.created_at})
          RETURNING id
        )
        INSERT INTO oauth_codes (hash, grant_id, redirect_uri, code_challenge, expires_at)
        SELECT ${code.hash}, id, ${code.redirect_uri}, ${code.code_challenge}, ${code.expires_at} FROM g`,
      "add grant",
    );
  }

  /** One transaction: the redemption, the decision, then the revocation or the new tokens. */
  async exchange<T>(
    kind: "code" | "refresh",
    hash: string,
    now: string,
    decide: (found: Redeemable | null) => Exchange<T>,
  ): Promise<T> {
    const outcome = await this.transaction(async (tx, run) => {
      const [row] = (await run(this.redeem(tx, kind, hash, now))) as (JoinedRow | undefined)[];
      const found = row ? redeemed(kind, row) : null;
      const decision = decide(found);
      if (found && decision.revoke) await run(revokeQuery(tx, found.grant.id, now));
      if (found && decision.tokens) await run(addTokensQuery(tx, found.grant.id, decision.tokens, now));
      return { answer: decision.answer, revoked: decision.revoke === true };
    }, "token exchange");
    if (outcome.revoked) this.forgetTokens();
    return outcome.answer;
  }

  /**
   * Marks a code or refresh token used and reads it as it was, in one statement: the guarded
   * UPDATE decides who redeems it first; the read (of the statement's snapshot) reports it
   * used to everyone else, including a redeemer that waited on the row lock of the first.
   */
  private redeem(tx: SQL, kind: "code" | "refresh", hash: string, now: string) {
    const [table, extra, filter] =
      kind === "code"
        ? ["oauth_codes c", "c.redirect_uri, c.code_challenge,", ""]
        : ["oauth_tokens c", "", "AND c.kind = 'refresh'"];
    return tx.unsafe(
      `WITH first AS (
         UPDATE ${table} SET used_at = $2 WHERE c.hash = $1 AND c.used_at IS NULL ${filter} RETURNING c.hash
       )
       SELECT c.expires_at, ${extra}
         CASE WHEN EXISTS (SELECT 1 FROM first) THEN NULL ELSE coalesce(c.used_at, $2) END AS used_at,
         ${GRANT_COLUMNS}
       FROM ${table} JOIN oauth_grants g ON g.id = c.grant_id JOIN api_keys k ON k.id = g.key_id
       WHERE c.hash = $1 ${filter}`,
      [hash, now],
    );
  }

  findAccessToken(hash: string): AccessToken | Promise<AccessToken | null> {
    const hit = this.tokens.get(hash);
    if (hit && hit.until > Date.now()) return hit.found;
    return this.readAccessToken(hash);
  }

  private async readAccessToken(hash: string): Promise<AccessToken | null> {
    const generation = this.generation;
    const rows = await this.q(
      this.sql.unsafe(
        `SELECT t.expires_at, ${GRANT_COLUMNS}
         FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN api_keys k ON k.id = g.key_id
         WHERE t.hash = $1 AND t.kind = 'access'`,
        [hash],
      ),
      "find token",
    );
    const row = rows[0] as JoinedRow | undefined;
    if (!row) return null;
    const found = joined(row);
    if (this.ttlMs > 0 && generation === this.generation) {
      if (this.tokens.size >= MAX_CACHED_TOKENS) this.tokens.clear();
      this.tokens.set(hash, { found, until: Date.now() + this.ttlMs });
    }
    return found;
  }

  async grantOfSecret(hash: string): Promise<Grant | null> {
    const rows = await this.q(
      this.sql.unsafe(
        `SELECT ${GRANT_COLUMNS} FROM oauth_grants g JOIN api_keys k ON k.id = g.key_id
         WHERE g.id = (SELECT grant_id FROM oauth_tokens WHERE hash = $1)`,
        [hash],
      ),
      "find grant",
    );
    const row = rows[0] as JoinedRow | undefined;
    return row ? joined(row).grant : null;
  }

  async revokeGrant(grantId: string, now: string): Promise<boolean> {
    const rows = await this.q(revokeQuery(this.sql, grantId, now), "revoke grant");
    this.forgetTokens();
    return rows.length === 1;
  }

  async listGrants(filter: GrantFilter): Promise<GrantListing[]> {
    return (await this.q(
      this.sql`
        SELECT g.id, g.client_id, g.user_id, g.key_id, g.scope, g.resource, g.created_at, g.revoked_at,
          c.client_name,
          (SELECT max(t.expires_at) FROM oauth_tokens t WHERE t.grant_id = g.id AND t.used_at IS NULL) AS live_until
        FROM oauth_grants g JOIN oauth_clients c ON c.client_id = g.client_id
        WHERE (${filter.userId ?? null}::text IS NULL OR g.user_id = ${filter.userId ?? null})
          AND (${filter.grantId ?? null}::text IS NULL OR g.id = ${filter.grantId ?? null})
          AND (${filter.revoked === true} OR g.revoked_at IS NULL)
        ORDER BY g.created_at DESC, g.id`,
      "list grants",
    )) as GrantListing[];
  }

  async forgetExpired(now: string): Promise<number> {
    const rows = await this.q(
      this.sql`
        WITH c AS (DELETE FROM oauth_codes WHERE expires_at < ${now} RETURNING 1),
             t AS (DELETE FROM oauth_tokens WHERE expires_at < ${now} RETURNING 1)
        SELECT ((SELECT count(*) FROM c) + (SELECT count(*) FROM t))::int AS n`,
      "forget expired",
    );
    return (rows[0] as { n: number }).n;
  }

  async openPending(request: NewPendingRequest, nowMs: number): Promise<PendingRequest | null> {
    const p = newPending(request, nowMs);
    // The lock makes the counts exact: openings wait for each other (they come at a person's pace).
    const opened = await this.transaction(async (tx, run) => {
      await run(tx`SELECT pg_advisory_xact_lock(${PENDING_LOCK_KEY}::bigint)`);
      // Expired pages are swept as a page opens; the limits count the live ones.
      const rows = await run(tx`
        WITH gone AS (DELETE FROM oauth_pending WHERE expires_at <= ${nowMs})
        INSERT INTO oauth_pending (id, csrf, client, redirect_uri, state, code_challenge, scope, resource, address, expires_at)
        SELECT ${p.id}, ${p.csrf}, ${JSON.stringify(p.client)}, ${p.redirectUri}, ${p.state}, ${p.codeChallenge},
               ${p.scope}, ${p.resource}, ${p.address}, ${p.expiresAt}
        WHERE (SELECT count(*) FROM oauth_pending WHERE expires_at > ${nowMs}) < ${MAX_PENDING}
          AND (SELECT count(*) FROM oauth_pending WHERE address = ${p.address} AND expires_at > ${nowMs})
            < ${MAX_PENDING_PER_ADDRESS}
        RETURNING id`);
      return rows.length === 1;
    }, "open consent");
    return opened ? p : null;
  }

  async findPending(id: string, nowMs: number): Promise<PendingRequest | null> {
    const rows = await this.q(
      this.sql`
        SELECT id, csrf, client, redirect_uri, state, code_challenge, scope, resource, address, failures,
               expires_at::float8 AS expires_at
        FROM oauth_pending WHERE id = ${id} AND expires_at > ${nowMs}`,
      "find consent",
    );
    const row = rows[0] as PendingRow | undefined;
    if (!row) return null;
    return {
      id: row.id,
      csrf: row.csrf,
      client: JSON.parse(row.client),
      redirectUri: row.redirect_uri,
      state: row.state,
      codeChallenge: row.code_challenge,
      scope: row.scope,
      resource: row.resource,
      address: row.address,
      failures: row.failures,
      expiresAt: row.expires_at,
    };
  }

  async failPending(id: string): Promise<number> {
    const rows = await this.q(
      this.sql`UPDATE oauth_pending SET failures = failures + 1 WHERE id = ${id} RETURNING failures`,
      "count refused key",
    );
    return (rows[0] as { failures: number } | undefined)?.failures ?? MAX_ATTEMPTS;
  }

  async closePending(id: string): Promise<boolean> {
    const rows = await this.q(
      this.sql`DELETE FROM oauth_pending WHERE id = ${id} RETURNING 1`,
      "close consent",
    );
    return rows.length === 1;
  }

  async close(): Promise<void> {
    await this.listening?.unlisten().catch(() => {});
    await this.sql.close({ timeout: 1 });
  }

  /** Forgets every remembered access token (a key or grant changed somewhere). */
  private forgetTokens(): void {
    this.generation++;
    this.tokens = new Map();
  }

  /**
   * One transaction under the timeout and the breaker (it holds one connection of the pool,
   * so it works behind a pooler in transaction mode too). `body` passes each statement through
   * `run`: the guard's timeout cancels the one running and marks the transaction, which then
   * rolls back rather than commit after its caller was told 503.
   */
  private async transaction<T>(
    body: (tx: SQL, run: <Q extends { cancel(): unknown }>(query: Q) => Q) => Promise<T>,
    what: string,
  ): Promise<T> {
    let cancelled = false;
    let running: { cancel(): unknown } | null = null;
    const run = <Q extends { cancel(): unknown }>(query: Q): Q => {
      running = query;
      return query;
    };
    const done = this.sql.begin(async (tx) => {
      const value = await body(tx, run);
      if (cancelled) throw new Error(`${what} ran past its timeout; rolled back`);
      return value;
    });
    return this.q(
      Object.assign(done, {
        cancel: () => {
          cancelled = true;
          running?.cancel();
        },
      }),
      what,
    );
  }

  /** One database call under the timeout and the breaker. */
  private q<T = Record<string, unknown>[]>(
    query: PromiseLike<T> & { cancel?: () => unknown },
    what: string,
  ): Promise<T> {
    return this.guard.run(query, `oauth: ${what}`);
  }
}

/** A redeemed row as the seam gives it: a code with its binding, a refresh token without. */
function redeemed(kind: "code" | "refresh", row: JoinedRow): Redeemable {
  return kind === "code"
    ? {
        ...joined(row),
        redirect_uri: row.redirect_uri as string,
        code_challenge: row.code_challenge as string,
      }
    : joined(row);
}

/** Revokes a grant still live; the notification is delivered when the revocation commits. */
function revokeQuery(sql: SQL, grantId: string, now: string) {
  return sql`
    WITH r AS (UPDATE oauth_grants SET revoked_at = ${now} WHERE id = ${grantId} AND revoked_at IS NULL RETURNING id)
    SELECT pg_notify(${CHANNEL}, 'grant revoked') FROM r`;
}

/** Stores a grant's new access token and (if any) refresh token; marks its client used. */
function addTokensQuery(
  sql: SQL,
  grantId: string,
  { access, refresh }: { access: TokenRecord; refresh: TokenRecord | null },
  now: string,
) {
  return sql`
    WITH t AS (
      INSERT INTO oauth_tokens (hash, grant_id, kind, expires_at)
      SELECT v.hash, ${grantId}, v.kind, v.expires_at
      FROM (VALUES (${access.hash}::text, 'access', ${access.expires_at}::text),
                   (${refresh?.hash ?? null}::text, 'refresh', ${refresh?.expires_at ?? null}::text))
        AS v (hash, kind, expires_at)
      WHERE v.hash IS NOT NULL
    )
    UPDATE oauth_clients SET last_used_at = ${now}
    WHERE client_id = (SELECT client_id FROM oauth_grants WHERE id = ${grantId})`;
}
