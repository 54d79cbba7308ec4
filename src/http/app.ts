import { Elysia } from "elysia";
import type { Billing } from "../accounts/billing.ts";
import type { AccountsStore } from "../accounts/store.ts";
import { ApiError, problemResponse } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { SnapshotService } from "../query/snapshot.ts";
import { type RequestContext, setContext } from "./context.ts";
import { docsPlugin } from "./docs.ts";
import { errorsPlugin } from "./plugins/errors.ts";
import { PRICING } from "./pricing.ts";
import { calendarRoutes } from "./routes/calendar.ts";
import { derivedRoutes } from "./routes/derived.ts";
import { filingsRoutes } from "./routes/filings.ts";
import { securitiesRoutes } from "./routes/securities.ts";
import { statementsRoutes } from "./routes/statements.ts";
import { stocksRoutes } from "./routes/stocks.ts";
import { systemRoutes } from "./routes/system.ts";

export interface AppDeps {
  accounts: AccountsStore;
  billing: Billing;
  snapshots: SnapshotService;
  log: Logger;
  version: string;
  now?: () => Date;
}

/** Paths served without a key. */
const PUBLIC = /^\/(health|openapi\.json|docs)(\/.*)?$/;
const MAX_URL_LENGTH = 2048;
const BEARER = /^Bearer ([\x21-\x7e]{1,200})$/;
const ALLOW = "GET, HEAD";

/**
 * The Elysia app (routes, validation, OpenAPI) behind the HTTP edge. The edge gives every
 * request an id, refuses methods other than GET/HEAD, authenticates the key before any route
 * runs (the same 401 for every kind of bad key), pins the snapshot the request reads, and —
 * once the final status is known — commits the credit reservation (2xx) or releases it.
 */
export function createApp(deps: AppDeps) {
  const now = deps.now ?? (() => new Date());
  const app = new Elysia()
    .use(errorsPlugin(deps.log))
    .use(docsPlugin(deps.version))
    .use(systemRoutes(deps.billing, deps.accounts))
    .use(securitiesRoutes(deps.billing))
    .use(stocksRoutes(deps.billing))
    .use(filingsRoutes(deps.billing))
    .use(statementsRoutes(deps.billing))
    .use(derivedRoutes(deps.billing))
    .use(calendarRoutes(deps.billing));

  async function handle(request: Request): Promise<Response> {
    const requestId = crypto.randomUUID();
    const startedAt = performance.now();
    const refused = refuse(request, requestId);
    if (refused) return finish(request, refused, null, startedAt);
    const url = new URL(request.url);
    const key = PUBLIC.test(url.pathname) ? null : authenticate(request, now());
    if (key === undefined) {
      const error = new ApiError(
        "unauthorized",
        "a valid API key is required: Authorization: Bearer <key>",
        undefined,
        {
          "www-authenticate": 'Bearer realm="stockd", error="invalid_token"',
        },
      );
      return finish(request, problemResponse(error, requestId), null, startedAt);
    }
    const routed = request.method === "HEAD" ? new Request(request, { method: "GET" }) : request;
    const ctx: RequestContext = {
      requestId,
      startedAt,
      key,
      snapshot: deps.snapshots.acquire(),
      endpoint: null,
      reservation: null,
    };
    setContext(routed, ctx);
    try {
      const response = await settle(ctx, await app.handle(routed));
      return finish(request, response, ctx, startedAt);
    } finally {
      ctx.snapshot?.release();
    }
  }

  function refuse(request: Request, requestId: string): Response | null {
    if (request.method !== "GET" && request.method !== "HEAD") {
      const error = new ApiError(
        "method_not_allowed",
        `${request.method} is not allowed; this API is read-only`,
        undefined,
        { allow: ALLOW },
      );
      return problemResponse(error, requestId);
    }
    // The docs page names its spec relatively ("openapi.json"): it must be served at /docs.
    if (new URL(request.url).pathname === "/docs/") {
      return new Response(null, { status: 308, headers: { location: "/docs", "x-request-id": requestId } });
    }
    if (request.url.length > MAX_URL_LENGTH) {
      return problemResponse(
        new ApiError("invalid_parameter", `the URL is longer than ${MAX_URL_LENGTH} characters`),
        requestId,
      );
    }
    return null;
  }

  /** The key if valid, null for public paths, undefined for any bad or missing key. */
  function authenticate(request: Request, at: Date) {
    const match = BEARER.exec(request.headers.get("authorization") ?? "");
    // Every malformed header still costs one hash, so all bad keys take the same path.
    return deps.billing.authenticate(match?.[1] ?? "", at) ?? undefined;
  }

  /** Commits the reservation on 2xx, releases it otherwise; adds the credit headers. */
  async function settle(ctx: RequestContext, response: Response): Promise<Response> {
    const reservation = ctx.reservation;
    if (!reservation || !ctx.endpoint) return response;
    if (response.status < 200 || response.status > 299) {
      deps.billing.release(reservation);
      response.headers.set("x-credits-charged", "0");
      response.headers.set("x-credits-remaining", String(deps.billing.available(reservation.userId)));
      return response;
    }
    const committed = await deps.billing.commit(reservation, ctx.endpoint, ctx.requestId);
    if (!committed.ok) {
      const error = new ApiError("insufficient_credits", "the balance no longer covers this call");
      return problemResponse(error, ctx.requestId);
    }
    response.headers.set("x-credits-charged", String(PRICING[ctx.endpoint]));
    response.headers.set("x-credits-remaining", String(committed.remaining));
    return response;
  }

  function finish(
    request: Request,
    response: Response,
    ctx: RequestContext | null,
    startedAt: number,
  ): Response {
    const requestId = ctx?.requestId ?? response.headers.get("x-request-id") ?? "";
    response.headers.set("x-request-id", requestId);
    const status = response.status;
    deps.log[status >= 500 ? "error" : "info"]("request", {
      request_id: requestId,
      method: request.method,
      route: ctx?.endpoint ?? null,
      path: new URL(request.url).pathname.slice(0, 200),
      status,
      key_prefix: ctx?.key?.prefix ?? null,
      credits: status < 300 && ctx?.endpoint ? PRICING[ctx.endpoint] : 0,
      ms: Math.round((performance.now() - startedAt) * 100) / 100,
    });
    if (request.method === "HEAD") return new Response(null, { status, headers: response.headers });
    return response;
  }

  return { app, handle };
}
