import type { Database } from "bun:sqlite";
import type { ApiKeyInfo } from "../accounts/seam.ts";

/** A registered client, as `/oauth/register` stored it. */
export interface OAuthClient {
  client_id: string;
  client_name: string | null;
  redirect_uris: string[];
  grant_types: string[];
  /** The registration response's fields (RFC 7591 §3.2.1), given back as stored. */
  metadata: Record<string, unknown>;
  created_at: string;
}

/** One consent: the family of every code and token issued from it. */
export interface Grant {
  id: string;
  client_id: string;
  user_id: string;
  key_id: string;
  scope: string;
  resource: string;
  created_at: string;
  revoked_at: string | null;
}

/** A code or refresh token looked up for redemption, with its grant and the approving key. */
export interface Redeemable {
  grant: Grant;
  key: ApiKeyInfo;
  expires_at: string;
  /** Set when it was redeemed before: a replay. */
  used_at: string | null;
  /** A code's binding (absent for a refresh token). */
  redirect_uri?: string;
  code_challenge?: string;
}

/** An access token that is live: its grant, the key it is charged to, its expiry. */
export interface AccessToken {
  grant: Grant;
  key: ApiKeyInfo;
  expires_at: string;
}

const GRANT_COLUMNS = `g.id AS g_id, g.client_id AS g_client_id, g.user_id AS g_user_id, g.key_id AS g_key_id,
  g.scope AS g_scope, g.resource AS g_resource, g.created_at AS g_created_at, g.revoked_at AS g_revoked_at,
  k.id AS k_id, k.user_id AS k_user_id, k.name AS k_name, k.prefix AS k_prefix, k.created_at AS k_created_at,
  k.expires_at AS k_expires_at, k.disabled_at AS k_disabled_at, k.last_used_at AS k_last_used_at`;

type JoinedRow = Record<string, string | null>;

interface ClientRow {
  client_id: string;
  client_name: string | null;
  redirect_uris: string;
  grant_types: string;
  metadata: string;
  created_at: string;
}

/**
 * Every SQL statement of the authorization server, on the accounts database (its tables come
 * from the accounts migrations). Codes and tokens are looked up by hash only; the caller hashes.
 */
export class OAuthStore {
  constructor(private readonly db: Database) {}

  /** Stores a new client. */
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

  /**
   * Stores or refreshes a client known by its metadata document (kept so that its grants,
   * codes and tokens have their client, as registered ones do).
   */
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
    if (!row) return null;
    return {
      ...row,
      redirect_uris: JSON.parse(row.redirect_uris),
      grant_types: JSON.parse(row.grant_types),
      metadata: JSON.parse(row.metadata),
    };
  }

  /** Marks a client as used (a consent, a token): idle clients without live grants are forgotten. */
  touchClient(clientId: string, now: string): void {
    this.db
      .query("UPDATE oauth_clients SET last_used_at = $now WHERE client_id = $id")
      .run({ id: clientId, now });
  }

  clientCount(): number {
    return (this.db.query("SELECT count(*) AS n FROM oauth_clients").get() as { n: number }).n;
  }

  /**
   * Forgets clients unused since `before` that hold no token still valid at `now` (their
   * grants, codes and tokens go with them). Returns how many were removed.
   */
  forgetIdleClients(before: string, now: string): number {
    return this.db
      .query(
        `DELETE FROM oauth_clients WHERE coalesce(last_used_at, created_at) < $before
         AND NOT EXISTS (SELECT 1 FROM oauth_grants g JOIN oauth_tokens t ON t.grant_id = g.id
           WHERE g.client_id = oauth_clients.client_id AND g.revoked_at IS NULL AND t.expires_at > $now)`,
      )
      .run({ before, now }).changes;
  }

  /** Records a consent and the authorization code it issues, in one transaction. */
  addGrantWithCode(
    grant: Omit<Grant, "revoked_at">,
    code: { hash: string; redirect_uri: string; code_challenge: string; expires_at: string },
  ): void {
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

  /**
   * Marks a code used and returns it as it was (with `used_at` set if it had been used
   * before); null for an unknown code. Single use holds across processes: the mark and the
   * read are one transaction.
   */
  redeemCode(hash: string, now: string): Redeemable | null {
    return this.db
      .transaction(() => {
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
      })
      .immediate();
  }

  /** The same for a refresh token: marked used (rotated) and returned as it was; null if unknown. */
  redeemRefreshToken(hash: string, now: string): Redeemable | null {
    return this.db
      .transaction(() => {
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
      })
      .immediate();
  }

  /** Stores the hashes of a newly issued access token and (if any) refresh token of a grant. */
  addTokens(
    grantId: string,
    access: { hash: string; expires_at: string },
    refresh: { hash: string; expires_at: string } | null,
    now: string,
  ): void {
    const insert = this.db.query(
      "INSERT INTO oauth_tokens (hash, grant_id, kind, expires_at) VALUES ($hash, $grant, $kind, $expires_at)",
    );
    this.db
      .transaction(() => {
        insert.run({ ...access, grant: grantId, kind: "access" });
        if (refresh) insert.run({ ...refresh, grant: grantId, kind: "refresh" });
        this.db
          .query(
            "UPDATE oauth_clients SET last_used_at = $now WHERE client_id = (SELECT client_id FROM oauth_grants WHERE id = $grant)",
          )
          .run({ grant: grantId, now });
      })
      .immediate();
  }

  /** An access token by hash, with its grant and key, whatever their state; the caller decides validity. */
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

  /** The grant a code or token (by hash) belongs to, for revocation; null if unknown. */
  grantOfSecret(hash: string): Grant | null {
    const row = this.db
      .query<JoinedRow, { h: string }>(
        `SELECT ${GRANT_COLUMNS} FROM oauth_grants g JOIN api_keys k ON k.id = g.key_id
         WHERE g.id = (SELECT grant_id FROM oauth_tokens WHERE hash = $h)`,
      )
      .get({ h: hash });
    return row ? joined(row).grant : null;
  }

  /** Revokes a grant: every code and token of its family stops working. Idempotent. */
  revokeGrant(grantId: string, now: string): void {
    this.db
      .query("UPDATE oauth_grants SET revoked_at = $now WHERE id = $id AND revoked_at IS NULL")
      .run({ id: grantId, now });
  }

  /** Forgets codes and tokens past their expiry (their hashes serve nothing after it). */
  forgetExpired(now: string): number {
    const codes = this.db.query("DELETE FROM oauth_codes WHERE expires_at < $now").run({ now }).changes;
    return codes + this.db.query("DELETE FROM oauth_tokens WHERE expires_at < $now").run({ now }).changes;
  }
}

/** A joined row's grant and key, and the code's or token's own expiry and use. */
function joined(row: JoinedRow): Redeemable {
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
