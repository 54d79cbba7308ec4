import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { hashApiKey } from "../accounts/keys.ts";

/**
 * The prefixes of what the authorization server hands out: each says what a value is, so a
 * gate tells an access token from an API key (`sk_`) at a glance and secret scanners find them.
 */
export const PREFIX = { access: "stk_at_", refresh: "stk_rt_", code: "stk_code_", client: "stc_" } as const;

/** How long each lives (docs/oauth.md). */
export const LIFETIME_MS = {
  access: 3600_000,
  refresh: 30 * 24 * 3600_000,
  code: 60_000,
  /** A consent page left open this long must be loaded again. */
  pending: 10 * 60_000,
} as const;

/** A new secret: its prefix and 32 random bytes in base64url (256 bits; only its hash is stored). */
export function newSecret(kind: keyof typeof PREFIX): string {
  return PREFIX[kind] + randomBytes(32).toString("base64url");
}

/** A client id: public, but unguessable, so nobody can claim another's registration by its id. */
export function newClientId(): string {
  return PREFIX.client + randomBytes(16).toString("base64url");
}

/** A grant's id (never shown to a client). */
export function newGrantId(): string {
  return `grt_${randomBytes(12).toString("base64url")}`;
}

/**
 * The stored form of a code or token: SHA-256, hex, as keys are hashed. The values carry 256
 * random bits, so no salt or slow hash is needed.
 */
export function hashSecret(secret: string): string {
  return hashApiKey(secret);
}

/** PKCE S256 (RFC 7636): BASE64URL(SHA-256(verifier)) equals the challenge, compared in constant time. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash("sha256").update(verifier).digest("base64url"));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

/** Two strings equal, compared in time that does not depend on where they differ. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
