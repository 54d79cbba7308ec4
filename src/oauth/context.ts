import type { ApiKeyInfo } from "../accounts/seam.ts";
import type { ClientMetadataDocuments } from "./client-metadata.ts";
import type { OAuthStore } from "./seam.ts";

/** Counts an address's events in a window and says how long it must wait once over its limit. */
export interface AddressThrottle {
  /** Seconds until the address may try again, or 0 when it may now. */
  blockedFor(address: string): number;
  /** Counts one event of the address. */
  fail(address: string): void;
}

/** How a pasted API key is checked: the same path as every REST call's key (`Billing`). */
export interface KeyChecker {
  /** The key if it is valid now; null for every kind of bad key. */
  authenticate(presented: string, now: Date): ApiKeyInfo | null;
  /** The key if it is already known to be valid (nothing hashed or read); null otherwise. */
  knownKey(presented: string, now: Date): ApiKeyInfo | null;
}

/** What the endpoints share. */
export interface OAuthContext {
  store: OAuthStore;
  keys: KeyChecker;
  /** The public URL without a trailing slash: the issuer, and the base of every endpoint. */
  issuer: string;
  /** The protected resource, `/mcp` under the issuer: every token's audience. */
  resource: string;
  authFailures: AddressThrottle;
  registrations: AddressThrottle;
  /** Clients known by a metadata document's URL; null when that is switched off. */
  documents: ClientMetadataDocuments | null;
  now: () => Date;
}

/** A key that approved a grant still stands: not disabled, not expired (as the REST gate decides). */
export function keyStands(key: ApiKeyInfo, now: Date): boolean {
  return key.disabled_at === null && (key.expires_at === null || Date.parse(key.expires_at) > now.getTime());
}

/** A `resource` parameter names this server's resource (one trailing slash is forgiven). */
export function isOurResource(ctx: OAuthContext, resource: string): boolean {
  return resource === ctx.resource || resource === `${ctx.resource}/`;
}
