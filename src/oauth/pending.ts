import { randomBytes } from "node:crypto";
import { LIFETIME_MS } from "./secrets.ts";
import type { OAuthClient } from "./store.ts";

/** An authorization request whose consent page is shown: what the code will be bound to. */
export interface PendingRequest {
  id: string;
  /** Posted back by the form; a post without it is refused (cross-site request forgery). */
  csrf: string;
  client: OAuthClient;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  scope: string;
  resource: string;
  /** ms since the epoch. */
  expiresAt: number;
  /** Keys refused for this request; at MAX_ATTEMPTS it is dropped. */
  failures: number;
}

/** Keys a person may get wrong on one consent page before it must be loaded again. */
export const MAX_ATTEMPTS = 5;
/** Consent pages open at once, for all clients together (memory stays bounded under floods). */
const MAX_PENDING = 10_000;

/**
 * The consent pages open now, in memory: a request lives 10 minutes, and a restart drops them
 * (the person loads the page again from the client). Opening a page writes nothing to disk.
 */
export class PendingRequests {
  private readonly open = new Map<string, PendingRequest>();

  /** Holds a new request; null when too many are open. */
  add(
    request: Omit<PendingRequest, "id" | "csrf" | "expiresAt" | "failures">,
    nowMs: number,
  ): PendingRequest | null {
    if (this.open.size >= MAX_PENDING) this.sweep(nowMs);
    if (this.open.size >= MAX_PENDING) return null;
    const pending: PendingRequest = {
      ...request,
      id: randomBytes(16).toString("base64url"),
      csrf: randomBytes(32).toString("base64url"),
      expiresAt: nowMs + LIFETIME_MS.pending,
      failures: 0,
    };
    this.open.set(pending.id, pending);
    return pending;
  }

  /** The open request of this id, or null (unknown, or expired: then it is dropped). */
  get(id: string, nowMs: number): PendingRequest | null {
    const pending = this.open.get(id);
    if (!pending) return null;
    if (pending.expiresAt > nowMs) return pending;
    this.open.delete(id);
    return null;
  }

  /** Closes a request (decided, or abandoned after too many bad keys). */
  close(id: string): void {
    this.open.delete(id);
  }

  private sweep(nowMs: number): void {
    for (const [id, pending] of this.open) if (pending.expiresAt <= nowMs) this.open.delete(id);
  }
}
