import { t } from "elysia";
import { ApiError, invalidParameter } from "../../errors.ts";
import { getInsiderTrades } from "../../query/insider-trades.ts";
import type { Security } from "../../query/securities.ts";
import { NumOrNull, Pagination, pagination, SecurityRecord } from "../models/common.ts";
import { calendarDate, orderedRange, Params, queryParams, resolveSecurity } from "../params.ts";
import { defineRoute } from "../route.ts";

/** The fields of a security every listing shows (`SecurityRecord`). */
function securityRecord(s: Security) {
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

const tickerParam = t.Object({ ticker: Params.ticker("ticker") });

const search = defineRoute({
  path: "/securities/search",
  endpoint: "search",
  query: queryParams({
    query: Params.text("query", "words of a ticker or company name", 100),
    page: Params.positiveInt("page", "page number", 1, 100_000),
    per_page: Params.positiveInt("per_page", "rows per page", 10, 100),
  }),
  response: t.Object({ data: t.Array(SecurityRecord), pagination: Pagination }),
  csv: { row: SecurityRecord, rows: (body) => body.data },
  summary: "Search securities",
  description:
    "Ranked: exact ticker (and the share classes of that base ticker), ticker prefix, name starting with the query, then names with a word starting with each query word; within a rank, active listings first, then the larger company (the SEC's ticker lists are ordered by market value), then the closer (shorter) name.",
  handler({ snapshot, query }) {
    if (!query.query.trim()) throw invalidParameter("query", "query", "must not be blank");
    const { rows, total } = snapshot.securities.search(query.query, query.page, query.per_page);
    return { data: rows.map(securityRecord), pagination: pagination(query.page, query.per_page, total) };
  },
});

const quote = defineRoute({
  path: "/securities/:ticker/quote",
  endpoint: "quote",
  params: tickerParam,
  response: Quote,
  summary: "Latest quote",
  description: "Latest session from the imported daily prices, with the 52-week range.",
  handler({ snapshot, params }) {
    const security = resolveSecurity(snapshot, params.ticker);
    const q = snapshot.quotes.get(security.security_id);
    if (!q) throw new ApiError("not_found", `no price data for ${security.ticker}`);
    // In the schema's field order, as Elysia writes it: a batch of quotes serialises this
    // object itself (routes/batch.ts) and must write the same bytes.
    const quote = {
      date: q.date,
      currency: security.currency_code,
      close: q.close,
      previous_close: q.previous_close,
      change: q.change,
      change_percent: q.change_percent,
      open: q.open,
      high: q.high,
      low: q.low,
      volume: q.volume,
      fifty_two_week_high: q.fifty_two_week_high,
      fifty_two_week_low: q.fifty_two_week_low,
    };
    return { symbol: security.ticker, quote };
  },
});

const insiderTradings = defineRoute({
  path: "/securities/:ticker/insider_tradings",
  endpoint: "insider_tradings",
  heavy: true,
  params: tickerParam,
  query: queryParams({
    start: t.Optional(Params.date("start", "first transaction date, inclusive")),
    end: t.Optional(Params.date("end", "last transaction date, inclusive")),
    limit: Params.positiveInt("limit", "number of transactions, newest first", 10_000, 10_000),
  }),
  response: t.Intersect([SecurityRecord, t.Object({ insider_tradings: t.Array(InsiderTrade) })]),
  csv: { row: InsiderTrade, rows: (body) => body.insider_tradings },
  summary: "Insider purchases and sales",
  description:
    "Open-market purchases (P) and sales (S) of non-derivative securities from Forms 4, newest first. `value` = shares × price. A 4/A replaces the filing it amends. `owner_title` is the officer title, else Director, 10% Owner or Other.",
  async handler({ snapshot, params, query }) {
    const security = resolveSecurity(snapshot, params.ticker);
    const start = query.start ? calendarDate(query.start, "start") : null;
    const end = query.end ? calendarDate(query.end, "end") : null;
    orderedRange(start, end, ["start", "end"]);
    const trades = security.cik
      ? await getInsiderTrades(snapshot, security.cik, start, end, query.limit)
      : [];
    return { ...securityRecord(security), insider_tradings: trades };
  },
});

/** /securities/search, /securities/{ticker}/quote and /insider_tradings. */
export const securitiesRoutes = [search, quote, insiderTradings];
