import { Elysia } from "elysia";
import type { Accounts, Biller } from "../accounts/seam.ts";
import type { Limits } from "../config.ts";
import type { Logger } from "../log.ts";
import type { SnapshotService } from "../query/snapshot.ts";
import type { FollowStatus } from "../snapshot/follow.ts";
import type { Reply } from "./context.ts";
import { type Client, IN_PROCESS } from "./context.ts";
import { docsPlugin } from "./docs.ts";
import { bodyLimit, type Door } from "./doors.ts";
import { Edge } from "./edge.ts";
import { fastPathMatcher } from "./fast-path.ts";
import { IdempotencyGate } from "./idempotency.ts";
import { type KeyRate, RateLimiter } from "./limits.ts";
import { Metrics } from "./metrics.ts";
import { errorsPlugin } from "./plugins/errors.ts";
import { type Route, routesPlugin } from "./route.ts";
import { batchRoutes } from "./routes/batch.ts";
import { dataRoutes } from "./routes/data.ts";
import { exportRoutes } from "./routes/exports.ts";
import { screenerRoutes } from "./routes/screener.ts";
import { systemRoutes } from "./routes/system.ts";

interface AppDeps {
  accounts: Accounts;
  billing: Biller;
  snapshots: SnapshotService;
  log: Logger;
  version: string;
  limits: Limits;
  /**
   * The per-key rate (server.ts: this replica's share, or the count shared in Redis); absent,
   * a token bucket of `limits` in this process.
   */
  rate?: KeyRate;
  /** Enables `GET /metrics` behind this bearer token; absent or null: /metrics is a 404. */
  metricsToken?: string | null;
  /** The state of the snapshot source this replica follows, for /health; absent: none. */
  snapshotSource?: (() => FollowStatus) | undefined;
  /** More families for `GET /metrics`, rendered at each scrape. */
  moreMetrics?: () => string[];
  /** The paths outside the REST API that take their own methods and bodies (doors.ts). */
  doors?: readonly Door[];
  now?: () => Date;
}

/**
 * The app: every route (routes/, each defined once with `defineRoute`), Elysia holding them all
 * (validation, OpenAPI), and the edge every request passes first (edge.ts). `handle(request,
 * client)` answers a request: a fast-path route's path goes straight to the edge's matcher
 * (fast-path.ts), any other through Elysia; `delivered` is the edge's report of how the
 * response went out. Nothing listens here.
 */
export function createApp(deps: AppDeps) {
  const rate = deps.rate ?? new RateLimiter(deps.limits.ratePerSecond, deps.limits.burst);
  const metrics = new Metrics({
    token: deps.metricsToken ?? null,
    rate,
    snapshot: () => deps.snapshots.current()?.manifest ?? null,
    version: deps.version,
    more: deps.moreMetrics,
  });
  const routes: Route[] = [
    ...systemRoutes(deps.billing, deps.accounts, deps.snapshotSource),
    ...dataRoutes,
    ...screenerRoutes,
    ...exportRoutes(deps.accounts, deps.log),
  ];
  routes.push(...batchRoutes(routes));
  const idempotency = new IdempotencyGate(deps.accounts);
  const fastPath = fastPathMatcher(routes);
  const doors = deps.doors ?? [];
  const edge = new Edge({
    billing: deps.billing,
    snapshots: deps.snapshots,
    log: deps.log,
    metrics,
    limits: deps.limits,
    rate,
    idempotency,
    route: (request): Promise<Response> => app.handle(request),
    fastPath,
    doors,
    now: deps.now ?? (() => new Date()),
  });
  const app = new Elysia()
    .use(errorsPlugin(deps.log))
    .use(docsPlugin(deps.version))
    .use(routesPlugin(routes, edge.bill, deps.billing.waits));
  return {
    app,
    idempotency,
    handle(request: Request, client: Client = IN_PROCESS) {
      const url = new URL(request.url);
      return edge.handle(request, client, url, fastPath(url.pathname));
    },
    delivered: (reply: Reply, delivered: boolean) => edge.delivered(reply, delivered),
    /** A REST GET served in-process in the name of a presented key (Edge.restAs). */
    restAs: (presented: string, target: string, ledgerName: string) =>
      edge.restAs(presented, target, ledgerName),
    /** Whether the transport reads a request's body, and up to how many bytes (doors.ts). */
    bodyLimit: (pathname: string, method: string) => bodyLimit(doors, pathname, method),
    /**
     * Every path through Elysia, the fast-path routes' too (Elysia holds every route): the tests
     * hold both ways to the same answers.
     */
    viaElysia: (request: Request, client: Client = IN_PROCESS) => edge.handle(request, client),
  };
}
