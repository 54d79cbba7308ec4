import type { TObject, TProperties, TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import { queryParams } from "../http/params.ts";
import type { Endpoint } from "../http/pricing.ts";
import { dataRoutes } from "../http/routes/data.ts";

/** The REST call a tool makes for valid arguments: a path and its query (undefined: left out). */
export interface RestCall {
  path: string;
  query: Record<string, string | number | undefined>;
}

/** One MCP tool: one family of REST endpoints, each call one REST call at its price. */
export interface ToolSpec {
  name: string;
  description: string;
  /** The arguments: the REST parameters' own schemas, plus a view of the family where it has several. */
  input: TObject;
  /** Takes a `cursor` that continues a series cut at the byte cap. */
  paged: boolean;
  /** The REST call for valid arguments (defaults filled in). */
  rest(args: Args): RestCall;
  /** Reshapes the REST body before it is shaped for output (e.g. monthly sampling). */
  transform?(body: unknown, args: Args): unknown;
}

type Args = Record<string, unknown>;

/** A REST route's parameter schema by name (path or query): the tools take the same models. */
function param(endpoint: Endpoint, name: string): TSchema {
  const route = dataRoutes.find((r) => r.endpoint === endpoint);
  const schema = route?.params?.properties[name] ?? route?.query?.properties[name];
  if (!schema) throw new Error(`route ${endpoint} has no parameter ${name}`);
  return schema;
}

/** Those of `names` that the route takes, as its schemas have them (optional ones stay optional). */
function params(endpoint: Endpoint, names: readonly string[]): TProperties {
  const route = dataRoutes.find((r) => r.endpoint === endpoint);
  const taken = names.filter((name) => route?.query?.properties[name]);
  return Object.fromEntries(taken.map((name) => [name, param(endpoint, name)]));
}

/** The arguments a REST call passes on as its query: those of `properties` given. */
function forward(properties: TProperties, args: Args): RestCall["query"] {
  return Object.fromEntries(
    Object.keys(properties).map((name) => [name, args[name] as string | number | undefined]),
  );
}

/** A tool's arguments: no others allowed; those with a default are not required. */
function input(properties: TProperties): TObject {
  const schema = queryParams(properties);
  schema.additionalProperties = false;
  return schema;
}

const Cursor = t.Optional(
  t.String({
    minLength: 1,
    maxLength: 512,
    description:
      "next_cursor of the previous result, to get the next rows of the same call (billed as a call)",
    error: "cursor: must be a next_cursor value from an earlier result",
  }),
);

/** A choice among the endpoints of a family. */
function view(values: readonly string[], description: string) {
  return t.Union(
    values.map((v) => t.Literal(v)),
    { default: values[0], description, error: `view: must be one of ${values.join(", ")}` },
  );
}

const symbol = () => param("profile", "symbol");
const at = (template: string, args: Args) =>
  template.replace(":symbol", encodeURIComponent(String(args.symbol)));

const COMPANY_VIEWS = { profile: "/stocks/:symbol/profile", quote: "/securities/:symbol/quote" } as const;
const STATEMENTS = {
  income: "/stocks/:symbol/income-statement",
  balance_sheet: "/stocks/:symbol/balance-sheet",
  cash_flow: "/stocks/:symbol/cash-flow-statement",
} as const;
const VALUATION_VIEWS = {
  current: "/securities/:symbol/valuation",
  history: "/securities/:symbol/valuation/history",
  monthly: "/stocks/:symbol/valuation-history",
} as const;
const FUNDAMENTAL_VIEWS = {
  metrics: "/stocks/:symbol/fundamental-metrics",
  growth: "/stocks/:symbol/growth",
  capital_allocation: "/stocks/:symbol/capital-allocation",
  owner_earnings: "/stocks/:symbol/owner-earnings",
} as const;
const PAYOUT_VIEWS = {
  dividend: "/stocks/:symbol/dividend",
  earnings: "/stocks/:symbol/earnings",
  estimates: "/stocks/:symbol/estimates",
} as const;

const viewPath = (views: Record<string, string>, args: Args) => at(views[String(args.view)] as string, args);

/**
 * The last row of each calendar month, in order: month-end values of a daily series sorted by
 * date.
 */
export function monthEnds(rows: readonly { date: string }[]): { date: string }[] {
  return rows.filter((row, i) => rows[i + 1]?.date.slice(0, 7) !== row.date.slice(0, 7));
}

/** The REST parameters each tool passes on, as their routes define them. */
const SEARCH = params("search", ["query", "page", "per_page"]);
const STATEMENT_QUERY = params("income_statement", ["period_type", "start", "end", "limit"]);
const PRICE_RANGE = params("price", ["start_date", "end_date"]);
const INSIDER_QUERY = params("insider_tradings", ["start", "end", "limit"]);
const FILINGS_QUERY = params("sec_filings", [
  "ticker",
  "cik",
  "form",
  "start",
  "end",
  "accession_number",
  "page",
  "per_page",
]);
/** The earnings calendar's parameters: its filters and its counts (a row limit, or pages). */
const CALENDAR = params("calendar", ["ticker", "cik", "start", "end", "limit", "page", "per_page"]);

const NULLS = "null means no value could be had (never read as zero)";

/** The tools, in the order `tools/list` gives them. */
export const TOOLS: readonly ToolSpec[] = [
  {
    name: "search_securities",
    description:
      "Find securities by ticker or company name words; returns ticker, name, exchange and ids, best match first. Use it first to resolve a name to a symbol. 1 credit.",
    input: input(SEARCH),
    paged: false,
    rest: (args) => ({ path: "/securities/search", query: forward(SEARCH, args) }),
  },
  {
    name: "get_company",
    description:
      "A company's profile (identity, listing, SIC industry, SEC ids) or its quote (last close, previous close, change, OHLC, volume, 52-week range, in the price currency; change_percent a fraction). 1 credit.",
    input: input({ symbol: symbol(), view: view(Object.keys(COMPANY_VIEWS), "profile (default) or quote") }),
    paged: false,
    rest: (args) => ({ path: viewPath(COMPANY_VIEWS, args), query: {} }),
  },
  {
    name: "get_statements",
    description: `Income, balance-sheet or cash-flow statements from SEC XBRL filings, newest period first; annual (default), quarterly or ttm. Values as filed, in the reporting currency; ${NULLS}. 1 credit.`,
    input: input({
      symbol: symbol(),
      statement: t.Union(
        Object.keys(STATEMENTS).map((v) => t.Literal(v)),
        {
          description: "income, balance_sheet or cash_flow",
          error: "statement: must be income, balance_sheet or cash_flow",
        },
      ),
      ...STATEMENT_QUERY,
      cursor: Cursor,
    }),
    paged: true,
    rest: (args) => ({
      path: at(STATEMENTS[args.statement as keyof typeof STATEMENTS], args),
      query: forward(STATEMENT_QUERY, args),
    }),
  },
  {
    name: "get_prices",
    description:
      "Daily prices in [start_date, end_date], oldest first: open, high, low, close in the price currency, volume in shares; sampling=monthly keeps each month's last trading day. 1 credit a call.",
    input: input({
      symbol: symbol(),
      ...PRICE_RANGE,
      sampling: t.Union([t.Literal("daily"), t.Literal("monthly")], {
        default: "daily",
        description: "daily (default), or monthly: the last trading day of each month",
        error: "sampling: must be daily or monthly",
      }),
      cursor: Cursor,
    }),
    paged: true,
    rest: (args) => ({ path: at("/stocks/:symbol/price", args), query: forward(PRICE_RANGE, args) }),
    transform: (body, args) =>
      args.sampling === "monthly" && Array.isArray(body) ? monthEnds(body as { date: string }[]) : body,
  },
  {
    name: "get_valuation",
    description: `Valuation: current (market cap, EV, P/E, P/B, P/S, EV/EBITDA, EV/FCF, yields; 1 credit), history (month-end multiples from the filings known at each date; 2 credits) or monthly (today's fundamentals over month-end prices with 3/5/10-year percentiles: approximate, not point-in-time; 2 credits). Ratios and yields are fractions (0.05 = 5%); ${NULLS}.`,
    input: input({
      symbol: symbol(),
      view: view(Object.keys(VALUATION_VIEWS), "current (default), history or monthly"),
      cursor: Cursor,
    }),
    paged: true,
    rest: (args) => ({ path: viewPath(VALUATION_VIEWS, args), query: {} }),
  },
  {
    name: "get_fundamentals",
    description: `Derived from the filings: metrics (margins, returns, turnover, leverage), growth (1-year and 3/5-year CAGR of revenue, EPS, FCF, book value, shares, dividends), capital_allocation (cash flow, capex, buybacks, dividends, acquisitions, debt) or owner_earnings. Ratios and rates are fractions (0.05 = 5%, negative = decline), amounts in the reporting currency; ${NULLS}, metadata.null_reasons says why. 1 credit.`,
    input: input({
      symbol: symbol(),
      view: view(
        Object.keys(FUNDAMENTAL_VIEWS),
        "metrics (default), growth, capital_allocation or owner_earnings",
      ),
    }),
    paged: false,
    rest: (args) => ({ path: viewPath(FUNDAMENTAL_VIEWS, args), query: {} }),
  },
  {
    name: "get_dividends_earnings",
    description: `dividend (per-share TTM and forward, yields, next ex-date and payment, frequency), earnings (latest quarter's EPS, estimate and surprise; next date) or estimates (consensus EPS and revenue growth, forward P/E and PEG). Yields and growth are fractions; ${NULLS}. 1 credit.`,
    input: input({
      symbol: symbol(),
      view: view(Object.keys(PAYOUT_VIEWS), "dividend (default), earnings or estimates"),
    }),
    paged: false,
    rest: (args) => ({ path: viewPath(PAYOUT_VIEWS, args), query: {} }),
  },
  {
    name: "get_insider_trades",
    description:
      "Open-market insider purchases (P) and sales (S) from SEC Form 4, newest first: shares, price and value = shares × price in the security's currency, owner and title, shares owned after. 1 credit.",
    input: input({ symbol: symbol(), ...INSIDER_QUERY, cursor: Cursor }),
    paged: true,
    rest: (args) => ({
      path: at("/securities/:symbol/insider_tradings", args),
      query: forward(INSIDER_QUERY, args),
    }),
  },
  {
    name: "get_filings",
    description:
      "SEC filings (form type, filing and report dates, link to the document), newest first, filtered by ticker or CIK, form, date range or accession number. 1 credit.",
    input: input({ ...FILINGS_QUERY, cursor: Cursor }),
    paged: true,
    rest: (args) => ({ path: "/sec_filings", query: forward(FILINGS_QUERY, args) }),
  },
  {
    name: "get_earnings_calendar",
    description:
      "Earnings dates with EPS forecast, actual and surprise (actual − forecast), by date; optionally for one ticker or CIK and a date range. null: not known yet. 1 credit.",
    input: input({ ...CALENDAR, cursor: Cursor }),
    paged: true,
    rest: (args) => ({ path: "/calendar/earnings", query: forward(CALENDAR, args) }),
  },
  {
    name: "get_account",
    description:
      "Your credit balance, credits held by calls in flight, the key in use and your usage over the last 30 days. Free.",
    input: input({}),
    paged: false,
    rest: () => ({ path: "/account", query: {} }),
  },
];

/** A REST call as a request target: the path and its query, parameters left out when undefined. */
export function targetOf(call: RestCall, snapshot: string | null): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(call.query))
    if (value !== undefined) query.set(name, String(value));
  if (snapshot) query.set("snapshot", snapshot);
  const text = query.toString();
  return text ? `${call.path}?${text}` : call.path;
}
