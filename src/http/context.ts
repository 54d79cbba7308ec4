import type { Reservation } from "../accounts/billing.ts";
import type { ApiKeyInfo } from "../accounts/store.ts";
import type { LoadedSnapshot } from "../query/snapshot.ts";
import type { Endpoint } from "./pricing.ts";

/**
 * What the HTTP edge knows about one request before and after Elysia routes it. Kept in a
 * WeakMap keyed by the Request, so it is gone with the request.
 */
export interface RequestContext {
  readonly requestId: string;
  readonly startedAt: number;
  readonly key: ApiKeyInfo | null;
  readonly snapshot: LoadedSnapshot | null;
  endpoint: Endpoint | null;
  reservation: Reservation | null;
  /** Set when the call carries an `Idempotency-Key` and is the first of its retries. */
  idempotency: { key: string; hash: string } | null;
  /** Set when the debit is committed: the UTC day its usage counts on (a refund takes it back there). */
  charged: { day: string } | null;
  /**
   * Waits for one of the heavy-call slots (see FairGate), held until the routed work ends;
   * null for calls without a key.
   */
  enterHeavy: (() => Promise<void>) | null;
  /** Set when the call's answer no longer counts: its time budget ran out, or its client left. */
  abandoned: boolean;
}

const contexts = new WeakMap<Request, RequestContext>();

export function setContext(request: Request, context: RequestContext): void {
  contexts.set(request, context);
}

/** The context the edge attached to this request. Every routed request has one. */
export function contextOf(request: Request): RequestContext {
  const context = contexts.get(request);
  if (!context) throw new Error("request reached a route without passing the HTTP edge");
  return context;
}
