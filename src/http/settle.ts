import type { Biller } from "../accounts/seam.ts";
import { ApiError, problemResponse } from "../errors.ts";
import type { Logger } from "../log.ts";
import { type Answer, Body, byteLength, isStreamed, readWhole, statusOf } from "./body.ts";
import type { Call, Reply, StoredResponse } from "./context.ts";
import { type Metrics, routeLabel } from "./metrics.ts";

/**
 * What follows a call's answer, the edge's last steps: settle (the reservation committed for a
 * 2xx, else released), the reply made with the edge's header fields (`finish`), and once the
 * transport says how the reply went out, a refund of a debit whose response was not
 * delivered, the metrics and the request log (`delivered`).
 */
export class Settlement {
  /** The call of each reply `finish` made, until `delivered` is told how it went. */
  private readonly sent = new WeakMap<Reply, Call>();

  constructor(private readonly deps: { billing: Biller; metrics: Metrics; log: Logger }) {}

  /**
   * settle: commits the reservation of a 2xx (with the response, for an idempotent call, in the
   * same transaction) or releases it; a client that has gone away is not charged. The commit
   * comes before the response is sent, so that every 2xx a client receives has its debit even
   * if the process dies; `delivered` refunds a debit whose response did not reach the client.
   */
  settle(call: Call, answered: Answer): Reply | Promise<Reply> {
    const answer = this.conditional(call, answered);
    const status = statusOf(answer);
    const ok = status >= 200 && status <= 299 && !call.client.gone();
    if (!call.reservation || !call.endpoint || !ok) return this.released(call, answer);
    // A streamed file (an export) is too large to remember for an Idempotency-Key: its
    // retries are not replayed (an export's repeats are free for a while anyway).
    if (isStreamed(answer)) {
      call.idempotency?.abandon();
      call.idempotency = null;
      return this.commit(call, answer);
    }
    const first = call.idempotency;
    if (answer instanceof Body && !first) return this.commit(call, answer);
    const contentType = answer instanceof Body ? answer.type : answer.headers.get("content-type");
    // A client that left while the body was read is not charged either.
    return readWhole(answer).then(([body, sent]) => {
      if (call.client.gone()) return this.released(call, sent);
      const stored = first
        ? { key: first.key, request_hash: first.hash, status, content_type: contentType, body }
        : undefined;
      return this.commit(call, sent, stored);
    });
  }

  /**
   * A 2xx answer with an entity tag carries it (`ETag`); it becomes a 304 without a body, and
   * then is not charged like any answer but a 2xx, when the client's `If-None-Match` names it.
   */
  private conditional(call: Call, answer: Answer): Answer {
    const status = statusOf(answer);
    if (!call.etag || status < 200 || status > 299) return answer;
    call.headers.etag = call.etag;
    return call.notModified ? new Response(null, { status: 304 }) : answer;
  }

  /** The answer of a call that is not charged: its reservation given back. */
  private released(call: Call, sent: Answer): Reply {
    call.idempotency?.abandon();
    // `finish` says the call was not charged, with the balance after this release.
    if (call.reservation) this.deps.billing.release(call.reservation);
    return this.finish(call, sent);
  }

  /** The debit committed, with the credits' header fields; a 402 when the balance no longer covers it. */
  private async commit(call: Call, sent: Answer, stored?: StoredResponse): Promise<Reply> {
    const endpoint = call.endpoint as NonNullable<Call["endpoint"]>;
    const reservation = call.reservation as NonNullable<Call["reservation"]>;
    const ledgerName = call.ledgerName ?? endpoint;
    const committed = await this.deps.billing.commit(reservation, ledgerName, call.requestId, stored);
    if (!committed.ok) {
      call.idempotency?.abandon();
      const refused = new ApiError("insufficient_credits", "the balance no longer covers this call");
      return this.finish(call, problemResponse(refused, call.requestId));
    }
    if (stored) call.idempotency?.finish(stored);
    call.charged = { day: committed.day };
    call.headers["x-credits-charged"] = String(reservation.cost);
    call.headers["x-credits-remaining"] = String(committed.remaining);
    return this.finish(call, sent);
  }

  /**
   * The reply to send: the answer with the edge's header fields; no body for HEAD. `delivered`
   * logs and counts it once the transport has sent it.
   */
  finish(call: Call, answer: Answer): Reply {
    const headers = call.headers;
    headers["x-request-id"] = call.requestId;
    const status = statusOf(answer);
    // An authenticated call that was not charged says so (a door call: what its REST calls
    // were charged), with what the key's user has left.
    if (call.key && headers["x-credits-charged"] === undefined) {
      const made = call.made.reduce((sum, reply) => sum + Number(reply.headers["x-credits-charged"] ?? 0), 0);
      headers["x-credits-charged"] = String(made);
      headers["x-credits-remaining"] = String(this.deps.billing.available(call.key.user_id));
    }
    // HEAD and a 304 have no body (and a 304 no Content-Length of its own: RFC 9110 §15.4.5).
    const head = call.request.method === "HEAD" || status === 304;
    let reply: Reply;
    if (answer instanceof Body) {
      headers["content-type"] = answer.type;
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
    this.sent.set(reply, call);
    return reply;
  }

  /**
   * Reports how a response went out: a charged call whose response was not delivered is
   * refunded, and the metrics and the request log count what the ledger holds for it.
   */
  delivered(reply: Reply, delivered: boolean): void {
    const call = this.sent.get(reply);
    if (!call) return;
    this.sent.delete(reply);
    // A door call's REST calls were delivered with it, or not at all.
    for (const made of call.made) this.delivered(made, delivered);
    const { status } = reply;
    const { endpoint, reservation, charged } = call;
    let credits = 0;
    if (charged && reservation && endpoint) {
      credits = reservation.cost;
      // An idempotent call's response is remembered with its debit (and may already have been
      // replayed to a retry): its retry gets it free, so the debit stands.
      if (!delivered && !call.idempotency) {
        try {
          this.deps.billing.refund(reservation, call.ledgerName ?? endpoint, call.requestId, charged.day);
          credits = 0;
        } catch (error) {
          this.deps.log.error("refund failed: the call stays charged", {
            request_id: call.requestId,
            error: String(error),
          });
        }
      }
    }
    call.outcome?.(credits > 0);
    const ms = performance.now() - call.startedAt;
    const route = endpoint ?? call.door?.name ?? null;
    this.deps.metrics.observe(routeLabel(route, call.url.pathname), status, credits, ms / 1000);
    const level = status >= 500 ? "error" : "info";
    if (this.deps.log.enabled(level)) {
      this.deps.log[level]("request", {
        request_id: call.requestId,
        method: call.request.method,
        route,
        path: call.url.pathname.slice(0, 200),
        status,
        key_prefix: call.key?.prefix ?? null,
        credits,
        delivered,
        ms: Math.round(ms * 100) / 100,
      });
    }
  }
}
