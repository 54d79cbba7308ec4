import type { MaybePromise } from "../accounts/seam.ts";
import { isOurResource, keyStands, type OAuthContext } from "./context.ts";
import { MAX_REDIRECT_URI_LENGTH } from "./redirect-uris.ts";
import { jsonNoStore, type OAuthErrorCode, oauthError, readForm } from "./responses.ts";
import type { Exchange, Grant, OAuthClient, Redeemable } from "./seam.ts";
import { hashSecret, LIFETIME_MS, newSecret, pkceMatches } from "./secrets.ts";

/** A token or revocation request's form: a few short fields. */
const MAX_FORM_BYTES = 4096;
/** A PKCE code verifier (RFC 7636 §4.1): 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * POST /oauth/token: the `authorization_code` grant (with PKCE) and the `refresh_token` grant
 * (rotating), for public clients (`client_id` in the form, no secret). Errors are RFC 6749
 * §5.2 JSON; nothing is cached.
 */
export async function token(ctx: OAuthContext, request: Request, url: URL): Promise<Response> {
  if (url.search !== "")
    return oauthError("invalid_request", "codes and tokens go in the form body, never in the URL");
  const form = await readForm(request, MAX_FORM_BYTES);
  if (typeof form === "string") return oauthError("invalid_request", form);
  const grantType = form.get("grant_type");
  if (grantType !== "authorization_code" && grantType !== "refresh_token")
    return grantType === undefined
      ? oauthError("invalid_request", "grant_type is required")
      : oauthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
  const client = await knownClient(ctx, form.get("client_id"));
  // An unknown client is told so (401): clients register again on it.
  if (!client) return oauthError("invalid_client", "unknown client_id; register again");
  return grantType === "authorization_code" ? byCode(ctx, client, form) : byRefreshToken(ctx, client, form);
}

/** The stored client of a `client_id` (a registered one, or one a consent found by its metadata document). */
function knownClient(ctx: OAuthContext, clientId: string | undefined): MaybePromise<OAuthClient | null> {
  return clientId && clientId.length <= MAX_REDIRECT_URI_LENGTH ? ctx.store.findClient(clientId) : null;
}

async function byCode(ctx: OAuthContext, client: OAuthClient, form: Map<string, string>): Promise<Response> {
  const code = form.get("code");
  const verifier = form.get("code_verifier");
  const redirectUri = form.get("redirect_uri");
  if (!code || !verifier || !redirectUri)
    return oauthError("invalid_request", "code, code_verifier and redirect_uri are required");
  if (!VERIFIER.test(verifier))
    return oauthError("invalid_request", "code_verifier must be 43 to 128 unreserved characters");
  const now = ctx.now();
  return ctx.store.exchange("code", hashSecret(code), now.toISOString(), (redeemed) => {
    const found = redeemable(ctx, redeemed, client, form, now, "code");
    if (!("grant" in found)) return found;
    if (found.redirect_uri !== redirectUri)
      return refuse("invalid_grant", "redirect_uri differs from the authorization request's");
    if (!pkceMatches(verifier, found.code_challenge as string))
      return refuse("invalid_grant", "code_verifier does not match the code_challenge (PKCE)");
    return issue(found.grant, client, now);
  });
}

async function byRefreshToken(
  ctx: OAuthContext,
  client: OAuthClient,
  form: Map<string, string>,
): Promise<Response> {
  const presented = form.get("refresh_token");
  if (!presented) return oauthError("invalid_request", "refresh_token is required");
  const now = ctx.now();
  return ctx.store.exchange("refresh", hashSecret(presented), now.toISOString(), (redeemed) => {
    const found = redeemable(ctx, redeemed, client, form, now, "refresh token");
    if (!("grant" in found)) return found;
    const granted = found.grant.scope.split(" ");
    const asked = form.get("scope");
    if (asked?.split(" ").some((s) => !granted.includes(s)))
      return refuse("invalid_scope", `the grant covers ${found.grant.scope} only`);
    return issue(found.grant, client, now);
  });
}

/** A refused exchange: its error, and whether the grant is revoked with it. */
function refuse(error: OAuthErrorCode, description: string, revoke = false): Exchange<Response> {
  return { answer: oauthError(error, description), revoke };
}

/**
 * A redeemed code or refresh token if it may be used, else the refusal, checked in this order: unknown; used before
 * (a replay: the whole grant is revoked, since one of the two holders is not its owner);
 * another client's; expired; its grant revoked; the approving key disabled or expired (the
 * grant dies with it); a grant made under another public URL; a `resource` other than this
 * server's.
 */
function redeemable(
  ctx: OAuthContext,
  found: Redeemable | null,
  client: OAuthClient,
  form: Map<string, string>,
  now: Date,
  what: string,
): Redeemable | Exchange<Response> {
  if (!found) return refuse("invalid_grant", `unknown ${what}`);
  if (found.used_at !== null)
    return refuse(
      "invalid_grant",
      `this ${what} was used before; every token issued with its grant is revoked`,
      true,
    );
  if (found.grant.client_id !== client.client_id)
    return refuse("invalid_grant", `the ${what} was issued to another client`);
  if (Date.parse(found.expires_at) <= now.getTime())
    return refuse("invalid_grant", `the ${what} has expired`);
  if (found.grant.revoked_at !== null) return refuse("invalid_grant", "the grant has been revoked");
  if (!keyStands(found.key, now))
    return refuse("invalid_grant", "the API key that approved this grant is disabled or expired", true);
  // A grant made under another public URL is dead: its tokens would be refused at /mcp.
  if (found.grant.resource !== ctx.resource)
    return refuse("invalid_grant", `the grant was made for ${found.grant.resource}; authorize again`);
  const resource = form.get("resource");
  if (resource !== undefined && !isOurResource(ctx, resource))
    return refuse("invalid_target", `tokens of this grant are for ${ctx.resource} only`);
  return found;
}

/**
 * A new access token, and a new refresh token when the client registered the refresh grant:
 * stored by the exchange that redeemed the code or refresh token, in its transaction.
 */
function issue(grant: Grant, client: OAuthClient, now: Date): Exchange<Response> {
  const access = newSecret("access");
  const refresh = client.grant_types.includes("refresh_token") ? newSecret("refresh") : null;
  const ms = now.getTime();
  return {
    answer: jsonNoStore({
      access_token: access,
      token_type: "Bearer",
      expires_in: LIFETIME_MS.access / 1000,
      ...(refresh === null ? {} : { refresh_token: refresh }),
      scope: grant.scope,
    }),
    tokens: {
      access: { hash: hashSecret(access), expires_at: new Date(ms + LIFETIME_MS.access).toISOString() },
      refresh:
        refresh === null
          ? null
          : { hash: hashSecret(refresh), expires_at: new Date(ms + LIFETIME_MS.refresh).toISOString() },
    },
  };
}

/**
 * POST /oauth/revoke (RFC 7009): a client revokes one of its access or refresh tokens, and
 * with it the whole grant. The answer is 200 whether or not the token was known, so it tells
 * nothing about other tokens; another client's token is left alone.
 */
export async function revoke(ctx: OAuthContext, request: Request, url: URL): Promise<Response> {
  if (url.search !== "") return oauthError("invalid_request", "tokens go in the form body, never in the URL");
  const form = await readForm(request, MAX_FORM_BYTES);
  if (typeof form === "string") return oauthError("invalid_request", form);
  const presented = form.get("token");
  if (!presented) return oauthError("invalid_request", "token is required");
  const client = await knownClient(ctx, form.get("client_id"));
  if (!client) return oauthError("invalid_client", "unknown client_id");
  const grant = await ctx.store.grantOfSecret(hashSecret(presented));
  if (grant && grant.client_id === client.client_id)
    await ctx.store.revokeGrant(grant.id, ctx.now().toISOString());
  return jsonNoStore({});
}
