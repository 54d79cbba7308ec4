import { Elysia } from "elysia";
import type { Billing } from "../accounts/billing.ts";
import type { AccountsStore } from "../accounts/store.ts";
import type { Limits } from "../config.ts";
import type { Logger } from "../log.ts";
import type { SnapshotService } from "../query/snapshot.ts";
import { docsPlugin } from "./docs.ts";
import { Edge } from "./edge.ts";
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

/** A handler of Bun's router: the request with its path parameters, and how to ask its client address. */
export type DirectHandler = (
  request: Request & { params: Record<string, string> },
  addressOf: () => string | undefined,
) => Response | Promise<Response>;

/**
 * The Elysia app (routes, validation, OpenAPI) and the edge every request passes first
 * (edge.ts). `handle(request, address)` is what the server's fetch calls; `direct` maps the
 * paths of the direct routes (direct.ts) to their handlers, for Bun's router, which the
 * server puts before `handle`. Nothing listens here.
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
  const direct: Record<string, DirectHandler> = {};
  for (const route of [profileRoute, priceRoute, ...derivedDirectRoutes]) {
    direct[route.definition.path] = (request, addressOf) =>
      edge.handleDirect(route, request, request.params, addressOf);
  }
  return {
    app,
    idempotency,
    direct,
    handle: (request: Request, addressOf?: () => string | undefined) => edge.handle(request, addressOf),
  };
}
