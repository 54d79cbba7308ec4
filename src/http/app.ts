import { Elysia } from "elysia";
import type { Billing } from "../accounts/billing.ts";
import type { AccountsStore } from "../accounts/store.ts";
import type { Limits } from "../config.ts";
import type { Logger } from "../log.ts";
import type { SnapshotService } from "../query/snapshot.ts";
import { type Client, IN_PROCESS } from "./context.ts";
import { directMatcher } from "./direct.ts";
import { docsPlugin } from "./docs.ts";
import { Edge, type Reply } from "./edge.ts";
import { IdempotencyGate } from "./idempotency.ts";
import { Metrics } from "./metrics.ts";
import { errorsPlugin } from "./plugins/errors.ts";
import { calendarRoutes } from "./routes/calendar.ts";
import { derivedDirectRoutes, derivedRoutes } from "./routes/derived.ts";
import { filingsRoutes } from "./routes/filings.ts";
import { securitiesRoutes } from "./routes/securities.ts";
import { statementsRoutes } from "./routes/statements.ts";
import { priceRoute, profileRoute, stocksRoutes } from "./routes/stocks.ts";
import { systemRoutes } from "./routes/system.ts";

export interface AppDeps {
  accounts: AccountsStore;
  billing: Billing;
  snapshots: SnapshotService;
  log: Logger;
  version: string;
  limits: Limits;
  /** Enables `GET /metrics` behind this bearer token; absent or null: /metrics is a 404. */
  metricsToken?: string | null;
  now?: () => Date;
}

/**
 * The Elysia app (routes, validation, OpenAPI) and the edge every request passes first
 * (edge.ts). `handle(request, client)` answers a request: a direct route's path (direct.ts)
 * goes straight to the edge, any other through Elysia; `delivered` is the edge's report of
 * how the response went out. Nothing listens here.
 */
export function createApp(deps: AppDeps) {
  const metrics = new Metrics({
    token: deps.metricsToken ?? null,
    snapshot: () => deps.snapshots.current()?.manifest ?? null,
    version: deps.version,
  });
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
  const idempotency = new IdempotencyGate(deps.accounts);
  const edge = new Edge({
    billing: deps.billing,
    snapshots: deps.snapshots,
    log: deps.log,
    metrics,
    limits: deps.limits,
    idempotency,
    route: (request) => app.handle(request),
    now: deps.now ?? (() => new Date()),
  });
  const direct = directMatcher([profileRoute, priceRoute, ...derivedDirectRoutes]);
  return {
    app,
    idempotency,
    handle(request: Request, client: Client = IN_PROCESS) {
      const url = new URL(request.url);
      const match = direct(url.pathname);
      return match
        ? edge.handleDirect(match.route, request, match.params, client, url)
        : edge.handle(request, client, url);
    },
    delivered: (reply: Reply, delivered: boolean) => edge.delivered(reply, delivered),
    /**
     * Every path through Elysia, the direct routes' too (Elysia holds their definitions for
     * the OpenAPI document): the tests hold both ways to the same answers.
     */
    viaElysia: (request: Request, client: Client = IN_PROCESS) => edge.handle(request, client),
  };
}
