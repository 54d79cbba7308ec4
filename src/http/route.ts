import type { Static, TObject, TSchema } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import type { LoadedSnapshot } from "../query/snapshot.ts";
import { SNAPSHOT_ID_PATTERN } from "../snapshot/store.ts";
import { Body, type BodyBytes, wholeBody } from "./body.ts";
import { type Call, callOf } from "./context.ts";
import { CSV_TYPE, csvOf, FormatParam, parseBody, type Tabular } from "./csv.ts";
import { errorResponses } from "./models/common.ts";
import { queryParams, requireSnapshot } from "./params.ts";
import { type Endpoint, PRICING } from "./pricing.ts";

/** A parameters object's values as its schema types them; none without a schema. */
type ValuesOf<S> = S extends TObject ? Static<S> : Record<string, never>;

/** A route's path or query parameters schema, if it takes any. */
type ParamsSchema = TObject | undefined;

/** What a route's handler is given. */
interface RouteInput<P extends ParamsSchema, Q extends ParamsSchema> {
  /** The path parameters, valid by the route's schema. */
  readonly params: ValuesOf<P>;
  /** The query parameters, valid by the route's schema, defaults filled in. */
  readonly query: ValuesOf<Q>;
  /** The snapshot the call reads: 503 when none is active. */
  readonly snapshot: LoadedSnapshot;
  readonly call: Call;
}

interface RouteBase<P extends ParamsSchema, Q extends ParamsSchema, R extends TSchema> {
  /** The path, `:name` for a path parameter. */
  path: string;
  /**
   * The operation's name in the pricing table. A call costs `PRICING[endpoint]` credits (shown in
   * the OpenAPI document as `x-credit-cost`): reserved once its parameters are valid, before the
   * handler runs (402 when the balance does not cover it; edge.ts `bill`); charged when the
   * answer is a 2xx, before the response is sent (`settle`); given back for any other answer,
   * and refunded when the response was not delivered (`delivered`).
   */
  endpoint: Endpoint;
  /** No key needed, nothing billed: only /health. */
  public?: true;
  params?: P;
  /** Built with `queryParams` (params.ts): a parameter with a default is not required. */
  query?: Q;
  /** The 200 body's schema (the error bodies are problem+json). */
  response: R;
  /**
   * A tabular endpoint: where its rows are in the 200 body. It takes `format=csv` (csv.ts),
   * which answers those rows as CSV at the same price.
   */
  csv?: Tabular<Static<R>>;
  /**
   * The answer depends on more than the snapshot and the request (e.g. the caller's balance):
   * it carries no `ETag` and is never a 304.
   */
  unversioned?: true;
  summary: string;
  description?: string;
}

/** A route served through Elysia, which validates its parameters and serialises its answer. */
interface RoutedDefinition<P extends ParamsSchema, Q extends ParamsSchema, R extends TSchema>
  extends RouteBase<P, Q, R> {
  fastPath?: false;
  /**
   * Answered by a query over the snapshot's tables: once its price is reserved, the call waits
   * its turn for one of the heavy-call slots (limits.ts FairGate).
   */
  heavy?: true;
  /**
   * The call's price when it depends on the request (an export's size, a batch's symbols found;
   * pricing.ts states each rule): worked out once the parameters are valid, before anything is
   * reserved. Without it a call costs `PRICING[endpoint]`.
   */
  price?(input: RouteInput<P, Q>): number | Promise<number>;
  handler(input: RouteInput<P, Q>): Static<R> | Response | Promise<Static<R> | Response>;
}

/**
 * A route on the fast path: matched, validated and answered by the edge without Elysia's
 * per-call work (fast-path.ts); Elysia holds it too, for the OpenAPI document. Its parameters
 * are strings; its handler answers at once, from the snapshot's memory, with JSON text.
 */
interface FastPathDefinition<P extends ParamsSchema, Q extends ParamsSchema, R extends TSchema>
  extends RouteBase<P, Q, R> {
  fastPath: true;
  heavy?: false;
  handler(input: RouteInput<P, Q>): BodyBytes;
}

/** A route as the app holds it: its parameters' types erased. */
export type Route =
  | RoutedDefinition<ParamsSchema, ParamsSchema, TSchema>
  | FastPathDefinition<ParamsSchema, ParamsSchema, TSchema>;

/** `?snapshot=ID`: the call reads that snapshot, if it is still on disk, instead of the active one. */
const SnapshotParam = t.Optional(
  t.String({
    pattern: SNAPSHOT_ID_PATTERN,
    description:
      "answer from this snapshot (an earlier answer's X-Snapshot-Id) instead of the active one, for reproducible results; 404 when it is no longer on disk",
    error: "snapshot: must be a snapshot id, as an answer's X-Snapshot-Id gives it",
  }),
);

/**
 * The one way to define an endpoint: its path, typed parameters, response schema, price and
 * handler. The app mounts it in Elysia (validation and the OpenAPI document) and, when it is on
 * the fast path, in the edge's own matcher.
 */
export function defineRoute<
  R extends TSchema,
  P extends ParamsSchema = undefined,
  Q extends ParamsSchema = undefined,
>(definition: RoutedDefinition<P, Q, R> | FastPathDefinition<P, Q, R>): Route {
  if (definition.public || definition.unversioned) return definition as Route;
  // `snapshot` (read by the edge) and `format` are checked like any parameter; the handlers
  // never read them.
  const query = queryParams({
    ...(definition.query?.properties ?? {}),
    snapshot: SnapshotParam,
    ...(definition.csv ? { format: FormatParam } : {}),
  });
  return { ...definition, query } as Route;
}

/** A fast-path route's 200 body: the handler's JSON, or its rows as CSV when the call asks for them. */
export function fastBody(route: Route & { fastPath: true }, input: RouteInput<TObject, TObject>): Body {
  const bytes = route.handler(input);
  if (!route.csv || (input.query as { format?: string }).format !== "csv") return new Body(bytes);
  return new Body(csvOf(route.csv, parseBody(bytes)), CSV_TYPE);
}

/** A routed handler's answer as CSV: its JSON body's rows (a Response's body parsed back). */
async function csvAnswer(tabular: Tabular<unknown>, answered: unknown): Promise<Response> {
  const resolved = await answered;
  const body = resolved instanceof Response ? await resolved.json() : resolved;
  return new Response(csvOf(tabular, body), { headers: { "content-type": CSV_TYPE } });
}

/**
 * The edge's bill step (edge.ts), as a route's call takes it once its parameters are valid;
 * `input` is the handler's (a route with its own `price` reads it).
 */
export type Bill = (call: Call, route: Route, input?: RouteInput<TObject, TObject>) => void | Promise<void>;

/** The handler's input; `snapshot` is checked when the handler reads it. */
export function inputOf(call: Call, params: unknown, query: unknown) {
  return {
    params,
    query,
    call,
    get snapshot() {
      return requireSnapshot(call.snapshot);
    },
  } as RouteInput<TObject, TObject>;
}

/**
 * The routes in Elysia, in order (the OpenAPI document lists them so); `billWaits` when the
 * bill step may answer with a Promise (a store that asks its database).
 */
export function routesPlugin(routes: readonly Route[], bill: Bill, billWaits = false) {
  const app = new Elysia({ name: "routes" });
  for (const route of routes)
    app.get(route.path, handlerOf(route), {
      ...(route.params ? { params: route.params } : {}),
      ...(route.query ? { query: route.query } : {}),
      response: route.public
        ? { 200: route.response, 503: errorResponses[503] }
        : { 200: route.response, ...errorResponses },
      detail: operationOf(route),
      ...(route.public ? {} : { beforeHandle: billHook(route, bill, billWaits) }),
    });
  return app;
}

/** The route's handler as Elysia calls it (Elysia parses what a handler destructures). */
function handlerOf(route: Route) {
  const answer = route.fastPath
    ? (input: RouteInput<TObject, TObject>) => {
        const body = fastBody(route, input);
        return new Response(wholeBody(body.bytes), { headers: { "content-type": body.type } });
      }
    : (input: RouteInput<TObject, TObject>) =>
        route.csv && (input.query as { format?: string }).format === "csv"
          ? csvAnswer(route.csv as Tabular<unknown>, route.handler(input))
          : route.handler(input);
  return ({ params, query, request }: { params: unknown; query: unknown; request: Request }) =>
    answer(inputOf(callOf(request), params, query));
}

/** What Elysia gives a hook: the request and its valid parameters. */
interface HookContext {
  request: Request;
  params: unknown;
  query: unknown;
}

/**
 * Elysia's hook that bills a call once its parameters are valid. A heavy route's is async (it
 * waits for a slot), and so is one with its own price (which may read files) and every one when
 * the accounts store is asked over the network; any other's
 * returns nothing, so that Elysia runs it synchronously.
 */
function billHook(route: Route, bill: Bill, billWaits: boolean) {
  if (billWaits || route.heavy || (!route.fastPath && route.price))
    return async ({ request, params, query }: HookContext) => {
      const call = callOf(request);
      await bill(call, route, inputOf(call, params, query));
    };
  return ({ request }: HookContext) => {
    bill(callOf(request), route);
  };
}

const CSV_NOTE =
  "`format=csv` answers the rows as `text/csv; charset=utf-8` (RFC 4180, a header row, the JSON rows' fields in order), at the same price; docs/api.md gives the rules.";

/** OpenAPI operation details: summary, description, the credit cost and the security scheme. */
function operationOf(route: Route) {
  const cost = PRICING[route.endpoint];
  return {
    summary: route.summary,
    description: `${route.description ?? route.summary}${route.csv ? `\n\n${CSV_NOTE}` : ""}\n\nCost: ${cost} credit${cost === 1 ? "" : "s"} ${!route.fastPath && route.price ? "per unit named above (x-credit-cost is the unit price)" : "per successful call"}.`,
    "x-credit-cost": cost,
    // The price depends on the call (route.ts `price`): x-credit-cost is its unit.
    ...(!route.fastPath && route.price ? { "x-credit-cost-varies": true } : {}),
    security: route.public ? [] : [{ bearer: [] }],
  };
}
