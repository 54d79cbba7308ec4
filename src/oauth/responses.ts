/**
 * The answers of the authorization server's endpoints: OAuth error JSON (RFC 6749 §5.2), JSON
 * documents, HTML pages with their security headers, redirects, and bounded form bodies.
 */

/** Headers of every answer that carries a secret or a decision: nothing of it is cached or sniffed. */
const NO_STORE = {
  "cache-control": "no-store",
  pragma: "no-cache",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** What browser-based clients (the Inspector's web app) need to read metadata and call /oauth/token. */
export const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
  "access-control-max-age": "3600",
};

/** A JSON answer that must not be stored (tokens, registrations, OAuth errors). */
export function jsonNoStore(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...NO_STORE, ...CORS, ...headers },
  });
}

/** A public metadata document: the same for everyone, so caches may keep it a few minutes. */
export function jsonPublic(body: unknown): Response {
  return new Response(JSON.stringify(body), {
    headers: {
      "content-type": "application/json",
      "cache-control": "public, max-age=300",
      "x-content-type-options": "nosniff",
      ...CORS,
    },
  });
}

/** The OAuth error codes this server answers with, and their statuses (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8707). */
export const OAUTH_ERROR_STATUS = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  unsupported_token_type: 400,
  slow_down: 429,
  temporarily_unavailable: 503,
} as const;

export type OAuthErrorCode = keyof typeof OAUTH_ERROR_STATUS;

/** An OAuth error body, with its status. */
export function oauthError(
  code: OAuthErrorCode,
  description: string,
  headers: Record<string, string> = {},
): Response {
  return jsonNoStore({ error: code, error_description: description }, OAUTH_ERROR_STATUS[code], headers);
}

/** The content security policy of the pages: nothing loads, the one inline style block runs by its hash. */
export function pageHeaders(styleHash: string): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": `default-src 'none'; style-src '${styleHash}'; frame-ancestors 'none'; base-uri 'none'`,
    "x-frame-options": "DENY",
    ...NO_STORE,
  };
}

/** A redirect back to the client (a 303: the browser follows with a GET, whatever it sent). */
export function redirectTo(location: string): Response {
  return new Response(null, { status: 303, headers: { location, ...NO_STORE } });
}

/** The answer to a CORS preflight. */
export function preflight(): Response {
  return new Response(null, { status: 204, headers: { ...CORS } });
}

/** A request body read as text, or null when it is longer than `maxBytes`. */
export async function boundedText(request: Request, maxBytes: number): Promise<string | null> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) return null;
  const bytes = new Uint8Array(await request.arrayBuffer());
  return bytes.byteLength > maxBytes ? null : new TextDecoder().decode(bytes);
}

/**
 * A form body (`application/x-www-form-urlencoded`) as its fields; a field given twice is
 * refused (RFC 6749 §3.1: parameters MUST NOT be included more than once). Returns a problem
 * message instead when the body is not such a form.
 */
export async function readForm(request: Request, maxBytes: number): Promise<Map<string, string> | string> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type))
    return "the body must be application/x-www-form-urlencoded";
  const text = await boundedText(request, maxBytes);
  if (text === null) return `the body is larger than ${maxBytes} bytes`;
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) {
    if (fields.has(name)) return `${name} is given more than once`;
    fields.set(name, value);
  }
  return fields;
}
