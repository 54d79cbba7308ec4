/**
 * The OAuth seam: what the authorization server keeps (clients, grants, codes, tokens), with
 * two implementations, as the accounts seam has (accounts/seam.ts):
 * - bun:sqlite, in the accounts database of one machine (store.ts `SqliteOAuthStore`);
 * - PostgreSQL, beside the shared accounts of several replicas (pg-store.ts `PgOAuthStore`).
 * Codes and tokens are looked up by hash only; the caller hashes. A method answers a plain
 * value where its store answers without waiting (SQLite) and a Promise where it cannot, so the
 * SQLite path of `/mcp`'s gate stays synchronous.
 */
import type { ApiKeyInfo, MaybePromise } from "../accounts/seam.ts";
import type { NewPendingRequest, PendingRequest } from "./pending.ts";

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

/** A grant as an operator lists it (`stockd oauth grants`). */
export interface GrantListing extends Grant {
  client_name: string | null;
  /** The latest expiry of its access and refresh tokens not yet used; null when none is left. */
  live_until: string | null;
}

/** Which grants `listGrants` lists. */
export interface GrantFilter {
  userId?: string;
  grantId?: string;
  /** Revoked ones too. */
  revoked?: boolean;
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

/** An access token by its hash: its grant, the key it is charged to, its expiry. */
export interface AccessToken {
  grant: Grant;
  key: ApiKeyInfo;
  expires_at: string;
}

/** A code's hash and what it is bound to (RFC 7636, RFC 6749 §4.1.3). */
export interface CodeRecord {
  hash: string;
  redirect_uri: string;
  code_challenge: string;
  expires_at: string;
}

/** A token's hash and expiry. */
export interface TokenRecord {
  hash: string;
  expires_at: string;
}

/** What the token endpoint makes of a redeemed code or refresh token. */
export interface Exchange<T> {
  /** The answer to give once it is stored. */
  answer: T;
  /** Revoke the grant (a replay, an approving key that no longer stands). */
  revoke?: boolean;
  /** New tokens of the grant to store. */
  tokens?: { access: TokenRecord; refresh: TokenRecord | null };
}

/**
 * Every record of the authorization server. Single use of codes and refresh tokens holds
 * across processes and replicas: `exchange` marks and reads in one step, so of two redeemers
 * exactly one sees `used_at` null.
 */
export interface OAuthStore {
  /** Stores a new client. */
  addClient(client: OAuthClient): MaybePromise<void>;
  /**
   * Stores or refreshes a client known by its metadata document (kept so that its grants,
   * codes and tokens have their client, as registered ones do).
   */
  saveDocumentClient(client: OAuthClient, now: string): MaybePromise<void>;
  findClient(clientId: string): MaybePromise<OAuthClient | null>;
  clientCount(): MaybePromise<number>;
  /**
   * Forgets clients unused since `before` that hold no token still valid at `now` (their
   * grants, codes and tokens go with them). Returns how many were removed.
   */
  forgetIdleClients(before: string, now: string): MaybePromise<number>;
  /** Records a consent and the authorization code it issues, together. */
  addGrantWithCode(grant: Omit<Grant, "revoked_at">, code: CodeRecord): MaybePromise<void>;
  /**
   * Redeems a code or refresh token in one transaction: marks it used, asks `decide` (given
   * it as it was, `used_at` set if it had been used before; null if unknown) and stores what
   * that decides: the grant revoked, new tokens for the grant (and its client marked used).
   * A failure anywhere (a timeout, a lost connection, the breaker open) rolls the mark back,
   * so the client's retry redeems it again rather than counting as a replay.
   */
  exchange<T>(
    kind: "code" | "refresh",
    hash: string,
    now: string,
    decide: (found: Redeemable | null) => Exchange<T>,
  ): MaybePromise<T>;
  /** An access token by hash, with its grant and key, whatever their state; the caller decides validity. */
  findAccessToken(hash: string): MaybePromise<AccessToken | null>;
  /** The grant an access or refresh token (by hash) belongs to, for revocation; null if unknown. */
  grantOfSecret(hash: string): MaybePromise<Grant | null>;
  /**
   * Revokes a grant: every code and token of its family stops working, on every replica.
   * Idempotent; true when it was live until now.
   */
  revokeGrant(grantId: string, now: string): MaybePromise<boolean>;
  /** Grants, newest first: all, one user's or the one of an id; revoked ones only when asked for. */
  listGrants(filter: GrantFilter): MaybePromise<GrantListing[]>;
  /** Forgets codes and tokens past their expiry (their hashes serve nothing after it). */
  forgetExpired(now: string): MaybePromise<number>;
  /**
   * Holds the request of a consent page being shown, for 10 minutes; null when too many are
   * open (in all, or of its address: pending.ts). Any replica finds it when the form comes back.
   */
  openPending(request: NewPendingRequest, nowMs: number): MaybePromise<PendingRequest | null>;
  /** The open request of this id, or null (unknown, decided, closed or expired). */
  findPending(id: string, nowMs: number): MaybePromise<PendingRequest | null>;
  /** Counts a refused key of a request; returns how many it has had. */
  failPending(id: string): MaybePromise<number>;
  /** Closes a request; true for the one caller that closed it (a page is decided once). */
  closePending(id: string): MaybePromise<boolean>;
  close(): MaybePromise<void>;
}

/** Applies `next` to a value that may be a Promise, without making a plain value one. */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
