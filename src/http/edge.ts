import type { Billing } from "../accounts/billing.ts";
import type { ApiKeyInfo } from "../accounts/store.ts";
import type { Limits } from "../config.ts";
import { ApiError, problem, problemResponse } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { SnapshotService } from "../query/snapshot.ts";
import { admissionError, countError, rateLimited, unauthorized } from "./admission.ts";
import { type Client, IN_PROCESS, type RequestContext, setContext } from "./context.ts";
import { type BodyBytes, byteLength, type DirectRoute, JSON_TYPE, wholeBody } from "./direct.ts";
import { IdempotencyGate } from "./idempotency.ts";
import { AuthFailureThrottle, FairGate, InFlightLimiter, RateLimiter } from "./limits.ts";
import { type Metrics, routeLabel } from "./metrics.ts";
import { errorResponse } from "./plugins/errors.ts";
import { PRICING } from "./pricing.ts";

/** A direct route's 200 body; made into a Response once, when every header is known. */
class Body {
  constructor(readonly bytes: BodyBytes) {}
}

/** What the routed part answers: a Response (Elysia, errors) or a direct route's body. */
type Answer = Response | Body;

/**
 * A response as the transport writes it: status, header fields and the body (a direct
 * route's bytes as they are, or a routed Response whose body the transport reads); null for
 * HEAD.
 */
export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: BodyBytes | Response | null;
}

/** A value now, or one that comes later. */
type Later<T> = T | Promise<T>;

/**
 * The routed part of a call, after the edge's checks: Elysia's app, or a direct route. May
 * answer synchronously (a direct route always does: no time budget is needed).
 */
type Dispatch = (request: Request, ctx: RequestContext, url: URL) => Later<Answer>;

const statusOf = (answer: Answer) => (answer instanceof Body ? 200 : answer.status);

/** A request as the edge has read it, before it knows the key. */
interface Arrival {
  request: Request;
  url: URL;
  requestId: string;
  startedAt: number;
  client: Client;
}

/** Paths served without a key. */
const PUBLIC = /^\/(health|openapi\.json|docs)(\/.*)?$/;
/** The scheme's case does not matter (RFC 9110 §11.1): `bearer` and `BEARER` are `Bearer`. */
const BEARER = /^Bearer ([\x21-\x7e]{1,200})$/i;

export interface EdgeDeps {
  billing: Billing;
  snapshots: SnapshotService;
  log: Logger;
  metrics: Metrics;
  limits: Limits;
  idempotency: IdempotencyGate;
  /** The routed app (Elysia's `handle`). */
  route: (request: Request) => Promise<Response>;
  now: () => Date;
}

/**
 * The HTTP edge in front of the routed app. For every request: an id; GET/HEAD only; a key
 * (the same 401 for every kind of bad key, and addresses that keep failing are throttled
 * before their keys are even hashed); the per-key rate limit and the per-key and per-user
 * in-flight limits; idempotent retries; the snapshot the request reads; the heavy-call slots;
 * a time budget; once the final status is known, the reservation committed (2xx, before the
 * response is sent) or released; and once the transport says how the response went out, a
 * refund of a debit whose response was not delivered.
 */
export class Edge {
  private readonly rate: RateLimiter;
  private readonly inFlight: InFlightLimiter;
  private readonly userInFlight: InFlightLimiter;
  private readonly heavy: FairGate;
  private readonly authFailures: AuthFailureThrottle;
  /** What `delivered` needs of each response `finish` made, until it is told how it went. */
  private readonly sent = new WeakMap<
    Reply,
    {
      request: Request;
      url: URL;
      ctx: Pick<RequestContext, "requestId" | "startedAt" | "key"> & Partial<RequestContext>;
    }
  >();
  /** The idempotency gate's callbacks of calls that are the first of their retries. */
  private readonly pending = new WeakMap<
    RequestContext,
    { finish: (r: StoredResponse) => void; abandon: () => void }
  >();

  constructor(private readonly deps: EdgeDeps) {
    this.rate = new RateLimiter(deps.limits.ratePerSecond, deps.limits.burst);
    this.inFlight = new InFlightLimiter(deps.limits.maxInFlight);
    this.userInFlight = new InFlightLimiter(deps.limits.maxInFlightPerUser);
    this.heavy = new FairGate(deps.limits.heavySlots);
    this.authFailures = new AuthFailureThrottle(deps.limits.authFailuresPerMinute);
  }

  /**
   * Answers one request. Never throws: anything unexpected becomes a 500 problem+json that
   * says nothing of its cause (the log has it).
   */
  handle(request: Request, client: Client = IN_PROCESS, url = new URL(request.url)): Later<Reply> {
    return this.run(request, url, client, this.viaApp);
  }

  /** The same for a direct route (`directMatcher` matched it and parsed `pathValues`). */
  handleDirect(
    route: DirectRoute,
    request: Request,
    pathValues: Record<string, string>,
    client: Client,
    url: URL,
  ): Later<Reply> {
    return this.run(request, url, client, (_, ctx) => {
      try {
        return new Body(route.answer(ctx, this.deps.billing, pathValues, url));
      } catch (error) {
        return errorResponse(error, ctx.requestId, this.deps.log);
      }
    });
  }

  /** Elysia routes the call; it reads the context the edge attached to the request. */
  private readonly viaApp: Dispatch = (request, ctx) => {
    const routed = request.method === "HEAD" ? new Request(request, { method: "GET" }) : request;
    setContext(routed, ctx);
    return this.deps.route(routed);
  };

  private run(request: Request, url: URL, client: Client, dispatch: Dispatch): Later<Reply> {
    const requestId = crypto.randomUUID();
    const startedAt = performance.now();
    try {
      const response = this.admit(request, url, client, requestId, startedAt, dispatch);
      return response instanceof Promise
        ? response.catch((error) => this.internal(error, requestId))
        : response;
    } catch (error) {
      return this.internal(error, requestId);
    }
  }

  /** The 500 for anything unexpected: it says nothing of its cause (the log has it). */
  private internal(error: unknown, requestId: string): Reply {
    this.deps.log.error("unhandled error at the edge", { request_id: requestId, error: String(error) });
    const internal = new ApiError(
      "internal",
      "an internal error occurred; quote the request id when reporting it",
    );
    return problem(internal, requestId);
  }

  private admit(
    request: Request,
    url: URL,
    client: Client,
    requestId: string,
    startedAt: number,
    dispatch: Dispatch,
  ): Later<Reply> {
    const fail = (error: ApiError, key: ApiKeyInfo | null = null) =>
      this.finish(request, url, problemResponse(error, requestId), { requestId, startedAt, key });
    const refused = admissionError(request, url);
    if (refused) return fail(refused);
    // The docs page names its spec relatively ("openapi.json"): it must be served at /docs.
    if (url.pathname === "/docs/") {
      return this.finish(request, url, Response.redirect("/docs", 308), { requestId, startedAt, key: null });
    }
    if (url.pathname === "/metrics") {
      const metrics = this.deps.metrics.respond(request, requestId);
      return this.finish(request, url, metrics, { requestId, startedAt, key: null });
    }
    const arrival: Arrival = { request, url, requestId, startedAt, client };
    if (PUBLIC.test(url.pathname)) return this.serve(arrival, null, {}, dispatch, () => {});
    const key = this.authenticate(request, client);
    if (!("id" in key)) return fail(key.error);
    const rate = this.rate.take(key.id);
    if (!rate.ok) return fail(rateLimited(rate.reason, rate.retryAfterSeconds, this.rate.headers(0)), key);
    // A bad count is a 400 like any other bad parameter: after the rate limit, before the
    // call takes an in-flight place.
    const badCount = countError(url);
    if (badCount) return fail(badCount, key);
    if (!this.inFlight.enter(key.id))
      return fail(rateLimited("too many calls of this key in flight", 1), key);
    // Per user too: more keys do not buy more concurrent work.
    if (!this.userInFlight.enter(key.user_id)) {
      this.inFlight.leave(key.id);
      return fail(rateLimited("too many calls of this user in flight", 1), key);
    }
    // The in-flight places are given back when the routed work ends, not when a 503 is sent.
    const headers = this.rate.headers(rate.remaining);
    return this.serve(arrival, key, headers, dispatch, () => {
      this.inFlight.leave(key.id);
      this.userInFlight.leave(key.user_id);
    });
  }

  /**
   * The key if valid, else the error to answer with. A key already known to be valid passes
   * at once; any other is refused without being checked while its address is throttled for
   * failing (so a flood of bad keys costs no hashing and never locks out good keys), else
   * checked — every malformed header still costs one hash: one path for every kind of bad key.
   */
  private authenticate(request: Request, client: Client): ApiKeyInfo | { error: ApiError } {
    const presented = BEARER.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
    const now = this.deps.now();
    const known = this.deps.billing.knownKey(presented, now);
    if (known) return known;
    const address = client.address() ?? "unknown";
    const blocked = this.authFailures.blockedFor(address);
    if (blocked > 0)
      return { error: rateLimited("too many failed authentications from this address", blocked) };
    const key = this.deps.billing.authenticate(presented, now);
    if (key) return key;
    this.authFailures.fail(address);
    return { error: unauthorized() };
  }

  /** Runs the routed part with the call's context; `headers` collects what the edge adds to the answer. */
  private serve(
    arrival: Arrival,
    key: ApiKeyInfo | null,
    headers: Record<string, string>,
    dispatch: Dispatch,
    routedWorkDone: () => void,
  ): Later<Reply> {
    const { request, url, requestId, startedAt, client } = arrival;
    const ctx: RequestContext = {
      requestId,
      startedAt,
      key,
      client,
      snapshot: this.deps.snapshots.acquire(),
      endpoint: null,
      reservation: null,
      idempotency: null,
      charged: null,
      enterHeavy: null,
      withdraw: null,
      abandoned: false,
    };
    let heavy = false;
    if (key)
      ctx.enterHeavy = () =>
        this.heavy
          .enter(key.user_id, (withdraw) => {
            ctx.withdraw = withdraw;
          })
          .then((admitted) => {
            heavy = admitted;
            return admitted;
          });
    // The snapshot stays held until the routed work ends, even past a 503 for a timeout:
    // a query still running must never see its snapshot closed.
    let work: Promise<unknown> | null = null;
    const ended = () => {
      // A retry waiting on this call must never wait forever.
      if (ctx.idempotency) this.pending.get(ctx)?.abandon();
      const release = () => {
        // A reservation nobody settled is given back: one made by routed work that outlived
        // its 503, or one whose call failed before its commit.
        if (ctx.reservation) this.deps.billing.release(ctx.reservation);
        if (heavy && key) this.heavy.leave(key.user_id);
        ctx.snapshot?.release();
        routedWorkDone();
      };
      if (work) void work.then(release);
      else release();
    };
    let response: Later<Reply>;
    try {
      const header = key ? request.headers.get("idempotency-key") : null;
      const route = () => {
        const answered = dispatch(request, ctx, url);
        if (!(answered instanceof Promise)) return this.settle(ctx, request, url, answered, headers);
        work = answered.catch(() => {});
        return this.withinBudget(ctx, answered).then((answer) =>
          this.settle(ctx, request, url, answer, headers),
        );
      };
      response =
        key && header !== null
          ? this.beginIdempotent(ctx, key, header, url).then((early) =>
              early ? this.finish(request, url, early, ctx, headers) : route(),
            )
          : route();
    } catch (error) {
      ended();
      throw error;
    }
    if (response instanceof Promise) return response.finally(ended);
    ended();
    return response;
  }

  /** A replayed or refused response for a retried call, or null to run it (this call is the first). */
  private async beginIdempotent(ctx: RequestContext, key: ApiKeyInfo, value: string, url: URL) {
    if (!IdempotencyGate.isValidKey(value)) {
      const error = new ApiError(
        "invalid_parameter",
        "Idempotency-Key: must be 1 to 255 visible ASCII characters",
        [{ in: "header", name: "Idempotency-Key", message: "must be 1 to 255 visible ASCII characters" }],
      );
      return problemResponse(error, ctx.requestId);
    }
    const hash = IdempotencyGate.requestHash(url);
    const decision = await this.deps.idempotency.decide(key.user_id, value, hash);
    if (decision.kind === "conflict") {
      const error = new ApiError(
        "idempotency_conflict",
        "this Idempotency-Key was used with other parameters",
      );
      return problemResponse(error, ctx.requestId);
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
    ctx.idempotency = { key: value, hash };
    this.pending.set(ctx, decision);
    return null;
  }

  /** The routed answer, or a 503 when the call exceeds its time budget (then not charged). */
  private withinBudget(ctx: RequestContext, routed: Promise<Answer>): Promise<Answer> {
    const ms = this.deps.limits.requestTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<Response>((resolve) => {
      timer = setTimeout(() => {
        ctx.abandoned = true;
        // A call still waiting for a heavy slot leaves the line: its in-flight places go with it.
        ctx.withdraw?.();
        const error = new ApiError("unavailable", `the call took longer than ${ms} ms; it was not charged`);
        resolve(problemResponse(error, ctx.requestId));
      }, ms);
    });
    return Promise.race([routed, late]).finally(() => clearTimeout(timer));
  }

  /**
   * Commits the reservation of a 2xx (with the response, for an idempotent call, in the same
   * transaction) or releases it; a client that has gone away is not charged. Adds the credit
   * headers to `headers`. The commit comes before the response is sent, so that every 2xx a
   * client receives has its debit even if the process dies; `delivered` refunds a debit
   * whose response did not reach the client's socket.
   */
  private settle(
    ctx: RequestContext,
    request: Request,
    url: URL,
    answer: Answer,
    headers: Record<string, string>,
  ): Later<Reply> {
    const reservation = ctx.reservation;
    const status = statusOf(answer);
    const ok = status >= 200 && status <= 299 && !ctx.client.gone();
    const released = (sent: Answer) => {
      if (ctx.idempotency) this.pending.get(ctx)?.abandon();
      // `finish` says the call was not charged, with the balance after this release.
      if (reservation) this.deps.billing.release(reservation);
      return this.finish(request, url, sent, ctx, headers);
    };
    if (!reservation || !ctx.endpoint || !ok) return released(answer);
    const endpoint = ctx.endpoint;
    const commit = (stored?: StoredResponse, sent: Answer = answer) =>
      this.deps.billing.commit(reservation, endpoint, ctx.requestId, stored).then((committed) => {
        const waiting = ctx.idempotency ? this.pending.get(ctx) : undefined;
        if (!committed.ok) {
          waiting?.abandon();
          const refused = new ApiError("insufficient_credits", "the balance no longer covers this call");
          return this.finish(request, url, problemResponse(refused, ctx.requestId), ctx, headers);
        }
        if (stored) waiting?.finish(stored);
        this.pending.delete(ctx);
        ctx.charged = { day: committed.day };
        headers["x-credits-charged"] = String(PRICING[endpoint]);
        headers["x-credits-remaining"] = String(committed.remaining);
        return this.finish(request, url, sent, ctx, headers);
      });
    const idempotency = ctx.idempotency;
    if (answer instanceof Body && !idempotency) return commit();
    const contentType = answer instanceof Body ? JSON_TYPE : answer.headers.get("content-type");
    // A client that left while the body was read is not charged either.
    return readWhole(answer).then(([body, sent]) =>
      ctx.client.gone()
        ? released(sent)
        : commit(
            idempotency
              ? {
                  key: idempotency.key,
                  request_hash: idempotency.hash,
                  status,
                  content_type: contentType,
                  body,
                }
              : undefined,
            sent,
          ),
    );
  }

  /**
   * Reports how a response went out: a charged call whose response was not delivered is
   * refunded, and the metrics and the request log count what the ledger holds for it.
   */
  delivered(reply: Reply, delivered: boolean): void {
    const call = this.sent.get(reply);
    if (!call) return;
    this.sent.delete(reply);
    const { request, url, ctx } = call;
    const status = reply.status;
    const endpoint = ctx.endpoint ?? null;
    let credits = 0;
    if (ctx.charged && ctx.reservation && endpoint) {
      credits = PRICING[endpoint];
      // An idempotent call's response is remembered with its debit (and may already have been
      // replayed to a retry): its retry gets it free, so the debit stands.
      if (!delivered && !ctx.idempotency) {
        try {
          this.deps.billing.refund(ctx.reservation, endpoint, ctx.requestId, ctx.charged.day);
          credits = 0;
        } catch (error) {
          this.deps.log.error("refund failed: the call stays charged", {
            request_id: ctx.requestId,
            error: String(error),
          });
        }
      }
    }
    const ms = performance.now() - ctx.startedAt;
    this.deps.metrics.observe(routeLabel(endpoint, url.pathname), status, credits, ms / 1000);
    const level = status >= 500 ? "error" : "info";
    if (this.deps.log.enabled(level)) {
      this.deps.log[level]("request", {
        request_id: ctx.requestId,
        method: request.method,
        route: endpoint,
        path: url.pathname.slice(0, 200),
        status,
        key_prefix: ctx.key?.prefix ?? null,
        credits,
        delivered,
        ms: Math.round(ms * 100) / 100,
      });
    }
  }

  /**
   * The reply to send: the answer with the edge's headers; no body for HEAD. `delivered` logs
   * and counts it once the transport has sent it.
   */
  private finish(
    request: Request,
    url: URL,
    answer: Answer,
    ctx: Pick<RequestContext, "requestId" | "startedAt" | "key"> & Partial<RequestContext>,
    headers: Record<string, string> = {},
  ): Reply {
    headers["x-request-id"] = ctx.requestId;
    const status = statusOf(answer);
    // An authenticated call that was not charged says so, with what the key's user has left.
    if (ctx.key && headers["x-credits-charged"] === undefined) {
      headers["x-credits-charged"] = "0";
      headers["x-credits-remaining"] = String(this.deps.billing.available(ctx.key.user_id));
    }
    const head = request.method === "HEAD";
    let reply: Reply;
    if (answer instanceof Body) {
      headers["content-type"] = JSON_TYPE;
      // HEAD: the length the GET's body would have.
      if (head) headers["content-length"] = String(byteLength(answer.bytes));
      reply = { status, headers, body: head ? null : answer.bytes };
    } else {
      const all: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        all[name] = value;
      });
      reply = { status, headers: Object.assign(all, headers), body: head ? null : answer };
    }
    this.sent.set(reply, { request, url, ctx });
    return reply;
  }
}

/**
 * An answer's body read once (an idempotent call's record keeps it), and the answer to send,
 * rebuilt around those bytes.
 */
async function readWhole(answer: Answer): Promise<[Uint8Array, Answer]> {
  if (answer instanceof Body) return [await new Blob([wholeBody(answer.bytes)]).bytes(), answer];
  const bytes = await answer.bytes();
  return [bytes, new Response(bytes, { status: answer.status, headers: answer.headers })];
}

type StoredResponse = NonNullable<Parameters<Billing["commit"]>[3]>;
