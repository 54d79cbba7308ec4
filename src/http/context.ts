import type { ApiKeyInfo, IdempotentResponse, Reservation } from "../accounts/seam.ts";
import type { LoadedSnapshot } from "../query/snapshot.ts";
import type { Answer, BodyBytes } from "./body.ts";
import type { Endpoint } from "./pricing.ts";

/** What the transport knows of a request's client. */
export interface Client {
  /** Its address; asked only for keys not already known to be valid (it may cost a syscall). */
  address(): string | undefined;
  /** True once it has gone away (closed or reset its connection). */
  gone(): boolean;
}

/** A client of no address that never leaves: a request made in-process. */
export const IN_PROCESS: Client = { address: () => undefined, gone: () => false };

/** The routed part of a call: a fast-path route, or Elysia. A fast-path route answers at once. */
export type Dispatch = (call: Call) => Answer | Promise<Answer>;

/** A response as an idempotent call's record keeps it, with its debit. */
export type StoredResponse = Omit<IdempotentResponse, "created_at">;

/** A call that carries an `Idempotency-Key` and is the first of its retries. */
interface FirstOfRetries {
  key: string;
  /** What makes a retry "the same call" (IdempotencyGate.requestHash). */
  hash: string;
  /** Hands the response stored with the debit to the retries waiting for it. */
  finish(response: StoredResponse): void;
  /** Lets the retries waiting for it run on their own (this call was not charged). */
  abandon(): void;
}

/**
 * One call, from its arrival at the edge to the report of how its response went out: what the
 * edge's steps learn of it (edge.ts: admit, authenticate, limit, bill, settle) and what its
 * route reads. A route served by Elysia finds it by its Request (`callOf`).
 */
export class Call {
  readonly requestId: string = crypto.randomUUID();
  readonly startedAt: number = performance.now();
  /** authenticate: the caller's key (null on public paths, and until the key is checked). */
  key: ApiKeyInfo | null = null;
  /** The snapshot the call reads, held until its routed work ends; null when none is active. */
  snapshot: LoadedSnapshot | null = null;
  /** bill: the endpoint whose price is reserved (null for calls that are not billed). */
  endpoint: Endpoint | null = null;
  /** bill: the credits held for the call until settle commits or releases them. */
  reservation: Reservation | null = null;
  idempotency: FirstOfRetries | null = null;
  /** settle: set when the debit is committed; the UTC day its usage counts on (a refund takes it back there). */
  charged: { day: string } | null = null;
  /**
   * bill: the answer's entity tag (conditional.ts) when it depends only on the snapshot and the
   * request; null for answers that carry none.
   */
  etag: string | null = null;
  /** bill: the request's `If-None-Match` names `etag`: a 2xx answer becomes a free 304. */
  notModified = false;
  /** Header fields the edge adds to the answer: the rate limit's (limit), the credits' (settle). */
  headers: Record<string, string> = {};
  /** bill: true while the call holds one of the heavy-call slots (limits.ts FairGate). */
  heavySlot = false;
  /** Takes the call out of the line for a heavy-call slot (set while it waits). */
  withdraw: (() => void) | null = null;
  /**
   * Set when the call's answer no longer counts: its time budget ran out, or (a door call) its
   * handler failed, so that a REST call it made still ends uncharged.
   */
  abandoned = false;
  /** The routed work when it answers later: the call's resources are given back once it ends. */
  work: Promise<unknown> | null = null;
  /**
   * Told once whether the call's debit stands: true when it was charged and its response
   * delivered, false when it was not charged or was refunded (an export's free repeats wait
   * for it: http/export-repeats.ts).
   */
  outcome: ((paid: boolean) => void) | null = null;
  /** The door whose path the call is on (doors.ts), by its name in logs and metrics; null for the REST API. */
  door: { readonly name: string } | null = null;
  /**
   * A REST call a door call made in its key's name (`DoorInput.rest`): the parent holds the
   * in-flight places, and the parent's delivery is this call's.
   */
  parent: Call | null = null;
  /** The replies of the REST calls this (door) call made, told of its delivery with it. */
  made: Reply[] = [];
  /** How many REST calls this (door) call has begun: its own rate token covers the first only. */
  restCalls = 0;
  /** The name its debit carries in the ledger when it is not the endpoint's (a door's tool). */
  ledgerName: string | null = null;

  constructor(
    readonly request: Request,
    readonly url: URL,
    readonly client: Client,
    readonly dispatch: Dispatch,
  ) {}
}

const calls = new WeakMap<Request, Call>();

/** Lets the routes Elysia runs find the call of the request they are given. */
export function attachCall(request: Request, call: Call): void {
  calls.set(request, call);
}

/** The call the edge attached to this request. Every request Elysia routes has one. */
export function callOf(request: Request): Call {
  const call = calls.get(request);
  if (!call) throw new Error("request reached a route without passing the HTTP edge");
  return call;
}

/**
 * A response as the transport writes it: status, header fields and the body (a fast-path
 * route's bytes as they are, or a routed Response whose body the transport reads); null for
 * HEAD.
 */
export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: BodyBytes | Response | null;
}
