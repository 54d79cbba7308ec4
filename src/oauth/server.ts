import type { ApiKeyInfo, MaybePromise } from "../accounts/seam.ts";
import { ApiError } from "../errors.ts";
import { decide, showConsent } from "./authorize.ts";
import { ClientMetadataDocuments, type DocumentFetcher } from "./client-metadata.ts";
import { failurePage } from "./consent-page.ts";
import { type AddressThrottle, type KeyChecker, keyStands, type OAuthContext } from "./context.ts";
import { authorizationServerMetadata, ENDPOINTS, protectedResourceMetadata, resourceOf } from "./metadata.ts";
import { readRegistration, registered } from "./register.ts";
import { jsonNoStore, jsonPublic, oauthError, preflight } from "./responses.ts";
import { type AccessToken, andThen, type OAuthStore } from "./seam.ts";
import { hashSecret, PREFIX } from "./secrets.ts";
import { revoke, token } from "./token.ts";

/** Registrations one address may make a minute (Claude registers on every connection). */
export const REGISTRATIONS_PER_MINUTE = 10;
/** Registered clients at most; past it, idle ones are forgotten, else registration waits. */
const MAX_CLIENTS = 50_000;
/** A client unused this long that holds no valid token is forgotten (with its grants). */
const CLIENT_IDLE_MS = 30 * 24 * 3600_000;
/** Expired codes and tokens, and idle clients, are deleted at most this often (on a token request). */
const SWEEP_EVERY_MS = 3600_000;

/** What the authorization server is built from. */
export interface OAuthDeps {
  /** Where clients, grants, codes and tokens are kept (beside the accounts: SQLite or PostgreSQL). */
  store: OAuthStore;
  /** The REST gate's key check (`Billing`): a pasted key is checked exactly like a call's. */
  keys: KeyChecker;
  /**
   * The public URL clients reach this server at, e.g. `https://stocks.example.com` (the
   * issuer); read on each request, since a server not told its URL knows it once it listens.
   */
  publicUrl: () => string;
  /** Refused keys per address (the REST edge's limit of failed authentications). */
  authFailures: AddressThrottle;
  /** Registrations per address. */
  registrations: AddressThrottle;
  /**
   * How client-ID metadata documents are fetched (`fetchDocument`); absent or null, clients
   * must register (`oauth_client_metadata_documents` is off).
   */
  documents?: DocumentFetcher | null;
  now?: () => Date;
}

/** A live access token, as the `/mcp` gate needs it. */
export interface VerifiedAccess {
  /** The API key that approved the grant: the call runs, and is charged, as this key. */
  key: ApiKeyInfo;
  clientId: string;
  scopes: string[];
  /** Seconds since the epoch. */
  expiresAt: number;
  /** The token's audience (always this server's `/mcp`). */
  resource: string;
}

/** The authorization server: its HTTP handler and the access-token check of the resource server. */
export interface OAuthServer {
  /** Answers a request on `/oauth/*` or `/.well-known/*`; `address` is the client's, for the throttles. */
  handle(request: Request, address: string): Promise<Response>;
  /**
   * The live access token `presented` stands for, or null for every kind of bad one (not an
   * access token, unknown, expired, revoked, for another audience, its key disabled or
   * expired — which also revokes its grant for good). A Promise when the store must be read.
   */
  verifyAccessToken(presented: string, now: Date): MaybePromise<VerifiedAccess | null>;
  /** The protected resource (`/mcp` under the issuer). */
  readonly resource: string;
}

/** Whether a path is the authorization server's (for the HTTP layer's routing). */
export function isOAuthPath(pathname: string): boolean {
  return pathname.startsWith("/oauth/") || pathname.startsWith("/.well-known/");
}

/**
 * stockd as its own OAuth 2.1 authorization server for `/mcp` (docs/oauth.md): discovery
 * documents, dynamic client registration, the consent page, tokens and revocation.
 */
export function createOAuthServer(deps: OAuthDeps): OAuthServer {
  const ctx: OAuthContext = {
    store: deps.store,
    keys: deps.keys,
    get issuer() {
      return deps.publicUrl().replace(/\/+$/, "");
    },
    get resource() {
      return resourceOf(this.issuer);
    },
    authFailures: deps.authFailures,
    registrations: deps.registrations,
    documents: null,
    now: deps.now ?? (() => new Date()),
  };
  if (deps.documents) ctx.documents = new ClientMetadataDocuments(deps.documents, ctx.now);
  let swept = 0;
  const sweep = async () => {
    const now = ctx.now();
    if (now.getTime() - swept < SWEEP_EVERY_MS) return;
    swept = now.getTime();
    await ctx.store.forgetExpired(now.toISOString());
    await forgetIdleClients(ctx, now);
  };
  return {
    get resource() {
      return ctx.resource;
    },
    async handle(request, address) {
      try {
        return await route(request, address);
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== "unavailable") throw error;
        return oauthError("temporarily_unavailable", error.detail, error.headers);
      }
    },
    verifyAccessToken(presented, now) {
      if (!presented.startsWith(PREFIX.access) || presented.length > 100) return null;
      return andThen(ctx.store.findAccessToken(hashSecret(presented)), (found) =>
        liveAccess(ctx, found, now),
      );
    },
  };

  /** The endpoint a request is for, answered; a store that does not answer throws (a 503 above). */
  async function route(request: Request, address: string): Promise<Response> {
    const url = new URL(request.url);
    const issuer = ctx.issuer;
    switch (`${request.method} ${url.pathname}`) {
      case "GET /.well-known/oauth-protected-resource":
      case "GET /.well-known/oauth-protected-resource/mcp":
        return jsonPublic(protectedResourceMetadata(issuer));
      case "GET /.well-known/oauth-authorization-server":
        return jsonPublic(authorizationServerMetadata(issuer, ctx.documents !== null));
      case `GET ${ENDPOINTS.authorize}`:
        return showConsent(ctx, url, address);
      case `POST ${ENDPOINTS.authorize}`:
        return decide(ctx, request, address);
      case `POST ${ENDPOINTS.token}`:
        await sweep();
        return token(ctx, request, url);
      case `POST ${ENDPOINTS.register}`:
        return register(ctx, request, url, address);
      case `POST ${ENDPOINTS.revoke}`:
        return revoke(ctx, request, url);
    }
    if (request.method === "OPTIONS") return preflight();
    return notServed(request.method, url.pathname);
  }
}

/**
 * What a found access token grants: null unless it is unexpired, its grant stands, its
 * audience is this server's `/mcp` and its approving key stands (a key that no longer does
 * revokes the grant for good; that write is not waited for: the next use checks the key again).
 */
function liveAccess(ctx: OAuthContext, found: AccessToken | null, now: Date): VerifiedAccess | null {
  if (!found || found.grant.revoked_at !== null || Date.parse(found.expires_at) <= now.getTime()) return null;
  if (found.grant.resource !== ctx.resource) return null;
  if (!keyStands(found.key, now)) {
    const revoked = ctx.store.revokeGrant(found.grant.id, now.toISOString());
    if (revoked instanceof Promise) void revoked.catch(() => {});
    return null;
  }
  return {
    key: found.key,
    clientId: found.grant.client_id,
    scopes: found.grant.scope.split(" "),
    expiresAt: Math.floor(Date.parse(found.expires_at) / 1000),
    resource: found.grant.resource,
  };
}

/** Forgets clients unused for CLIENT_IDLE_MS that hold no valid token. */
function forgetIdleClients(ctx: OAuthContext, now: Date): MaybePromise<number> {
  return ctx.store.forgetIdleClients(
    new Date(now.getTime() - CLIENT_IDLE_MS).toISOString(),
    now.toISOString(),
  );
}

/** A path of no endpoint (404), or an endpoint's path with another method (405). */
function notServed(method: string, pathname: string): Response {
  if (pathname === ENDPOINTS.authorize)
    return failurePage("Method not allowed", `${method} is not used here.`, 405, undefined, {
      allow: "GET, POST",
    });
  const endpoint = (Object.values(ENDPOINTS) as string[]).includes(pathname);
  return jsonNoStore(
    {
      error: "invalid_request",
      error_description: endpoint ? `${pathname} takes POST` : `no endpoint at ${pathname}`,
    },
    endpoint ? 405 : 404,
    endpoint ? { allow: "POST, OPTIONS" } : {},
  );
}

/** POST /oauth/register: throttled per address, bounded in total, then stored. */
async function register(ctx: OAuthContext, request: Request, url: URL, address: string): Promise<Response> {
  if (url.search !== "") return oauthError("invalid_request", "the registration goes in the JSON body");
  const blocked = ctx.registrations.blockedFor(address);
  if (blocked > 0)
    return oauthError(
      "slow_down",
      `too many registrations from this address; try again in ${blocked} seconds`,
      {
        "retry-after": String(blocked),
      },
    );
  const now = ctx.now();
  const read = await readRegistration(request, now);
  if (!read.ok) return read.response;
  if ((await ctx.store.clientCount()) >= MAX_CLIENTS) {
    await forgetIdleClients(ctx, now);
    if ((await ctx.store.clientCount()) >= MAX_CLIENTS)
      return oauthError(
        "temporarily_unavailable",
        "this server holds as many clients as it may; try again later",
      );
  }
  ctx.registrations.fail(address);
  await ctx.store.addClient(read.client);
  return registered(read.client);
}
