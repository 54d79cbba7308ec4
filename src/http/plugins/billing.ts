import { Elysia } from "elysia";
import type { Billing } from "../../accounts/billing.ts";
import { ApiError } from "../../errors.ts";
import { contextOf, type RequestContext } from "../context.ts";
import { type Endpoint, HEAVY, PRICING } from "../pricing.ts";

/**
 * Auth + billing for routes: `{ billed: "profile" }` on a route reserves that endpoint's
 * price after validation and before the handler; a heavy endpoint's call then waits for a
 * heavy-call slot (limits.ts FairGate). The HTTP edge (edge.ts) authenticated the
 * key and, once the final status is known, commits the reservation (2xx) or releases it.
 */
export function billingPlugin(billing: Billing) {
  return new Elysia({ name: "billing" }).macro({
    billed(endpoint: Endpoint) {
      if (!HEAVY.has(endpoint))
        return {
          beforeHandle({ request }: { request: Request }) {
            reserveCall(billing, contextOf(request), endpoint);
          },
        };
      return {
        async beforeHandle({ request }: { request: Request }) {
          const ctx = contextOf(request);
          reserveCall(billing, ctx, endpoint);
          const admitted = (await ctx.enterHeavy?.()) ?? true;
          // Waited past its budget or its client: the answer would be dropped, so no query runs.
          if (!admitted || ctx.abandoned || ctx.client.gone())
            throw new ApiError("unavailable", "the call was abandoned before it ran; it was not charged");
        },
      };
    },
  });
}

/**
 * Reserves the price of `endpoint` for the call (402 when the balance does not cover it);
 * the edge commits it for a 2xx and releases it otherwise. Every billed route passes here.
 */
export function reserveCall(billing: Billing, ctx: RequestContext, endpoint: Endpoint): void {
  ctx.endpoint = endpoint;
  if (!ctx.key) throw new ApiError("unauthorized", "a valid API key is required");
  const cost = PRICING[endpoint];
  const reserved = billing.reserve(ctx.key, cost);
  if (!reserved.ok) {
    throw new ApiError(
      "insufficient_credits",
      `this call costs ${cost} credit${cost === 1 ? "" : "s"}; ${Math.max(0, reserved.available)} available`,
    );
  }
  ctx.reservation = reserved.reservation;
}
