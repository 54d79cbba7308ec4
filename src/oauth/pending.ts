import { randomBytes } from "node:crypto";
import type { OAuthClient } from "./seam.ts";
import { LIFETIME_MS } from "./secrets.ts";

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
  /** The address that opened the page (each address holds at most MAX_PENDING_PER_ADDRESS). */
  address: string;
}

/** Keys a person may get wrong on one consent page before it must be loaded again. */
export const MAX_ATTEMPTS = 5;
/** Consent pages open at once, for all clients together (memory stays bounded under floods). */
export const MAX_PENDING = 10_000;
/** Consent pages one address may hold open: one address cannot crowd out the others. */
export const MAX_PENDING_PER_ADDRESS = 50;

/** A request as the consent page opens it (the store adds its id, CSRF token, expiry and count). */
export type NewPendingRequest = Omit<PendingRequest, "id" | "csrf" | "expiresAt" | "failures">;

/** A new request's id, CSRF token, expiry and count of refused keys. */
export function newPending(request: NewPendingRequest, nowMs: number): PendingRequest {
  return {
    ...request,
    id: randomBytes(16).toString("base64url"),
    csrf: randomBytes(32).toString("base64url"),
    expiresAt: nowMs + LIFETIME_MS.pending,
    failures: 0,
  };
}

/**
 * The consent pages open now, in memory (the SQLite store's, one server): a request lives 10
 * minutes, and a restart drops them (the person loads the page again from the client).
 * Opening a page writes nothing to disk.
 */
export class PendingRequests {
  private readonly open = new Map<string, PendingRequest>();
  private readonly perAddress = new Map<string, number>();

  /** Holds a new request; null when too many are open (in all, or of its address). */
  add(request: NewPendingRequest, nowMs: number): PendingRequest | null {
    const full = () =>
      this.open.size >= MAX_PENDING || (this.perAddress.get(request.address) ?? 0) >= MAX_PENDING_PER_ADDRESS;
    if (full()) this.sweep(nowMs);
    if (full()) return null;
    const pending = newPending(request, nowMs);
    this.open.set(pending.id, pending);
    this.perAddress.set(pending.address, (this.perAddress.get(pending.address) ?? 0) + 1);
    return pending;
  }

  /** The open request of this id, or null (unknown, or expired: then it is dropped). */
  get(id: string, nowMs: number): PendingRequest | null {
    const pending = this.open.get(id);
    if (!pending) return null;
    if (pending.expiresAt > nowMs) return pending;
    this.close(id);
    return null;
  }

  /** Counts a refused key of a request; returns how many it has had. */
  fail(id: string): number {
    const pending = this.open.get(id);
    if (!pending) return MAX_ATTEMPTS;
    return ++pending.failures;
  }

  /** Closes a request (decided, expired, or abandoned after too many bad keys); false if it was not open. */
  close(id: string): boolean {
    const pending = this.open.get(id);
    if (!pending) return false;
    this.open.delete(id);
    const left = (this.perAddress.get(pending.address) ?? 1) - 1;
    if (left > 0) this.perAddress.set(pending.address, left);
    else this.perAddress.delete(pending.address);
    return true;
  }

  private sweep(nowMs: number): void {
    for (const [id, pending] of this.open) if (pending.expiresAt <= nowMs) this.close(id);
  }
}
