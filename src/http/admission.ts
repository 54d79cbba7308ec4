import { ApiError, invalidParameter } from "../errors.ts";

/** The request target's path and query, in characters (the Host header plays no part). */
const MAX_TARGET_LENGTH = 2048;
/** The methods of the REST API. */
const READ_METHODS: readonly string[] = ["GET", "HEAD"];
/** Query parameters that look like an API key: refused, never used (keys in URLs end up in logs). */
const KEY_PARAMS = ["api_key", "apikey", "key", "token", "access_token", "auth"];
/**
 * Query parameters that are counts on every endpoint (positive integers, docs/api.md): digits
 * only, so that `1e1`, `0x5`, `+5`, ` 5` or `1.0` are refused rather than read as numbers; the
 * route's schema then checks the range.
 */
const COUNT_PARAMS = ["limit", "page", "per_page"];
const DIGITS = /^[0-9]{1,9}$/;

/**
 * The checks every request passes before anything else: GET or HEAD only (a door's own
 * methods on its paths), a bounded target, no key in the query string. Returns the error to
 * answer with, or null.
 */
export function admissionError(request: Request, url: URL, methods = READ_METHODS): ApiError | null {
  if (!methods.includes(request.method)) {
    const why = methods === READ_METHODS ? "this API is read-only" : `this path takes ${methods.join(", ")}`;
    return new ApiError("method_not_allowed", `${request.method} is not allowed; ${why}`, undefined, {
      allow: methods.join(", "),
    });
  }
  if (url.pathname.length + url.search.length > MAX_TARGET_LENGTH) {
    return new ApiError(
      "invalid_parameter",
      `the URL's path and query are longer than ${MAX_TARGET_LENGTH} characters`,
    );
  }
  const keyParam =
    url.search === ""
      ? undefined
      : [...url.searchParams.keys()].find((n) => KEY_PARAMS.includes(n.toLowerCase()));
  if (keyParam) {
    return invalidParameter(
      "query",
      keyParam,
      "API keys go in the Authorization header (Bearer), never in the URL",
    );
  }
  return null;
}

/**
 * Counts written as digits, checked once the key is (a bad key is a 401 whatever the query
 * says). Returns the error to answer with, or null.
 */
export function countError(url: URL): ApiError | null {
  if (url.search === "") return null;
  for (const name of COUNT_PARAMS) {
    const value = url.searchParams.get(name);
    if (value !== null && !DIGITS.test(value)) {
      return invalidParameter("query", name, "must be a positive integer written in digits");
    }
  }
  return null;
}

/** The same 401 for every kind of bad or missing key. */
export function unauthorized(): ApiError {
  return new ApiError("unauthorized", "a valid API key is required: Authorization: Bearer <key>", undefined, {
    "www-authenticate": 'Bearer realm="stockd", error="invalid_token"',
  });
}

/** A 429 with `Retry-After` (and any rate-limit headers). */
export function rateLimited(
  detail: string,
  retryAfterSeconds: number,
  headers: Record<string, string> = {},
): ApiError {
  return new ApiError("rate_limited", detail, undefined, {
    "retry-after": String(retryAfterSeconds),
    ...headers,
  });
}
