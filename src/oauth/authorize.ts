import { isClientMetadataUrl } from "./client-metadata.ts";
import { consentPage, failurePage } from "./consent-page.ts";
import { isOurResource, type OAuthContext } from "./context.ts";
import { OFFLINE_SCOPE, READ_SCOPE } from "./metadata.ts";
import { MAX_ATTEMPTS, type PendingRequest } from "./pending.ts";
import { isLoopbackRedirect, redirectHost, redirectUriRegistered } from "./redirect-uris.ts";
import { readForm, redirectTo } from "./responses.ts";
import type { OAuthClient } from "./seam.ts";
import { hashSecret, LIFETIME_MS, newGrantId, newSecret, sameSecret } from "./secrets.ts";

/** The consent form's body: two ids, a key and a button. */
const MAX_CONSENT_BYTES = 4096;
/** Parameters of an authorization request that may appear once only (RFC 6749 §3.1). */
const SINGLE = [
  "client_id",
  "redirect_uri",
  "response_type",
  "code_challenge",
  "code_challenge_method",
  "state",
  "scope",
  "resource",
];
/** A PKCE S256 challenge: base64url of 32 bytes. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * GET /oauth/authorize: checks the request and shows the consent page. The client and its
 * redirect URI are checked first; while either is in doubt nothing is sent to the redirect
 * URI. Later problems are shown too, with a link that tells the client.
 */
export async function showConsent(ctx: OAuthContext, url: URL, address: string): Promise<Response> {
  const q = url.searchParams;
  const repeated = SINGLE.find((name) => q.getAll(name).length > 1);
  if (repeated) return failurePage("This request is malformed", `${repeated} is given more than once.`, 400);
  const client = await findClient(ctx, q.get("client_id") ?? "");
  if (typeof client === "string")
    return failurePage(
      "The application's metadata cannot be used",
      `${client}. Nothing was sent to the application.`,
      400,
    );
  if (!client)
    return failurePage(
      "Unknown application",
      "stockd does not know the application that sent you here. If it registered before this server's accounts were reset, remove the server from the application and add it again so that it registers anew.",
      400,
    );
  const redirectUri = q.get("redirect_uri") ?? "";
  if (!redirectUriRegistered(client.redirect_uris, redirectUri))
    return failurePage(
      "Unregistered return address",
      "The application asked for the answer to go to an address it did not register. Nothing was sent there.",
      400,
    );
  const state = q.get("state");
  const refuse = (code: string, message: string) =>
    failurePage(
      "This request cannot be approved",
      message,
      400,
      errorRedirect(ctx, redirectUri, state, code, message),
    );
  if (q.get("response_type") !== "code")
    return refuse("unsupported_response_type", 'The application must ask for response_type "code".');
  if (q.get("code_challenge_method") !== "S256" || !S256_CHALLENGE.test(q.get("code_challenge") ?? ""))
    return refuse(
      "invalid_request",
      "The application must use PKCE with code_challenge_method S256 (plain is refused).",
    );
  const resource = q.get("resource");
  if (resource !== null && !isOurResource(ctx, resource))
    return refuse(
      "invalid_target",
      `The application asked for access to ${resource}; this server grants access to ${ctx.resource} only.`,
    );
  const scopes = (q.get("scope") ?? "").split(" ");
  const scope = scopes.includes(OFFLINE_SCOPE) ? `${READ_SCOPE} ${OFFLINE_SCOPE}` : READ_SCOPE;
  const pending = await ctx.store.openPending(
    {
      client,
      redirectUri,
      state,
      codeChallenge: q.get("code_challenge") as string,
      scope,
      resource: ctx.resource,
      address,
    },
    ctx.now().getTime(),
  );
  if (!pending)
    return failurePage(
      "Too many approval pages are open",
      "Decide the open ones, or try again in 10 minutes.",
      429,
    );
  return consentPage(view(pending));
}

/** A registered client, or (when switched on) the client of a metadata document's URL: null if unknown, else why not. */
async function findClient(ctx: OAuthContext, clientId: string): Promise<OAuthClient | string | null> {
  if (ctx.documents && isClientMetadataUrl(clientId)) return ctx.documents.client(clientId);
  return clientId.length > 0 && clientId.length <= 100 ? await ctx.store.findClient(clientId) : null;
}

/**
 * POST /oauth/authorize: the person's decision. The form must come from a page this server
 * showed (its request id and CSRF token). Approving takes a valid API key of theirs, checked
 * like a REST call's key; refused keys count against the address like failed REST
 * authentications, and against the page (MAX_ATTEMPTS).
 */
export async function decide(ctx: OAuthContext, request: Request, address: string): Promise<Response> {
  const form = await readForm(request, MAX_CONSENT_BYTES);
  if (typeof form === "string") return failurePage("The form could not be read", `${form}.`, 400);
  const now = ctx.now();
  const pending = await ctx.store.findPending(form.get("request") ?? "", now.getTime());
  if (!pending) return expiredPage();
  if (!sameSecret(form.get("csrf") ?? "", pending.csrf)) {
    await ctx.store.closePending(pending.id);
    return failurePage(
      "The form did not come from this page",
      "Nothing was approved. Start the connection again from the application.",
      403,
    );
  }
  const decision = form.get("decision");
  if (decision === "deny") {
    await ctx.store.closePending(pending.id);
    return redirectTo(
      errorRedirect(ctx, pending.redirectUri, pending.state, "access_denied", "the request was denied"),
    );
  }
  if (decision !== "allow") return consentPage({ ...view(pending), error: "Choose Approve or Deny." }, 400);
  return approve(ctx, pending, form.get("api_key") ?? "", address, now);
}

/**
 * Checks the pasted key as the REST gate does (a key known to be valid passes at once; any
 * other is not even checked while its address is throttled) and, if it stands, issues the
 * code and sends the person back to the client.
 */
async function approve(
  ctx: OAuthContext,
  pending: PendingRequest,
  presented: string,
  address: string,
  now: Date,
): Promise<Response> {
  const text = presented.trim();
  let key = ctx.keys.knownKey(text, now);
  if (!key) {
    const blocked = ctx.authFailures.blockedFor(address);
    if (blocked > 0)
      return consentPage(
        {
          ...view(pending),
          error: `Too many refused keys from this address; try again in ${blocked} seconds.`,
        },
        429,
      );
    key = ctx.keys.authenticate(text, now);
  }
  if (!key) return refuseKey(ctx, pending, address);
  // Decided once: of two posts of the same page (to two replicas, say) one issues the code.
  if (!(await ctx.store.closePending(pending.id))) return expiredPage();
  const code = newSecret("code");
  const at = now.toISOString();
  if (isClientMetadataUrl(pending.client.client_id)) await ctx.store.saveDocumentClient(pending.client, at);
  await ctx.store.addGrantWithCode(
    {
      id: newGrantId(),
      client_id: pending.client.client_id,
      user_id: key.user_id,
      key_id: key.id,
      scope: pending.scope,
      resource: pending.resource,
      created_at: at,
    },
    {
      hash: hashSecret(code),
      redirect_uri: pending.redirectUri,
      code_challenge: pending.codeChallenge,
      expires_at: new Date(now.getTime() + LIFETIME_MS.code).toISOString(),
    },
  );
  const location = new URL(pending.redirectUri);
  location.searchParams.set("code", code);
  if (pending.state !== null) location.searchParams.set("state", pending.state);
  location.searchParams.set("iss", ctx.issuer);
  return redirectTo(location.href);
}

async function refuseKey(ctx: OAuthContext, pending: PendingRequest, address: string): Promise<Response> {
  ctx.authFailures.fail(address);
  if ((await ctx.store.failPending(pending.id)) >= MAX_ATTEMPTS) {
    await ctx.store.closePending(pending.id);
    return failurePage(
      "Too many refused keys",
      "This approval page is closed. Start the connection again from the application.",
      401,
    );
  }
  return consentPage(
    {
      ...view(pending),
      error: "That is not a valid stockd API key (unknown, disabled or expired). Paste the whole key, sk_...",
    },
    401,
  );
}

function expiredPage(): Response {
  return failurePage(
    "This approval page has expired",
    "An approval page is valid for 10 minutes and for one decision. Start the connection again from the application.",
    400,
  );
}

function view(pending: PendingRequest) {
  return {
    requestId: pending.id,
    csrf: pending.csrf,
    clientName: pending.client.client_name,
    verifiedHost: isClientMetadataUrl(pending.client.client_id)
      ? new URL(pending.client.client_id).host
      : null,
    redirectHost: redirectHost(pending.redirectUri),
    loopback: isLoopbackRedirect(pending.redirectUri),
  };
}

/** The client's redirect URI with an OAuth error, its state and the issuer (RFC 6749 §4.1.2.1, RFC 9207). */
function errorRedirect(
  ctx: OAuthContext,
  redirectUri: string,
  state: string | null,
  code: string,
  description: string,
): string {
  const location = new URL(redirectUri);
  location.searchParams.set("error", code);
  location.searchParams.set("error_description", description);
  if (state !== null) location.searchParams.set("state", state);
  location.searchParams.set("iss", ctx.issuer);
  return location.href;
}
