import { t } from "elysia";
import { STATEMENT_FIELDS, type StatementKind } from "../../domain/statements.ts";
import { ApiError, invalidParameter } from "../../errors.ts";
import { type FiscalBound, getStatementPeriods, type PeriodFilter } from "../../query/statements.ts";
import { Nullable, NumOrNull, StrOrNull } from "../models/common.ts";
import { calendarDate, orderedRange, Params, queryParams, resolveSecurity } from "../params.ts";
import type { Endpoint } from "../pricing.ts";
import { defineRoute } from "../route.ts";

interface Statement {
  kind: StatementKind;
  path: string;
  endpoint: Endpoint;
  title: string;
}

const STATEMENTS: Statement[] = [
  { kind: "balance_sheet", path: "balance-sheet", endpoint: "balance_sheet", title: "Balance sheet" },
  {
    kind: "cash_flow_statement",
    path: "cash-flow-statement",
    endpoint: "cash_flow_statement",
    title: "Cash flow statement",
  },
  {
    kind: "income_statement",
    path: "income-statement",
    endpoint: "income_statement",
    title: "Income statement",
  },
];

const DESCRIPTION =
  "Periods newest first. `snapshot_date` is the period end; `fiscal_year` is the company's own label " +
  "(fiscal_quarter null for annual; a TTM period's fiscal_year and fiscal_quarter are those of the quarter it " +
  "ends with). Quarterly flows are three-month values (Q2/Q3 from " +
  "year-to-date differences, Q4 = fiscal year − nine months where not reported); TTM sums the latest four " +
  "consecutive quarters (balances: the latest instant). Restated values from the latest filing win; " +
  "`filing_date` is the report that first published the period, `latest_filing_date` the latest one used. Money " +
  "in units of `currency`; cash-flow outflows negative. Every field is present, null where the filer reports " +
  "nothing that maps to it. `timeframe` is another name for `period_type`, and either is read in any case. " +
  "`start` and `end` select fiscal years, inclusive: a year (`2021`) is that fiscal year; a date as `start` " +
  "selects the fiscal years that end on or after it, as `end` those that end on or before it (a fiscal year " +
  "ends where its annual period does; one not yet filed, a whole number of years from the nearest that is). A " +
  "period is included when its `fiscal_year` is selected; `limit` then takes the newest.";

const PERIOD_TYPES = ["annual", "quarterly", "ttm"] as const;

/** `annual`, `quarterly` or `ttm`, in any case (TTM, Annual). */
const periodTypeParam = (name: string, description: string) =>
  t.String({
    pattern: `^(?:${PERIOD_TYPES.map((word) => [...word].map((c) => `[${c}${c.toUpperCase()}]`).join("")).join("|")})$`,
    description,
    error: `${name}: must be annual, quarterly or ttm`,
  });

/** A fiscal year (YYYY) or a date (YYYY-MM-DD). */
const fiscalBoundParam = (name: string, description: string) =>
  t.String({
    pattern: "^\\d{4}(?:-\\d{2}-\\d{2})?$",
    description: `${description}: a fiscal year (YYYY) or a date (YYYY-MM-DD)`,
    examples: ["2021", "2021-06-30"],
    error: `${name}: must be a fiscal year (YYYY) or a date (YYYY-MM-DD)`,
  });

interface StatementQuery {
  period_type?: string;
  timeframe?: string;
  start?: string;
  end?: string;
  limit: number;
}

/** A range bound as the query gives it: a fiscal year, or a calendar date. */
function fiscalBound(value: string | undefined, name: string): FiscalBound | null {
  if (value === undefined) return null;
  return value.length === 4 ? { year: Number(value) } : { date: calendarDate(value, name) };
}

/**
 * The filter a statement call's query asks for: `period_type` or its other name `timeframe`,
 * annual when neither is given; 400 when the two disagree.
 */
function periodFilter(query: StatementQuery): PeriodFilter {
  const period_type = query.period_type?.toLowerCase() as PeriodFilter["periodType"] | undefined;
  const timeframe = query.timeframe?.toLowerCase() as PeriodFilter["periodType"] | undefined;
  if (period_type && timeframe && period_type !== timeframe) {
    throw invalidParameter(
      "query",
      "timeframe",
      "is another name for period_type and must not differ from it",
    );
  }
  const start = fiscalBound(query.start, "start");
  const end = fiscalBound(query.end, "end");
  // Bounds of one kind are ordered; a year and a date are compared through the company's years.
  if (start && end && "year" in start === "year" in end) {
    const key = (bound: FiscalBound) => ("year" in bound ? String(bound.year) : bound.date);
    orderedRange(key(start), key(end), ["start", "end"]);
  }
  return { periodType: period_type ?? timeframe ?? "annual", start, end, limit: query.limit };
}

function periodSchema(kind: StatementKind) {
  const fields = Object.fromEntries(STATEMENT_FIELDS[kind].map((f) => [f, NumOrNull]));
  return t.Object({
    period_type: t.String(),
    fiscal_year: t.Integer(),
    fiscal_quarter: Nullable(t.Integer()),
    snapshot_date: t.String(),
    period_start: StrOrNull,
    currency: StrOrNull,
    filing_date: t.String({ description: "filing date of the report that first published the period" }),
    accession_number: t.String({ description: "accession number of that report" }),
    latest_filing_date: t.String({
      description:
        "filing date of the latest report whose values are used (one that repeated or restated the period)",
    }),
    latest_accession_number: t.String({ description: "accession number of that report" }),
    notes: t.Array(t.String(), {
      description:
        "values not obtained the usual way, in words (e.g. net income from a consolidated concept)",
    }),
    [kind]: t.Object(fields),
  });
}

function statementRoute({ kind, path, endpoint, title }: Statement) {
  const Period = periodSchema(kind);
  const Body = t.Object({ symbol: t.String(), periods: t.Array(Period) });
  return defineRoute({
    path: `/stocks/:symbol/${path}`,
    endpoint,
    heavy: true,
    params: t.Object({ symbol: Params.ticker("symbol") }),
    query: queryParams({
      // No schema default: it would hide whether the call gave period_type or timeframe.
      period_type: t.Optional(
        periodTypeParam("period_type", "annual (default), quarterly or ttm, in any case"),
      ),
      timeframe: t.Optional(periodTypeParam("timeframe", "another name for period_type")),
      start: t.Optional(fiscalBoundParam("start", "the first fiscal year, inclusive")),
      end: t.Optional(fiscalBoundParam("end", "the last fiscal year, inclusive")),
      limit: Params.positiveInt("limit", "number of periods", 10, 100),
    }),
    response: Body,
    csv: { row: Period, rows: (body) => body.periods },
    summary: title,
    description: DESCRIPTION,
    async handler({ snapshot, params, query }) {
      const security = resolveSecurity(snapshot, params.symbol);
      const periods = security.cik
        ? await getStatementPeriods(snapshot, kind, security.cik, periodFilter(query))
        : null;
      if (!periods) throw new ApiError("not_found", `no ${title.toLowerCase()} data for ${security.ticker}`);
      // The statement object's key is the kind, which TypeScript cannot follow through the loop.
      return { symbol: security.ticker, periods } as unknown as typeof Body.static;
    },
  });
}

/** /stocks/{symbol}/balance-sheet, /cash-flow-statement and /income-statement. */
export const statementsRoutes = STATEMENTS.map(statementRoute);
