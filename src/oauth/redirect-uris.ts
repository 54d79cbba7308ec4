/**
 * Which redirect URIs a client may register and which it may then use (docs/oauth.md):
 * - loopback (`http://127.0.0.1`, `http://[::1]`, `http://localhost`): any port at the time of
 *   the request (RFC 8252 §7.3), scheme, host, path and query as registered;
 * - `https://` URIs and the private-use schemes of desktop clients (`cursor://`, `vscode://`):
 *   exactly as registered;
 * - never plain http to another host, schemes a browser runs or reads locally, fragments or
 *   credentials in the URI.
 */

/** A redirect URI longer than this is refused: it travels in the authorization URL, whose target is capped. */
export const MAX_REDIRECT_URI_LENGTH = 512;

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
/** Schemes that run code, read local data or are no navigation target. */
const FORBIDDEN_SCHEMES = new Set([
  "javascript:",
  "data:",
  "file:",
  "blob:",
  "vbscript:",
  "about:",
  "ws:",
  "wss:",
  "ftp:",
]);
const SCHEME = /^[a-z][a-z0-9+.-]*:$/;

/** Why a redirect URI cannot be registered or used, or null when it can. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length === 0 || uri.length > MAX_REDIRECT_URI_LENGTH)
    return `a redirect URI has 1 to ${MAX_REDIRECT_URI_LENGTH} characters`;
  if (/\s/.test(uri) || hasControlCharacters(uri))
    return "a redirect URI has no spaces or control characters";
  const url = URL.parse(uri);
  if (!url) return "a redirect URI must be an absolute URI";
  if (uri.includes("#")) return "a redirect URI has no fragment";
  if (url.username !== "" || url.password !== "") return "a redirect URI carries no credentials";
  if (FORBIDDEN_SCHEMES.has(url.protocol) || !SCHEME.test(url.protocol))
    return `the scheme ${url.protocol} is not allowed for redirect URIs`;
  if (url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname))
    return "plain http is allowed only to a loopback host (127.0.0.1, [::1], localhost); use https";
  return null;
}

/** True when a text holds a C0 control character or DEL (never part of a name or URI). */
export function hasControlCharacters(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** True for an `http://` URI to a loopback host, whose port is not part of its identity. */
function isLoopback(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * Whether a redirect URI presented with an authorization request is one of the client's:
 * equal to a registered one, or a loopback URI that differs from a registered loopback URI
 * only in its port. `localhost` and `127.0.0.1` are different hosts here, as registered.
 */
export function redirectUriRegistered(registered: readonly string[], presented: string): boolean {
  if (redirectUriProblem(presented) !== null) return false;
  if (registered.includes(presented)) return true;
  const url = new URL(presented);
  if (!isLoopback(url)) return false;
  return registered.some((candidate) => {
    const known = URL.parse(candidate);
    return (
      known !== null &&
      isLoopback(known) &&
      known.hostname === url.hostname &&
      known.pathname === url.pathname &&
      known.search === url.search
    );
  });
}

/** The host a consent page names for a redirect URI (the scheme for a private-use one). */
export function redirectHost(uri: string): string {
  const url = new URL(uri);
  if (url.protocol === "http:" || url.protocol === "https:") return url.host;
  return url.host === "" ? url.protocol : `${url.protocol}//${url.host}`;
}

/** True when the redirect goes back to this machine (the consent page warns about it). */
export function isLoopbackRedirect(uri: string): boolean {
  return isLoopback(new URL(uri));
}
