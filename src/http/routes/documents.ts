import { type TSchema, t } from "elysia";
import type { DerivedKind } from "../../domain/derived.ts";
import { ApiError } from "../../errors.ts";
import { isInMemory } from "../../query/derived-bodies.ts";
import { derivedInMemory, derivedOnDisk } from "../../query/documents.ts";
import { JSON_TYPE } from "../body.ts";
import type { Tabular } from "../csv.ts";
import * as Models from "../models/documents.ts";
import { servedDocument } from "../models/snapshot-id.ts";
import { Params, resolveSecurity } from "../params.ts";
import type { Endpoint } from "../pricing.ts";
import { defineRoute, type Route } from "../route.ts";

interface DerivedRoute {
  path: string;
  param: "symbol" | "ticker";
  kind: DerivedKind;
  endpoint: Endpoint;
  schema: TSchema;
  /** A monthly series: its rows, for `format=csv`. */
  csv?: Tabular<unknown>;
  summary: string;
  description: string;
}

const ROUTES: DerivedRoute[] = [
  {
    path: "/securities/:ticker/valuation",
    param: "ticker",
    kind: "valuation",
    endpoint: "valuation",
    schema: Models.Valuation,
    summary: "Valuation snapshot",
    description:
      "Market cap, EV and multiples at the last price date, from TTM fundamentals filed on or before that date (docs/methodology.md).",
  },
  {
    path: "/securities/:ticker/valuation/history",
    param: "ticker",
    kind: "valuation_history",
    endpoint: "valuation_history",
    schema: Models.ValuationHistory,
    csv: {
      row: Models.ValuationHistory.properties.valuation_history.items,
      rows: (body) => (body as typeof Models.ValuationHistory.static).valuation_history,
    },
    summary: "Point-in-time valuation history",
    description:
      "One row per month end; each row uses only fundamentals and share counts filed on or before its date (no look-ahead).",
  },
  {
    path: "/stocks/:symbol/valuation-history",
    param: "symbol",
    kind: "valuation_points",
    endpoint: "valuation_points",
    schema: Models.ValuationPoints,
    csv: {
      row: Models.ValuationPoints.properties.points.items,
      rows: (body) => (body as typeof Models.ValuationPoints.static).points,
    },
    summary: "Monthly valuation series",
    description:
      "Month-end prices with today's fundamentals applied across them (an approximation of historical multiples), and the P/E percentile over trailing 3, 5 and 10 years.",
  },
  {
    path: "/stocks/:symbol/fundamental-metrics",
    param: "symbol",
    kind: "metrics",
    endpoint: "fundamental_metrics",
    schema: Models.FundamentalMetrics,
    summary: "Fundamental metrics",
    description:
      "Margins, returns, turnover, leverage and yields from the latest TTM period, else the latest annual.",
  },
  {
    path: "/stocks/:symbol/growth",
    param: "symbol",
    kind: "growth",
    endpoint: "growth",
    schema: Models.Growth,
    summary: "Growth",
    description:
      "One-year change and 3/5-year CAGR from annual history; null when the start point is missing or not positive.",
  },
  {
    path: "/stocks/:symbol/capital-allocation",
    param: "symbol",
    kind: "capital_allocation",
    endpoint: "capital_allocation",
    schema: Models.CapitalAllocation,
    summary: "Capital allocation",
    description: "The latest annual period's cash deployment; outflows as positive numbers.",
  },
  {
    path: "/stocks/:symbol/owner-earnings",
    param: "symbol",
    kind: "owner_earnings",
    endpoint: "owner_earnings",
    schema: Models.OwnerEarnings,
    summary: "Owner earnings",
    description:
      "Operating cash flow minus reported capex, the imported value where one exists, yield on market cap, growth.",
  },
  {
    path: "/stocks/:symbol/dividend",
    param: "symbol",
    kind: "dividend",
    endpoint: "dividend",
    schema: Models.Dividend,
    summary: "Dividend snapshot",
    description:
      "Trailing and forward dividends per share, yields, the 5-year yield range, the next payment and the frequency.",
  },
  {
    path: "/stocks/:symbol/earnings",
    param: "symbol",
    kind: "earnings",
    endpoint: "earnings",
    schema: Models.Earnings,
    summary: "Earnings dates and latest EPS",
    description:
      "Latest, past and next earnings dates and the latest quarter's diluted EPS; estimate and surprise where imported.",
  },
  {
    path: "/stocks/:symbol/estimates",
    param: "symbol",
    kind: "estimates",
    endpoint: "estimates",
    schema: Models.Estimates,
    summary: "Estimate signals",
    description:
      "Imported forward estimate signals, with forward P/E and PEG from the latest price. No analyst counts, ranges or revisions.",
  },
];

function paramsOf(route: DerivedRoute) {
  return route.param === "symbol"
    ? t.Object({ symbol: Params.ticker("symbol") })
    : t.Object({ ticker: Params.ticker("ticker") });
}

function notFound(route: DerivedRoute, ticker: string): ApiError {
  return new ApiError("not_found", `no ${route.summary.toLowerCase()} for ${ticker}`);
}

/** A document held in memory: served on the fast path, as stored. */
function inMemoryRoute(route: DerivedRoute): Route {
  return defineRoute({
    ...described(route),
    fastPath: true,
    handler({ snapshot, params }) {
      const security = resolveSecurity(snapshot, "symbol" in params ? params.symbol : params.ticker);
      const body = derivedInMemory(snapshot, route.kind, security.security_id);
      if (body === null) throw notFound(route, security.ticker);
      return body;
    },
  });
}

/** A document read from Parquet per call (a heavy call), served as stored: no re-serialisation. */
function onDiskRoute(route: DerivedRoute): Route {
  return defineRoute({
    ...described(route),
    heavy: true,
    async handler({ snapshot, params }) {
      const security = resolveSecurity(snapshot, "symbol" in params ? params.symbol : params.ticker);
      const body = await derivedOnDisk(snapshot, route.kind, security.security_id);
      if (body === null) throw notFound(route, security.ticker);
      return new Response(body, { headers: { "content-type": JSON_TYPE } });
    },
  });
}

function described(route: DerivedRoute) {
  const { path, endpoint, schema, csv, summary, description } = route;
  const response = servedDocument(schema);
  return { path, endpoint, params: paramsOf(route), response, summary, description, ...(csv ? { csv } : {}) };
}

/** Every endpoint that serves a document computed at import time; those held in memory first. */
export const derivedRoutes = [
  ...ROUTES.filter((r) => isInMemory(r.kind)).map(inMemoryRoute),
  ...ROUTES.filter((r) => !isInMemory(r.kind)).map(onDiskRoute),
];
