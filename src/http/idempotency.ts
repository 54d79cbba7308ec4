import { createHash } from "node:crypto";
import type { Accounts, MaybePromise } from "../accounts/seam.ts";
import { ApiError, invalidParameter, problemResponse } from "../errors.ts";
import type { Call, StoredResponse } from "./context.ts";

/** How long a remembered response is replayed. */
const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
const KEY = /^[\x21-\x7e]{1,255}$/;

/** What a call made with an `Idempotency-Key` does. */
type IdempotencyDecision =
  | { kind: "replay"; response: StoredResponse }
  | { kind: "conflict" }
  | { kind: "proceed"; finish: (response: StoredResponse) => void; abandon: () => void };

/**
 * Retries of a billed call with the same `Idempotency-Key` (per user, 24 h) get the first
 * call's response and are not charged again. The first successful response is stored in the
 * same transaction as its debit (see AccountsStore.commitDebits); retries that arrive while
 * the first call is still running wait for it. The same key with other parameters is a
 * conflict (409).
 */
export class IdempotencyGate {
  private readonly running = new Map<string, { hash: string; done: Promise<StoredResponse | null> }>();

  constructor(
    private readonly store: Accounts,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when a header value may be used as a key (1–255 visible ASCII characters). */
  static isValidKey(value: string): boolean {
    return KEY.test(value);
  }

  /** What identifies "the same call": the path and the query parameters, in any order. */
  static requestHash(url: URL): string {
    const params = [...url.searchParams.entries()].sort(
      ([a, x], [b, y]) => a.localeCompare(b) || x.localeCompare(y),
    );
    return createHash("sha256")
      .update(JSON.stringify([url.pathname, params]))
      .digest("hex");
  }

  async decide(userId: string, key: string, hash: string): Promise<IdempotencyDecision> {
    const slot = `${userId}\u0000${key}`;
    const running = this.running.get(slot);
    if (running) {
      if (running.hash !== hash) return { kind: "conflict" };
      const response = await running.done;
      if (response) return { kind: "replay", response };
      return this.decide(userId, key, hash);
    }
    const since = new Date(this.now() - IDEMPOTENCY_TTL_MS).toISOString();
    const found = this.store.findIdempotent(userId, key, since);
    // A store that answers at once keeps the look-up and the claim below in one turn; after a
    // wait, another call with this key may have claimed it meanwhile.
    const stored = found instanceof Promise ? await found : found;
    if (found instanceof Promise && this.running.has(slot)) return this.decide(userId, key, hash);
    if (stored)
      return stored.request_hash === hash ? { kind: "replay", response: stored } : { kind: "conflict" };
    let resolve: (r: StoredResponse | null) => void = () => {};
    const done = new Promise<StoredResponse | null>((r) => {
      resolve = r;
    });
    this.running.set(slot, { hash, done });
    let settled = false;
    // Once only: a call may be both finished and, in its cleanup, abandoned.
    const settle = (response: StoredResponse | null) => {
      if (settled) return;
      settled = true;
      this.running.delete(slot);
      resolve(response);
    };
    return { kind: "proceed", finish: (response) => settle(response), abandon: () => settle(null) };
  }

  /** Forgets responses past the replay window. */
  purge(): MaybePromise<number> {
    return this.store.purgeIdempotent(new Date(this.now() - IDEMPOTENCY_TTL_MS).toISOString());
  }
}

/**
 * The answer to a call with an `Idempotency-Key` header before it runs: a 400 for a malformed
 * key, a 409 for a key used with other parameters, the first call's response replayed (free);
 * or null when this call runs, as the first of its retries (`call.idempotency` then says how
 * settle hands its response to them).
 */
export async function beginIdempotent(
  gate: IdempotencyGate,
  call: Call,
  userId: string,
  value: string,
): Promise<Response | null> {
  if (!IdempotencyGate.isValidKey(value)) {
    const error = invalidParameter("header", "Idempotency-Key", "must be 1 to 255 visible ASCII characters");
    return problemResponse(error, call.requestId);
  }
  const hash = IdempotencyGate.requestHash(call.url);
  const decision = await gate.decide(userId, value, hash);
  if (decision.kind === "conflict") {
    const error = new ApiError("idempotency_conflict", "this Idempotency-Key was used with other parameters");
    return problemResponse(error, call.requestId);
  }
  if (decision.kind === "replay") {
    const { status, content_type, body } = decision.response;
    return new Response(body, {
      status,
      headers: {
        "content-type": content_type ?? "application/json",
        "idempotent-replayed": "true",
        "x-credits-charged": "0",
      },
    });
  }
  call.idempotency = { key: value, hash, finish: decision.finish, abandon: decision.abandon };
  return null;
}
