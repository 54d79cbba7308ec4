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
  readonly client: Client;
  readonly snapshot: LoadedSnapshot | null;
  endpoint: Endpoint | null;
  reservation: Reservation | null;
  /** Set when the call carries an `Idempotency-Key` and is the first of its retries. */
  idempotency: { key: string; hash: string } | null;
  /** Set when the debit is committed: the UTC day its usage counts on (a refund takes it back there). */
  charged: { day: string } | null;
  /**
   * Waits for one of the heavy-call slots (see FairGate), held until the routed work ends;
   * false when the call was abandoned while it waited. Null for calls without a key.
   */
  enterHeavy: (() => Promise<boolean>) | null;
  /** Takes a call waiting for a heavy slot out of the line (set while it waits). */
  withdraw: (() => void) | null;
  /** Set when the call's answer no longer counts: its time budget ran out. */
  abandoned: boolean;
}

/** What the transport knows of a request's client. */
export interface Client {
  /** Its address; asked only for keys not already known to be valid (it may cost a syscall). */
  address(): string | undefined;
  /** True once it has gone away (closed or reset its connection). */
  gone(): boolean;
}

/** A client of no address that never leaves: a request made in-process. */
export const IN_PROCESS: Client = { address: () => undefined, gone: () => false };

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
