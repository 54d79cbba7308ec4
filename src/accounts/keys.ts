import { createHash, randomBytes } from "node:crypto";
import type { ApiKeyInfo } from "./seam.ts";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 62^43 > 2^256: 43 characters hold 32 bytes. */
const KEY_BODY_LENGTH = 43;

/** A new API key: `sk_` + 32 random bytes in base62. Only its hash is ever stored. */
export function generateApiKey(): string {
  let n = BigInt(`0x${randomBytes(32).toString("hex")}`);
  let body = "";
  for (let i = 0; i < KEY_BODY_LENGTH; i++) {
    body = BASE62[Number(n % 62n)] + body;
    n /= 62n;
  }
  return `sk_${body}`;
}

/** SHA-256 of the whole key, hex. Keys carry 256 random bits, so no salt or slow hash is needed. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** The part shown in listings: the first 8 characters after `sk_`. */
export function keyPrefix(key: string): string {
  return key.slice(3, 11);
}

/** A random id with a readable type prefix, e.g. `usr_3kT9...`. */
export function newId(kind: "usr" | "key"): string {
  return `${kind}_${randomBytes(12).toString("base64url")}`;
}

/** Whether a key may be used at `now`: not disabled, not expired. */
export function isValidNow(key: ApiKeyInfo, now: Date): boolean {
  return key.disabled_at === null && (key.expires_at === null || Date.parse(key.expires_at) > now.getTime());
}
