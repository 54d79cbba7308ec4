import type { ApiKeyInfo, MaybePromise } from "../accounts/seam.ts";
import type { ApiError } from "../errors.ts";
import type { Call } from "./context.ts";

/**
 * A door: a path outside the read-only REST API (e.g. `/mcp`) that takes its own methods and
 * a request body up to its own limit. Everything else is the REST edge's: the request id, the
 * URL checks, logs and metrics and, for a door with a gate, the throttle of failing addresses,
 * the key's rate limit and the in-flight places. Registered with `createApp({ doors })`
 * (docs/architecture.md says how to add one).
 */
export interface Door {
  /** Its name in logs and metrics. */
  readonly name: string;
  /** Whether a request path is this door's. */
  matches(pathname: string): boolean;
  /** The methods it takes; any other is a 405 whose `Allow` names these. */
  readonly methods: readonly string[];
  /** The largest request body it reads, in bytes; a larger one, chunked or not, is a 413. */
  readonly maxBodyBytes: number;
  /** How its callers are identified; absent, the door is public (no key, no per-key limits). */
  readonly gate?: Gate;
  /**
   * Answers one call (its request carries the body read); never throws for a bad request. The
   * answer's body is read whole while the call holds its in-flight places; a throw is a 500 that
   * refunds the REST calls it made.
   */
  handle(input: DoorInput): Response | Promise<Response>;
}

/** How a door turns a caller's bearer credential into the key the call runs as. */
export interface Gate {
  /**
   * The key the presented credential stands for, valid now; null for every kind of bad one. A
   * Promise when a store must be read (an OAuth token on PostgreSQL); it rejects with an
   * ApiError (503) when that store does not answer.
   */
  key(presented: string, now: Date): MaybePromise<ApiKeyInfo | null>;
  /** The one answer to every missing or bad credential (a 401 with its challenge). */
  refusal(): ApiError;
}

/** What a door's handler is given. */
export interface DoorInput {
  readonly call: Call;
  /**
   * Serves a REST GET (`/v1/...?...`) in the name of the door call's key, as the REST API
   * would answer it: the same route, price, reservation and commit, the ledger row named
   * `ledgerName`. The debit is refunded if the door's own response is not delivered. The door
   * call's own rate token covers its first REST call; each further one takes a token of the
   * key's rate, and without one is answered 429 (not served, not charged).
   */
  rest(target: string, ledgerName: string): Promise<RestAnswer>;
}

/** A REST answer as a door reads it. */
export interface RestAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** The door a path belongs to, if any. */
export function doorOf(doors: readonly Door[], pathname: string): Door | null {
  for (const door of doors) if (door.matches(pathname)) return door;
  return null;
}

/**
 * The body limit of a request the transport reads: the door's, for a method it takes that
 * carries a body; null for every other request (its body is never read).
 */
export function bodyLimit(doors: readonly Door[], pathname: string, method: string): number | null {
  if (method === "GET" || method === "HEAD") return null;
  const door = doorOf(doors, pathname);
  return door?.methods.includes(method) ? door.maxBodyBytes : null;
}
