import type { ApiKeyInfo, Biller, MaybePromise } from "../accounts/seam.ts";
import { ApiError } from "../errors.ts";
import type { Gate } from "../http/doors.ts";
import { READ_SCOPE } from "../oauth/metadata.ts";
import { andThen } from "../oauth/seam.ts";
import { PREFIX } from "../oauth/secrets.ts";
import type { OAuthServer } from "../oauth/server.ts";

/** What the gate of `/mcp` checks credentials against. */
export interface GateDeps {
  billing: Pick<Biller, "authenticate">;
  /** The authorization server's check of an OAuth access token (src/oauth/server.ts). */
  oauth: Pick<OAuthServer, "verifyAccessToken">;
  /** Where the protected-resource metadata (RFC 9728) is: `<base>/.well-known/oauth-protected-resource`. */
  resourceMetadataUrl: string;
}

/**
 * The key a bearer credential presented to `/mcp` stands for, valid now; null for every kind
 * of bad one. An API key (`sk_...`) is checked exactly as the REST API checks it; an OAuth
 * access token (`stk_at_...`) stands for the API key that approved its grant, whose user's
 * credits the call is charged to (docs/oauth.md).
 */
export function bearerKey(deps: GateDeps, presented: string, now: Date): MaybePromise<ApiKeyInfo | null> {
  if (presented.startsWith(PREFIX.access))
    return andThen(deps.oauth.verifyAccessToken(presented, now), (access) => access?.key ?? null);
  return deps.billing.authenticate(presented, now);
}

/**
 * The gate of `/mcp`, run by the edge like the REST API's key check (the same throttle of
 * failing addresses, rate and in-flight limits): one 401 for every kind of missing or bad
 * credential, with the challenge (RFC 6750 §3) that points a client at the protected-resource
 * metadata and names the scope to ask for: the one scope the metadata documents advertise.
 * It carries no `error`: a request without credentials gets none, and every bad credential
 * gets the same answer.
 */
export function mcpGate(deps: GateDeps): Gate {
  return {
    key: (presented, now) => bearerKey(deps, presented, now),
    refusal: () =>
      new ApiError(
        "unauthorized",
        "a valid API key or access token is required: Authorization: Bearer <credential>",
        undefined,
        {
          "www-authenticate": `Bearer resource_metadata="${deps.resourceMetadataUrl}", scope="${READ_SCOPE}"`,
        },
      ),
  };
}
