/**
 * What an OAuth client and the person at the browser do, over real HTTP: register, open the
 * consent page, paste a key (the consent bot), take the code from the redirect, exchange it.
 */
import { createHash, randomBytes } from "node:crypto";

export interface Pkce {
  verifier: string;
  challenge: string;
}

/** A fresh PKCE S256 pair. */
export function pkce(): Pkce {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** POSTs a registration (JSON); returns the response. */
export function register(base: string, body: unknown): Promise<Response> {
  return fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Registers a loopback client and returns its id. */
export async function registerClient(
  base: string,
  redirectUri = "http://127.0.0.1/callback",
): Promise<string> {
  const res = await register(base, { client_name: "Test client", redirect_uris: [redirectUri] });
  if (res.status !== 201) throw new Error(`registration: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { client_id: string }).client_id;
}

/** An authorization URL as a client builds it. */
export function authorizationUrl(
  base: string,
  params: {
    clientId: string;
    redirectUri: string;
    challenge: string;
    state?: string;
    resource?: string;
    scope?: string;
  },
): string {
  const url = new URL(`${base}/oauth/authorize`);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", params.clientId);
  url.searchParams.set("redirect_uri", params.redirectUri);
  url.searchParams.set("code_challenge", params.challenge);
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("state", params.state ?? "st4te");
  url.searchParams.set("resource", params.resource ?? `${base}/mcp`);
  if (params.scope) url.searchParams.set("scope", params.scope);
  return url.href;
}

/** The hidden fields of a consent page (the request id and the CSRF token). */
export function hiddenFields(html: string): { request: string; csrf: string } {
  const field = (name: string) => {
    const found = new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1];
    if (!found) throw new Error(`the consent page has no ${name} field`);
    return found;
  };
  return { request: field("request"), csrf: field("csrf") };
}

/** POSTs the consent form as a browser would. */
export function postConsent(base: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${base}/oauth/authorize`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
    redirect: "manual",
  });
}

/**
 * The consent bot: opens the consent page of `authorizeUrl`, pastes `apiKey` and presses
 * the button (`allow` or `deny`); returns the answer to the post (a redirect when decided).
 */
export async function consentBot(
  authorizeUrl: string,
  apiKey: string,
  decision = "allow",
): Promise<Response> {
  const page = await fetch(authorizeUrl);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${html}`);
  const base = new URL(authorizeUrl).origin;
  return postConsent(base, { ...hiddenFields(html), api_key: apiKey, decision });
}

/** POSTs a token request (form-encoded). */
export function tokenRequest(base: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
}

/** `tools/list` on `base`'s /mcp with `token` as the Bearer token (a call that only needs to be let in). */
export function mcpToolsList(base: string, token: string): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

/** The code a consent redirect carries, after checking its state and issuer. */
export function codeOf(redirect: Response, base: string, state = "st4te"): string {
  const location = new URL(redirect.headers.get("location") ?? "");
  if (location.searchParams.get("state") !== state) throw new Error(`state lost: ${location.href}`);
  if (location.searchParams.get("iss") !== base) throw new Error(`iss missing: ${location.href}`);
  return location.searchParams.get("code") ?? "";
}

/**
 * Register, consent with `apiKey`, exchange: the whole flow; returns the client id and the
 * tokens. `issuer` is the server's public URL when it is not `base`.
 */
export async function fullFlow(
  base: string,
  apiKey: string,
  redirectUri = "http://127.0.0.1:45678/callback",
  issuer = base,
): Promise<{ clientId: string; tokens: Tokens }> {
  const clientId = await registerClient(base, "http://127.0.0.1/callback");
  const { verifier, challenge } = pkce();
  const redirect = await consentBot(
    authorizationUrl(base, { clientId, redirectUri, challenge, resource: `${issuer}/mcp` }),
    apiKey,
  );
  if (redirect.status !== 303) throw new Error(`consent: ${redirect.status} ${await redirect.text()}`);
  const res = await tokenRequest(base, {
    grant_type: "authorization_code",
    code: codeOf(redirect, issuer),
    code_verifier: verifier,
    redirect_uri: redirectUri,
    client_id: clientId,
    resource: `${issuer}/mcp`,
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return { clientId, tokens: (await res.json()) as Tokens };
}
