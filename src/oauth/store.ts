import type { Database } from "bun:sqlite";
import { type NewPendingRequest, type PendingRequest, PendingRequests } from "./pending.ts";
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

/** The columns of a grant and its approving key, joined as `g` and `k` (both stores read them so). */
export const GRANT_COLUMNS = `g.id AS g_id, g.client_id AS g_client_id, g.user_id AS g_user_id, g.key_id AS g_key_id,
  g.scope AS g_scope, g.resource AS g_resource, g.created_at AS g_created_at, g.revoked_at AS g_revoked_at,
  k.id AS k_id, k.user_id AS k_user_id, k.name AS k_name, k.prefix AS k_prefix, k.created_at AS k_created_at,
  k.expires_at AS k_expires_at, k.disabled_at AS k_disabled_at, k.last_used_at AS k_last_used_at`;

export type JoinedRow = Record<string, string | null>;

/** A client as both stores keep it: its lists and metadata as JSON text. */
export interface ClientRow {
  client_id: string;
  client_name: string | null;
  redirect_uris: string;
  grant_types: string;
  metadata: string;
  created_at: string;
}

/**
 * The authorization server's records in the SQLite accounts database of one machine (its
 * tables come from the accounts migrations, db.ts). Single use holds across processes on the
 * same file: a redemption's mark, read and new tokens are one immediate transaction.
 */
export class SqliteOAuthStore implements OAuthStore {
  /** The consent pages being shown: in this process's memory (one server serves them). */
  private readonly pending = new PendingRequests();

  /** `db` is the accounts store's; it stays open when this closes. */
  constructor(private readonly db: Database) {}

  addClient(client: OAuthClient): void {
    this.db
      .query(
        `INSERT INTO oauth_clients (client_id, client_name, redirect_uris, grant_types, metadata, created_at, last_used_at)
         VALUES ($id, $name, $uris, $grants, $metadata, $at, $at)`,
      )
      .run({
        id: client.client_id,
        name: client.client_name,
        uris: JSON.stringify(client.redirect_uris),
        grants: JSON.stringify(client.grant_types),
        metadata: JSON.stringify(client.metadata),
        at: client.created_at,
      });
  }

  saveDocumentClient(client: OAuthClient, now: string): void {
    this.db
      .query(
        `INSERT INTO oauth_clients (client_id, client_name, redirect_uris, grant_types, metadata, created_at, last_used_at)
         VALUES ($id, $name, $uris, $grants, $metadata, $now, $now)
         ON CONFLICT (client_id) DO UPDATE SET client_name = $name, redirect_uris = $uris, grant_types = $grants,
           metadata = $metadata, last_used_at = $now`,
      )
      .run({
        id: client.client_id,
        name: client.client_name,
        uris: JSON.stringify(client.redirect_uris),
        grants: JSON.stringify(client.grant_types),
        metadata: JSON.stringify(client.metadata),
        now,
      });
  }

  findClient(clientId: string): OAuthClient | null {
    const row = this.db
      .query<ClientRow, { id: string }>(
        "SELECT client_id, client_name, redirect_uris, grant_types, metadata, created_at FROM oauth_clients WHERE client_id = $id",
      )
      .get({ id: clientId });
    return row ? clientOf(row) : null;
  }

  clientCount(): number {
    return (this.db.query("SELECT count(*) AS n FROM oauth_clients").get() as { n: number }).n;
  }

  forgetIdleClients(before: string, now: string): number {
    return this.db
      .query(
        `DELETE FROM oauth_clients WHERE coalesce(last_used_at, created_at) < $before
         AND NOT EXISTS (SELECT 1 FROM oauth_grants g JOIN oauth_tokens t ON t.grant_id = g.id
           WHERE g.client_id = oauth_clients.client_id AND g.revoked_at IS NULL AND t.expires_at > $now)`,
      )
      .run({ before, now }).changes;
  }

  addGrantWithCode(grant: Omit<Grant, "revoked_at">, code: CodeRecord): void {
    this.db
      .transaction(() => {
        this.db
          .query(
            `INSERT INTO oauth_grants (id, client_id, user_id, key_id, scope, resource, created_at)
           VALUES ($id, $client_id, $user_id, $key_id, $scope, $resource, $created_at)`,
          )
          .run(grant);
        this.db
          .query(
            `INSERT INTO oauth_codes (hash, grant_id, redirect_uri, code_challenge, expires_at)
           VALUES ($hash, $grant, $redirect_uri, $code_challenge, $expires_at)`,
          )
          .run({ ...code, grant: grant.id });
      })
      .immediate();
  }

  exchange<T>(
    kind: "code" | "refresh",
    hash: string,
    now: string,
    decide: (found: Redeemable | null) => Exchange<T>,
  ): T {
    return this.db
      .transaction(() => {
        const found = kind === "code" ? this.redeemCode(hash, now) : this.redeemRefreshToken(hash, now);
        const decision = decide(found);
        if (found && decision.revoke) this.revokeGrant(found.grant.id, now);
        if (found && decision.tokens) this.addTokens(found.grant.id, decision.tokens, now);
        return decision.answer;
      })
      .immediate();
  }

  /** Marks a code used and reads it as it was (inside `exchange`'s transaction). */
  private redeemCode(hash: string, now: string): Redeemable | null {
    const row = this.db
      .query<JoinedRow, { h: string }>(
        `SELECT c.expires_at, c.used_at, c.redirect_uri, c.code_challenge, ${GRANT_COLUMNS}
         FROM oauth_codes c JOIN oauth_grants g ON g.id = c.grant_id JOIN api_keys k ON k.id = g.key_id
         WHERE c.hash = $h`,
      )
      .get({ h: hash });
    if (!row) return null;
    if (row.used_at === null)
      this.db.query("UPDATE oauth_codes SET used_at = $now WHERE hash = $h").run({ h: hash, now });
    return {
      ...joined(row),
      redirect_uri: row.redirect_uri as string,
      code_challenge: row.code_challenge as string,
    };
  }

  /** The same for a refresh token: marked used (rotated), read as it was. */
  private redeemRefreshToken(hash: string, now: string): Redeemable | null {
    const row = this.db
      .query<JoinedRow, { h: string }>(
        `SELECT t.expires_at, t.used_at, ${GRANT_COLUMNS}
         FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN api_keys k ON k.id = g.key_id
         WHERE t.hash = $h AND t.kind = 'refresh'`,
      )
      .get({ h: hash });
    if (!row) return null;
    if (row.used_at === null)
      this.db.query("UPDATE oauth_tokens SET used_at = $now WHERE hash = $h").run({ h: hash, now });
    return joined(row);
  }

  /** Stores a grant's new access token and (if any) refresh token; marks its client used. */
  private addTokens(
    grantId: string,
    { access, refresh }: { access: TokenRecord; refresh: TokenRecord | null },
    now: string,
  ): void {
    const insert = this.db.query(
      "INSERT INTO oauth_tokens (hash, grant_id, kind, expires_at) VALUES ($hash, $grant, $kind, $expires_at)",
    );
    insert.run({ ...access, grant: grantId, kind: "access" });
    if (refresh) insert.run({ ...refresh, grant: grantId, kind: "refresh" });
    this.db
      .query(
        "UPDATE oauth_clients SET last_used_at = $now WHERE client_id = (SELECT client_id FROM oauth_grants WHERE id = $grant)",
      )
      .run({ grant: grantId, now });
  }

  findAccessToken(hash: string): AccessToken | null {
    const row = this.db
      .query<JoinedRow, { h: string }>(
        `SELECT t.expires_at, ${GRANT_COLUMNS}
         FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN api_keys k ON k.id = g.key_id
         WHERE t.hash = $h AND t.kind = 'access'`,
      )
      .get({ h: hash });
    return row ? joined(row) : null;
  }

  grantOfSecret(hash: string): Grant | null {
    const row = this.db
      .query<JoinedRow, { h: string }>(
        `SELECT ${GRANT_COLUMNS} FROM oauth_grants g JOIN api_keys k ON k.id = g.key_id
         WHERE g.id = (SELECT grant_id FROM oauth_tokens WHERE hash = $h)`,
      )
      .get({ h: hash });
    return row ? joined(row).grant : null;
  }

  revokeGrant(grantId: string, now: string): boolean {
    return (
      this.db
        .query("UPDATE oauth_grants SET revoked_at = $now WHERE id = $id AND revoked_at IS NULL")
        .run({ id: grantId, now }).changes === 1
    );
  }

  listGrants(filter: GrantFilter): GrantListing[] {
    return this.db
      .query<GrantListing, { user: string | null; grant: string | null; revoked: number }>(
        `SELECT g.id, g.client_id, g.user_id, g.key_id, g.scope, g.resource, g.created_at, g.revoked_at,
           c.client_name, (SELECT max(t.expires_at) FROM oauth_tokens t WHERE t.grant_id = g.id AND t.used_at IS NULL) AS live_until
         FROM oauth_grants g JOIN oauth_clients c ON c.client_id = g.client_id
         WHERE ($user IS NULL OR g.user_id = $user) AND ($grant IS NULL OR g.id = $grant)
           AND ($revoked = 1 OR g.revoked_at IS NULL)
         ORDER BY g.created_at DESC, g.id`,
      )
      .all({ user: filter.userId ?? null, grant: filter.grantId ?? null, revoked: filter.revoked ? 1 : 0 });
  }

  forgetExpired(now: string): number {
    const codes = this.db.query("DELETE FROM oauth_codes WHERE expires_at < $now").run({ now }).changes;
    return codes + this.db.query("DELETE FROM oauth_tokens WHERE expires_at < $now").run({ now }).changes;
  }

  openPending(request: NewPendingRequest, nowMs: number): PendingRequest | null {
    return this.pending.add(request, nowMs);
  }

  findPending(id: string, nowMs: number): PendingRequest | null {
    return this.pending.get(id, nowMs);
  }

  failPending(id: string): number {
    return this.pending.fail(id);
  }

  closePending(id: string): boolean {
    return this.pending.close(id);
  }

  close(): void {}
}

/** A stored client row's record. */
export function clientOf(row: ClientRow): OAuthClient {
  return {
    ...row,
    redirect_uris: JSON.parse(row.redirect_uris),
    grant_types: JSON.parse(row.grant_types),
    metadata: JSON.parse(row.metadata),
  };
}

/** A joined row's grant and key, and the code's or token's own expiry and use. */
export function joined(row: JoinedRow): Redeemable {
  return {
    expires_at: row.expires_at as string,
    used_at: row.used_at ?? null,
    grant: {
      id: row.g_id as string,
      client_id: row.g_client_id as string,
      user_id: row.g_user_id as string,
      key_id: row.g_key_id as string,
      scope: row.g_scope as string,
      resource: row.g_resource as string,
      created_at: row.g_created_at as string,
      revoked_at: row.g_revoked_at ?? null,
    },
    key: {
      id: row.k_id as string,
      user_id: row.k_user_id as string,
      name: row.k_name ?? null,
      prefix: row.k_prefix as string,
      created_at: row.k_created_at as string,
      expires_at: row.k_expires_at ?? null,
      disabled_at: row.k_disabled_at ?? null,
      last_used_at: row.k_last_used_at ?? null,
    },
  };
}
