import { Elysia, t } from "elysia";
import type { Billing } from "../../accounts/billing.ts";
import { ApiError, invalidParameter } from "../../errors.ts";
import { getInsiderTrades } from "../../query/insider-trades.ts";
import type { Security } from "../../query/securities.ts";
import { errorResponses, NumOrNull, Pagination, pagination, SecurityRecord } from "../models/common.ts";
import { calendarDate, orderedRange, Params, queryParams, resolveSecurity, snapshotOf } from "../params.ts";
import { billingPlugin } from "../plugins/billing.ts";
import { operation } from "./operation.ts";

/** Spec §2.1 fields of a security. */
export function securityRecord(s: Security) {
  return {
    name: s.name,
    ticker: s.ticker,
    exchange: s.exchange,
    security_type: s.security_type,
    currency_code: s.currency_code,
    cik: s.cik,
    composite_figi: s.composite_figi,
    share_class_figi: s.share_class_figi,
  };
}

const Quote = t.Object({
  symbol: t.String(),
  quote: t.Object({
    date: t.String({ description: "session date of the latest price (YYYY-MM-DD)" }),
    currency: t.Union([t.String(), t.Null()]),
    close: t.Number(),
    previous_close: NumOrNull,
    change: NumOrNull,
    change_percent: t.Union([t.Number({ description: "fraction: 0.0123 = +1.23%" }), t.Null()]),
    open: NumOrNull,
    high: NumOrNull,
    low: NumOrNull,
    volume: NumOrNull,
    fifty_two_week_high: t.Number(),
    fifty_two_week_low: t.Number(),
  }),
});

const InsiderTrade = t.Object({
  transaction_date: t.String(),
  transaction_code: t.String({ description: "P (purchase) or S (sale)" }),
  shares: NumOrNull,
  price: NumOrNull,
  value: NumOrNull,
  owner_name: t.String(),
  owner_title: t.String(),
  acquired_disposed: t.Union([t.String(), t.Null()]),
  shares_owned_after: NumOrNull,
  security_title: t.Union([t.String(), t.Null()]),
  accession_number: t.Union([t.String(), t.Null()]),
});

/** /securities/search, /securities/{ticker}/quote and /insider_tradings. */
export function securitiesRoutes(billing: Billing) {
  return new Elysia({ name: "routes.securities" })
    .use(billingPlugin(billing))
    .get(
      "/securities/search",
      ({ query, request }) => {
        const snapshot = snapshotOf(request);
        if (!query.query.trim()) throw invalidParameter("query", "query", "must not be blank");
        const { rows, total } = snapshot.securities.search(query.query, query.page, query.per_page);
        return { data: rows.map(securityRecord), pagination: pagination(query.page, query.per_page, total) };
      },
      {
        billed: "search",
        query: queryParams({
          query: Params.text("query", "words of a ticker or company name", 100),
          page: Params.positiveInt("page", "page number", 1, 100_000),
          per_page: Params.positiveInt("per_page", "rows per page", 10, 100),
        }),
        response: {
          200: t.Object({ data: t.Array(SecurityRecord), pagination: Pagination }),
          ...errorResponses,
        },
        detail: operation(
          "search",
          "Search securities",
          "Ranked: exact ticker (and the share classes of that base ticker), ticker prefix, name starting with the query, then names with a word starting with each query word; within a rank, active listings first, then the larger company (the SEC's ticker lists are ordered by market value), then the closer (shorter) name.",
        ),
      },
    )
    .get(
      "/securities/:ticker/quote",
      ({ params, request }) => {
        const snapshot = snapshotOf(request);
        const security = resolveSecurity(snapshot, params.ticker);
        const q = snapshot.quotes.get(security.security_id);
        if (!q) throw new ApiError("not_found", `no price data for ${security.ticker}`);
        const { security_id: _, ...quote } = q;
        return { symbol: security.ticker, quote: { ...quote, currency: security.currency_code } };
      },
      {
        billed: "quote",
        params: t.Object({ ticker: Params.ticker("ticker") }),
        response: { 200: Quote, ...errorResponses },
        detail: operation(
          "quote",
          "Latest quote",
          "Latest session from the imported daily prices, with the 52-week range.",
        ),
      },
    )
    .get(
      "/securities/:ticker/insider_tradings",
      async ({ params, query, request }) => {
        const snapshot = snapshotOf(request);
        const security = resolveSecurity(snapshot, params.ticker);
        const start = query.start ? calendarDate(query.start, "start") : null;
        const end = query.end ? calendarDate(query.end, "end") : null;
        orderedRange(start, end, ["start", "end"]);
        const trades = security.cik
          ? await getInsiderTrades(snapshot, security.cik, start, end, query.limit)
          : [];
        return { ...securityRecord(security), insider_tradings: trades };
      },
      {
        billed: "insider_tradings",
        params: t.Object({ ticker: Params.ticker("ticker") }),
        query: queryParams({
          start: t.Optional(Params.date("start", "first transaction date, inclusive")),
          end: t.Optional(Params.date("end", "last transaction date, inclusive")),
          limit: Params.positiveInt("limit", "number of transactions, newest first", 10_000, 10_000),
        }),
        response: {
          200: t.Intersect([SecurityRecord, t.Object({ insider_tradings: t.Array(InsiderTrade) })]),
          ...errorResponses,
        },
        detail: operation(
          "insider_tradings",
          "Insider purchases and sales",
          "Open-market purchases (P) and sales (S) of non-derivative securities from Forms 4, newest first. `value` = shares × price. A 4/A replaces the filing it amends. `owner_title` is the officer title, else Director, 10% Owner or Other.",
        ),
      },
    );
}
