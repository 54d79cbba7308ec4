import type { ApiKeyInfo, Biller, ReserveResult } from "../accounts/seam.ts";
import type { Limits } from "../config.ts";
import { ApiError, invalidParameter, problem, problemResponse } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { LoadedSnapshot, SnapshotService } from "../query/snapshot.ts";
import { isSnapshotId } from "../snapshot/store.ts";
import { admissionError, countError, rateLimited, unauthorized } from "./admission.ts";
import type { Answer } from "./body.ts";
import { entityTag, matchesIfNoneMatch } from "./conditional.ts";
import { attachCall, Call, type Client, type Dispatch, IN_PROCESS, type Reply } from "./context.ts";
import { type Door, type DoorInput, doorOf, type Gate, type RestAnswer } from "./doors.ts";
import { answerFast, type FastMatch } from "./fast-path.ts";
import { beginIdempotent, type IdempotencyGate } from "./idempotency.ts";
import {
  AuthFailureThrottle,
  FairGate,
  InFlightLimiter,
  type KeyRate,
  type RateVerdict,
  rateHeaders,
} from "./limits.ts";
import type { Metrics } from "./metrics.ts";
import { errorResponse } from "./plugins/errors.ts";
import { PRICING } from "./pricing.ts";
import type { Bill, Route } from "./route.ts";
import { Settlement } from "./settle.ts";

/** Paths served without a key. */
const PUBLIC = /^\/(health|openapi\.json|docs)(\/.*)?$/;
/** A call given up before it was answered was not charged: it may be sent again after a second. */
const RETRY = { "retry-after": "1" };
/** The scheme's case does not matter (RFC 9110 §11.1): `bearer` and `BEARER` are `Bearer`. */
const BEARER = /^Bearer ([\x21-\x7e]{1,200})$/i;

interface EdgeDeps {
  billing: Biller;
  snapshots: SnapshotService;
  log: Logger;
  metrics: Metrics;
  limits: Limits;
  /** The per-key rate: this process's token bucket, or a count shared by the replicas. */
  rate: KeyRate;
  idempotency: IdempotencyGate;
  /** The routed app (Elysia's `handle`). */
  route: (request: Request) => Promise<Response>;
  /** The fast-path route of a path, if any (fast-path.ts). */
  fastPath: (pathname: string) => FastMatch | null;
  /** The paths outside the REST API that take their own methods and bodies (doors.ts). */
  doors: readonly Door[];
  now: () => Date;
}

/**
 * The HTTP edge: every request passes it as one `Call`, through these steps in order.
 * - admit: GET or HEAD, a bounded target, no key in the URL (`/docs/` and `/metrics` are
 *   answered here);
 * - authenticate: a valid key (one 401 for every kind of bad key; an address that keeps failing
 *   is throttled before its keys are even hashed), except on public paths;
 * - limit: the key's rate, counts written in digits, the key's and the user's calls in flight;
 * - serve: the snapshot the call reads (named in `X-Snapshot-Id`), idempotent retries, and the
 *   route within a time budget; the route calls `bill` once its parameters are valid (the
 *   answer's entity tag made, the price reserved unless `If-None-Match` names that tag; a heavy
 *   call then waits for a heavy-call slot);
 * - settle: once the final status is known, a 2xx made a 304 for a client whose copy is current,
 *   the reservation committed (a 2xx, before the response is sent) or released.
 * Once the transport says how the response went out, `delivered` refunds a debit whose
 * response was not delivered, and counts and logs the call.
 */
export class Edge {
  private readonly rate: KeyRate;
  private readonly inFlight: InFlightLimiter;
  private readonly userInFlight: InFlightLimiter;
  private readonly heavy: FairGate;
  private readonly authFailures: AuthFailureThrottle;
  /** settle, the reply, and the report of its delivery. */
  private readonly after: Settlement;

  constructor(private readonly deps: EdgeDeps) {
    this.rate = deps.rate;
    this.inFlight = new InFlightLimiter(deps.limits.maxInFlight);
    this.userInFlight = new InFlightLimiter(deps.limits.maxInFlightPerUser);
    this.heavy = new FairGate(deps.limits.heavySlots);
    this.authFailures = new AuthFailureThrottle(deps.limits.authFailuresPerMinute);
    this.after = new Settlement(deps);
  }

  /** Reports how a reply went out (see Settlement.delivered). */
  delivered(reply: Reply, delivered: boolean): void {
    this.after.delivered(reply, delivered);
  }

  /**
   * Answers one request: by the fast-path route it matched, else through Elysia. Never throws:
   * anything unexpected becomes a 500 problem+json that says nothing of its cause (the log has it).
   */
  handle(
    request: Request,
    client: Client = IN_PROCESS,
    url = new URL(request.url),
    fast: FastMatch | null = null,
  ): Reply | Promise<Reply> {
    const dispatch: Dispatch = fast ? (call) => this.answerFast(fast, call) : this.viaApp;
    const call = new Call(request, url, client, dispatch);
    try {
      const reply = this.pass(call);
      return reply instanceof Promise ? reply.catch((error) => this.internal(error, call.requestId)) : reply;
    } catch (error) {
      return this.internal(error, call.requestId);
    }
  }

  /** The steps before the route; the first that refuses the call answers it. */
  private pass(call: Call): Reply | Promise<Reply> {
    const door = this.deps.doors.length > 0 ? doorOf(this.deps.doors, call.url.pathname) : null;
    call.door = door;
    const early = this.admit(call, door);
    if (early) return this.after.finish(call, early);
    if (door) return this.passDoor(call, door);
    if (PUBLIC.test(call.url.pathname)) return this.serve(call);
    return this.passOn(call, this.authenticate(call) ?? this.limit(call), (c) => this.serve(c));
  }

  /**
   * The call answered with the error its checks returned, or else passed on to `next`; checks
   * that must ask another process (a rate counted in Redis) are awaited.
   */
  private passOn(
    call: Call,
    refused: ApiError | null | Promise<ApiError | null>,
    next: (call: Call) => Reply | Promise<Reply>,
  ): Reply | Promise<Reply> {
    if (refused instanceof Promise) return refused.then((error) => this.passOn(call, error, next));
    return refused ? this.after.finish(call, problemResponse(refused, call.requestId)) : next(call);
  }

  /** admit: the answer to a request refused or served before anything else, or null. */
  private admit(call: Call, door: Door | null): Response | null {
    const refused = admissionError(call.request, call.url, door?.methods);
    if (refused) return problemResponse(refused, call.requestId);
    // The docs page names its spec relatively ("openapi.json"): it must be served at /docs.
    if (call.url.pathname === "/docs/") return Response.redirect("/docs", 308);
    if (call.url.pathname === "/metrics") return this.deps.metrics.respond(call.request, call.requestId);
    return null;
  }

  /**
   * authenticate: sets the call's key, or returns the error to answer with. A key already known
   * to be valid passes at once; any other is refused without being checked while its address is
   * throttled for failing (so a flood of bad keys costs no hashing and never locks out good
   * keys), else checked — every malformed header still costs one hash: one path for every kind
   * of bad key.
   */
  private authenticate(call: Call): ApiError | null;
  private authenticate(call: Call, gate: Gate): ApiError | null | Promise<ApiError | null>;
  private authenticate(call: Call, gate?: Gate): ApiError | null | Promise<ApiError | null> {
    const presented = BEARER.exec(call.request.headers.get("authorization") ?? "")?.[1] ?? "";
    const now = this.deps.now();
    call.key = this.deps.billing.knownKey(presented, now);
    if (call.key) return null;
    const address = call.client.address() ?? "unknown";
    const blocked = this.authFailures.blockedFor(address);
    if (blocked > 0) return rateLimited("too many failed authentications from this address", blocked);
    const found = gate ? gate.key(presented, now) : this.deps.billing.authenticate(presented, now);
    if (!(found instanceof Promise)) return this.identified(call, found, address, gate);
    // A gate that reads a store (OAuth tokens on PostgreSQL) may fail: its 503 is the answer.
    return found.then(
      (key) => this.identified(call, key, address, gate),
      (error) => {
        if (error instanceof ApiError) return error;
        throw error;
      },
    );
  }

  /** The call's key, or the one refusal of a bad credential (counted against its address). */
  private identified(call: Call, key: ApiKeyInfo | null, address: string, gate?: Gate): ApiError | null {
    call.key = key;
    if (key) return null;
    this.authFailures.fail(address);
    return gate ? gate.refusal() : unauthorized();
  }

  /**
   * A door's call: its gate (authenticate and limit, as for the REST API) when it has one, then
   * its handler; the call's places are given back once its answer's body is whole (its REST
   * calls may run while that body is made, e.g. an SSE stream written as tools answer).
   */
  private passDoor(call: Call, door: Door): Reply | Promise<Reply> {
    if (!door.gate) return this.serveDoor(call, door);
    const known = this.authenticate(call, door.gate);
    const refused =
      known instanceof Promise
        ? known.then((error) => error ?? this.limit(call))
        : (known ?? this.limit(call));
    return this.passOn(call, refused, (c) => this.serveDoor(c, door));
  }

  private async serveDoor(call: Call, door: Door): Promise<Reply> {
    let answer: Response;
    try {
      answer = await wholeBody(await door.handle(this.doorInput(call)));
    } catch (error) {
      answer = this.doorFailed(call, error);
    } finally {
      this.release(call);
    }
    return this.after.finish(call, answer);
  }

  /**
   * The 500 of a door whose handler threw: the REST calls it made are refunded (its reply does
   * not carry them), and one still running ends uncharged (`rest`).
   */
  private doorFailed(call: Call, error: unknown): Response {
    this.deps.log.error("a door's handler failed", { request_id: call.requestId, error: String(error) });
    call.abandoned = true;
    for (const made of call.made.splice(0)) this.after.delivered(made, false);
    return problemResponse(INTERNAL, call.requestId);
  }

  /** What a door's handler (or an in-process caller with a key) is given for a call. */
  doorInput(call: Call): DoorInput {
    return { call, rest: (target, ledgerName) => this.rest(call, target, ledgerName) };
  }

  /**
   * A REST GET made in-process in the name of a presented key (`stockd mcp` over stdio): the
   * key is checked and limited as a door call's, then the call is served like a door's REST
   * call; its answer counts as delivered once it is handed over.
   */
  async restAs(presented: string, target: string, ledgerName: string): Promise<RestAnswer> {
    const url = new URL(target, "http://stockd.local");
    const headers = { authorization: `Bearer ${presented}` };
    const call = new Call(new Request(url.href, { headers }), url, IN_PROCESS, this.viaApp);
    const refused = this.authenticate(call) ?? (await this.limit(call));
    if (refused) {
      const { status, headers, body } = problem(refused, call.requestId);
      return { status, headers, body: Buffer.from(body) };
    }
    try {
      return await this.rest(call, target, ledgerName);
    } finally {
      this.release(call);
      for (const made of call.made) this.after.delivered(made, true);
    }
  }

  /**
   * A REST GET made by a door call in its key's name: served as the API serves it (snapshot,
   * route, bill, settle), without in-flight places of its own (the door call holds them until
   * its answer is whole) but with a token of the key's rate (`subCallRefusal`); its reply is
   * told of delivery with the door call's (Settlement.delivered).
   */
  private async rest(parent: Call, target: string, ledgerName: string): Promise<RestAnswer> {
    const url = new URL(target, parent.url.origin);
    const fast = this.deps.fastPath(url.pathname);
    const dispatch: Dispatch = fast ? (call) => this.answerFast(fast, call) : this.viaApp;
    const call = new Call(new Request(url.href), url, parent.client, dispatch);
    call.key = parent.key;
    call.parent = parent;
    call.ledgerName = ledgerName;
    const refused = await this.subCallRefusal(parent, url);
    let reply: Reply;
    try {
      reply = refused
        ? this.after.finish(call, problemResponse(refused, call.requestId))
        : await this.serve(call);
    } catch (error) {
      reply = this.internal(error, call.requestId);
    }
    let body: Uint8Array;
    try {
      body = await replyBytes(reply.body);
    } catch (error) {
      // Its answer never reaches the door: not delivered, so not charged.
      this.after.delivered(reply, false);
      const failed = this.internal(error, call.requestId);
      return { status: failed.status, headers: failed.headers, body: Buffer.from(failed.body) };
    }
    // A door call that failed while this call ran answers without it: not delivered either.
    if (parent.abandoned) this.after.delivered(reply, false);
    else parent.made.push(reply);
    return { status: reply.status, headers: reply.headers, body };
  }

  /**
   * What refuses a door's REST call before it is served: the key's rate (the door call's own
   * token covers its first REST call; each further one takes a token, so one request carrying
   * many tool calls is limited as that many REST calls), then a count not written in digits.
   */
  private subCallRefusal(parent: Call, url: URL): ApiError | null | Promise<ApiError | null> {
    parent.restCalls++;
    if (!parent.key || parent.restCalls === 1) return countError(url);
    const rate = this.rate.take(parent.key.id);
    const refusal = (verdict: RateVerdict) => (verdict.ok ? countError(url) : rateRefusal(verdict));
    return rate instanceof Promise ? rate.then(refusal) : refusal(rate);
  }

  /**
   * limit: takes the call's places (a token of its key's rate, an in-flight place of its key and
   * one of its user, given back when its routed work ends: `release`), or returns the error to
   * answer with. The rate limit's header fields go on the answer.
   */
  private limit(call: Call): ApiError | null | Promise<ApiError | null> {
    const key = call.key as NonNullable<Call["key"]>;
    const rate = this.rate.take(key.id);
    return rate instanceof Promise
      ? rate.then((verdict) => this.places(call, verdict))
      : this.places(call, rate);
  }

  /** The rest of `limit` once the key's rate has answered. */
  private places(call: Call, rate: RateVerdict): ApiError | null {
    const key = call.key as NonNullable<Call["key"]>;
    if (!rate.ok) return rateRefusal(rate);
    // A bad count is a 400 like any other bad parameter: after the rate limit, before the call
    // takes an in-flight place.
    const badCount = countError(call.url);
    if (badCount) return badCount;
    if (!this.inFlight.enter(key.id)) return rateLimited("too many calls of this key in flight", 1);
    // Per user too: more keys do not buy more concurrent work.
    if (!this.userInFlight.enter(key.user_id)) {
      this.inFlight.leave(key.id);
      return rateLimited("too many calls of this user in flight", 1);
    }
    call.headers = rateHeaders(rate);
    return null;
  }

  /**
   * serve: runs the call's route with the snapshot it reads (the active one, or the one the call
   * pins with `?snapshot=ID`); an idempotent retry may be answered first.
   */
  private serve(call: Call): Reply | Promise<Reply> {
    const pin = call.url.searchParams.get("snapshot");
    return pin === null ? this.serveWith(call, this.deps.snapshots.acquire()) : this.servePinned(call, pin);
  }

  /** A call that pins a snapshot: 400 for what cannot be an id, 404 for one not on disk. */
  private async servePinned(call: Call, id: string): Promise<Reply> {
    let snapshot: LoadedSnapshot | null;
    try {
      snapshot = await this.deps.snapshots.acquirePinned(id);
    } catch (error) {
      this.release(call);
      throw error;
    }
    if (snapshot) return this.serveWith(call, snapshot);
    this.release(call);
    const refusal = isSnapshotId(id)
      ? new ApiError("not_found", `snapshot ${id} is not on this server (removed, or never imported here)`)
      : invalidParameter("query", "snapshot", "must be a snapshot id, as an answer's X-Snapshot-Id gives it");
    return this.after.finish(call, problemResponse(refusal, call.requestId));
  }

  private serveWith(call: Call, snapshot: LoadedSnapshot | null): Reply | Promise<Reply> {
    call.snapshot = snapshot;
    let reply: Reply | Promise<Reply>;
    try {
      const header = call.key ? call.request.headers.get("idempotency-key") : null;
      reply =
        call.key && header !== null
          ? beginIdempotent(this.deps.idempotency, call, call.key.user_id, header).then((early) =>
              early ? this.after.finish(call, early) : this.route(call),
            )
          : this.route(call);
    } catch (error) {
      this.ended(call);
      throw error;
    }
    if (reply instanceof Promise) return reply.finally(() => this.ended(call));
    this.ended(call);
    return reply;
  }

  /** The route's answer settled; a later answer races the call's time budget. */
  private route(call: Call): Reply | Promise<Reply> {
    if (call.snapshot) call.headers["x-snapshot-id"] = call.snapshot.manifest.id;
    const answered = call.dispatch(call);
    if (!(answered instanceof Promise)) return this.after.settle(call, answered);
    call.work = answered.catch(() => {});
    return this.withinBudget(call, answered).then((answer) => this.after.settle(call, answer));
  }

  /** Elysia routes the call; its routes find the call by the request (`callOf`). */
  private readonly viaApp: Dispatch = (call) => {
    const { request } = call;
    const routed = request.method === "HEAD" ? new Request(request, { method: "GET" }) : request;
    attachCall(routed, call);
    return this.deps.route(routed);
  };

  /** A fast-path route's answer: its body, or the problem it threw. */
  private answerFast(fast: FastMatch, call: Call): Answer | Promise<Answer> {
    try {
      const body = answerFast(fast, call, this.bill);
      if (!(body instanceof Promise)) return body;
      return body.catch((error) => errorResponse(error, call.requestId, this.deps.log));
    } catch (error) {
      return errorResponse(error, call.requestId, this.deps.log);
    }
  }

  /**
   * bill: reserves the route's price for the call (402 when the balance does not cover it), once
   * its parameters are valid and before its handler runs; a heavy route's call then waits for a
   * heavy-call slot. `settle` commits or releases the reservation. The price is the route's own
   * (`price`, worked out from the call) or its endpoint's in the pricing table.
   */
  readonly bill: Bill = (call, route, input) => {
    call.endpoint = route.endpoint;
    if (!call.key) throw new ApiError("unauthorized", "a valid API key is required");
    if (call.snapshot && !route.unversioned) {
      call.etag = entityTag(call.snapshot.manifest.id, call.url);
      call.notModified = matchesIfNoneMatch(call.request.headers.get("if-none-match"), call.etag);
    }
    // A client whose copy is current gets a 304, which costs nothing: no credits are held.
    if (call.notModified) return route.heavy ? this.waitForHeavySlot(call, call.key.user_id) : undefined;
    const price = !route.fastPath && route.price && input ? route.price(input) : PRICING[route.endpoint];
    if (typeof price === "number") return this.reserve(call, route, price);
    return price.then((cost) => this.reserve(call, route, cost));
  };

  /**
   * Holds `cost` credits for the call (402 when the balance does not cover them). A store that
   * answers at once (SQLite) keeps this step synchronous; one that must ask its database
   * (PostgreSQL) is awaited.
   */
  private reserve(call: Call, route: Route, cost: number): void | Promise<void> {
    const key = call.key as NonNullable<Call["key"]>;
    const reserved = this.deps.billing.reserve(key, cost);
    if (!(reserved instanceof Promise)) return this.held(call, route, cost, reserved);
    return reserved.then((result) => {
      // Held after the call was given up (its time budget passed): nobody would settle it.
      if (result.ok && (call.abandoned || call.client.gone())) {
        this.deps.billing.release(result.reservation);
        throw new ApiError(
          "unavailable",
          "the call was abandoned before it ran; it was not charged",
          undefined,
          RETRY,
        );
      }
      return this.held(call, route, cost, result);
    });
  }

  /** The call holds its reservation, or is refused with a 402. */
  private held(call: Call, route: Route, cost: number, reserved: ReserveResult): void | Promise<void> {
    const key = call.key as NonNullable<Call["key"]>;
    if (!reserved.ok) {
      const available = Math.max(0, reserved.available);
      const detail = `this call costs ${cost} credit${cost === 1 ? "" : "s"}; ${available} available`;
      throw new ApiError("insufficient_credits", detail);
    }
    call.reservation = reserved.reservation;
    if (route.heavy) return this.waitForHeavySlot(call, key.user_id);
  }

  private async waitForHeavySlot(call: Call, user: string): Promise<void> {
    call.heavySlot = await this.heavy.enter(user, (withdraw) => {
      call.withdraw = withdraw;
    });
    // Waited past its budget or its client: the answer would be dropped, so no query runs.
    if (!call.heavySlot || call.abandoned || call.client.gone())
      throw new ApiError(
        "unavailable",
        "the call was abandoned before it ran; it was not charged",
        undefined,
        RETRY,
      );
  }

  /** The routed answer, or a 503 when the call exceeds its time budget (then not charged). */
  private withinBudget(call: Call, routed: Promise<Answer>): Promise<Answer> {
    const ms = this.deps.limits.requestTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<Response>((resolve) => {
      timer = setTimeout(() => {
        call.abandoned = true;
        // A call still waiting for a heavy slot leaves the line: its in-flight places go with it.
        call.withdraw?.();
        const error = new ApiError(
          "unavailable",
          `the call took longer than ${ms} ms; it was not charged`,
          undefined,
          RETRY,
        );
        resolve(problemResponse(error, call.requestId));
      }, ms);
    });
    return Promise.race([routed, late]).finally(() => clearTimeout(timer));
  }

  /** Once the call is answered: the resources its routed work holds are given back when that work ends. */
  private ended(call: Call): void {
    // A retry waiting on this call must never wait forever.
    call.idempotency?.abandon();
    // The snapshot stays held until the routed work ends, even past a 503 for a timeout: a
    // query still running must never see its snapshot closed.
    if (call.work) void call.work.then(() => this.release(call));
    else this.release(call);
  }

  private release(call: Call): void {
    // A reservation nobody settled is given back: one made by routed work that outlived its
    // 503, or one whose call failed before its commit.
    if (call.reservation) this.deps.billing.release(call.reservation);
    // A call that ends uncharged has its outcome now; a charged one's comes with its delivery.
    if (!call.charged) call.outcome?.(false);
    const key = call.key;
    if (call.heavySlot && key) this.heavy.leave(key.user_id);
    call.snapshot?.release();
    // A door's REST call holds no places of its own.
    if (key && !call.parent) {
      this.inFlight.leave(key.id);
      this.userInFlight.leave(key.user_id);
    }
  }

  /** The 500 for anything unexpected: it says nothing of its cause (the log has it). */
  private internal(error: unknown, requestId: string): ReturnType<typeof problem> {
    this.deps.log.error("unhandled error at the edge", { request_id: requestId, error: String(error) });
    return problem(INTERNAL, requestId);
  }
}

/** The 429 of a call its key's rate refused, with `Retry-After` and the RateLimit fields. */
function rateRefusal(verdict: Extract<RateVerdict, { ok: false }>): ApiError {
  return rateLimited(verdict.reason, verdict.retryAfterSeconds, rateHeaders(verdict));
}

/** The answer to anything unexpected: it says nothing of its cause (the log has it). */
const INTERNAL = new ApiError(
  "internal",
  "an internal error occurred; quote the request id when reporting it",
);

/** A door's answer with its body read whole (the transport reads it whole anyway). */
async function wholeBody(answer: Response): Promise<Response> {
  if (answer.body === null) return answer;
  const { status, statusText, headers } = answer;
  return new Response(await answer.bytes(), { status, statusText, headers });
}

/** A reply's body read whole, as a door reads a REST answer. */
async function replyBytes(body: Reply["body"]): Promise<Uint8Array> {
  if (body === null) return new Uint8Array();
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof Response) return body.bytes();
  return Buffer.concat(body);
}
