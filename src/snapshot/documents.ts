/**
 * The derived documents of a snapshot, and the earnings calendar's rows: the one definition of
 * each shape. The
 * importer's rules return parts of these types (`ingest/rules/`, assembled in
 * `ingest/pipeline/derive.ts`), the snapshot stores each document as the exact response body,
 * and the HTTP routes declare these schemas as their responses, which `/openapi.json` shows.
 *
 * Plain TypeBox, so the importer and its workers do not load Elysia.
 */
import { type Static, type StaticDecode, type TSchema, Type } from "@sinclair/typebox";

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const NumOrNull = Nullable(Type.Number());
const StrOrNull = Nullable(Type.String());

/**
 * An integer, documented as Elysia's `t.Integer()` renders it (an integer or a string of
 * digits), which is how `/openapi.json` has always described these fields. The documents hold
 * integers; the decoded type is `number`.
 */
const Integer = () =>
  Type.Transform(Type.Union([Type.String({ format: "integer", default: 0 }), Type.Integer()]))
    .Decode((value) => +value)
    .Encode((value) => value);

/** An object of nullable numbers, one per field name. */
function numbers<const K extends string>(fields: readonly K[]) {
  return Type.Object(Object.fromEntries(fields.map((f) => [f, NumOrNull])) as Record<K, typeof NumOrNull>);
}

const PeriodMetadata = Type.Object({
  symbol: Type.String(),
  as_of_date: Type.String({ description: "end of the period the values come from" }),
  period_type: Type.String({ description: "ttm or annual" }),
  currency: StrOrNull,
  calculation_version: Type.String(),
});

/**
 * `metadata.null_reasons`: the document's market-based fields that are null because no market
 * cap of its statements' moment exists, each with the rule (docs/methodology.md, "Market cap").
 */
function nullReasons<const K extends string>(fields: readonly K[]) {
  const reason = Type.Optional(
    Type.String({
      description: "no_market_cap, statements_filed_after_last_price or statements_not_current",
    }),
  );
  return Type.Object({
    null_reasons: Type.Object(Object.fromEntries(fields.map((f) => [f, reason])) as Record<K, typeof reason>),
  });
}

const AnnualMetadata = Type.Object({
  symbol: Type.String(),
  as_of_date: Type.String(),
  period_type: Type.Literal("annual"),
  fiscal_year: Integer(),
  currency: StrOrNull,
  calculation_version: Type.String(),
});

/** Metrics of the latest TTM period, else the latest annual: all fractions or multiples. */
export const FundamentalMetrics = Type.Object({
  metadata: Type.Intersect([
    PeriodMetadata,
    nullReasons(["shareholder_yield", "buyback_yield", "dividend_yield_ttm"]),
  ]),
  metrics: numbers([
    "gross_margin",
    "operating_margin",
    "net_margin",
    "fcf_margin",
    "ebit_margin",
    "ebitda_margin",
    "roic",
    "roce",
    "roe",
    "roa",
    "asset_turnover",
    "inventory_turnover",
    "receivables_turnover",
    "debt_to_equity",
    "net_debt_to_ebitda",
    "interest_coverage",
    "current_ratio",
    "quick_ratio",
    "cash_conversion_ratio",
    "shareholder_yield",
    "buyback_yield",
    "dividend_yield_ttm",
  ]),
});

/** Growth from annual history: fractions; 3y/5y share-count and dividend growth annualized. */
export const Growth = Type.Object({
  metadata: AnnualMetadata,
  growth: numbers([
    "revenue_growth_1y",
    "revenue_cagr_3y",
    "revenue_cagr_5y",
    "eps_growth_1y",
    "eps_cagr_3y",
    "eps_cagr_5y",
    "fcf_growth_1y",
    "fcf_cagr_3y",
    "fcf_cagr_5y",
    "book_value_per_share_growth_1y",
    "book_value_per_share_cagr_3y",
    "book_value_per_share_cagr_5y",
    "share_count_growth_1y",
    "share_count_growth_3y",
    "share_count_growth_5y",
    "dividend_growth_3y",
    "dividend_growth_5y",
  ]),
});

/** The latest annual period: money in the reporting currency, shares in shares, ratios as fractions. */
export const CapitalAllocation = Type.Object({
  metadata: Type.Intersect([AnnualMetadata, nullReasons(["buyback_yield"])]),
  capital_allocation: numbers([
    "operating_cash_flow",
    "capex",
    "free_cash_flow",
    "stock_based_compensation",
    "share_repurchases",
    "share_issuance",
    "net_buyback_amount",
    "dividends_paid",
    "acquisition_spend",
    "debt_issued",
    "debt_repaid",
    "net_debt_change",
    "share_count_diluted",
    "share_count_change_1y",
    "buyback_yield",
    "dividend_payout_ratio",
  ]),
});

/** Owner earnings: money in the reporting currency, growth and yield as fractions. */
export const OwnerEarnings = Type.Object({
  symbol: Type.String(),
  metadata: Type.Intersect([PeriodMetadata, nullReasons(["owner_earnings_yield"])]),
  owner_earnings: numbers([
    "owner_earnings_source",
    "owner_earnings_estimated",
    "maintenance_capex_estimate",
    "owner_earnings_yield",
    "owner_earnings_growth_1y",
    "owner_earnings_growth_3y",
    "owner_earnings_growth_5y",
  ]),
});

/** Market cap, EV and multiples at the last price date. */
export const Valuation = Type.Object({
  symbol: Type.String(),
  metadata: Type.Object({ calculation_version: Type.String() }),
  valuation: Type.Intersect([
    Type.Object({
      date: Type.String({ description: "last price date; fundamentals filed on or before it" }),
    }),
    numbers([
      "market_cap",
      "enterprise_value",
      "net_debt",
      "pe_ratio",
      "forward_pe",
      "pb_ratio",
      "ps_ratio",
      "peg_ratio",
      "ev_to_revenue",
      "ev_to_ebitda",
      "ev_to_fcf",
      "earnings_yield",
      "fcf_yield",
      "dividend_yield",
    ]),
  ]),
});

/** Point-in-time monthly history: each row uses only what was filed by its date. */
export const ValuationHistory = Type.Object({
  symbol: Type.String(),
  valuation_history: Type.Array(
    Type.Intersect([
      Type.Object({ date: Type.String() }),
      numbers([
        "market_cap",
        "enterprise_value",
        "pe_ratio",
        "pb_ratio",
        "ps_ratio",
        "peg_ratio",
        "ev_to_revenue",
        "ev_to_ebitda",
        "earnings_yield",
        "fcf_yield",
      ]),
    ]),
  ),
});

/** Month-end prices with today's fundamentals applied across them, and trailing percentiles. */
export const ValuationPoints = Type.Object({
  metadata: Type.Object({
    symbol: Type.String(),
    as_of_date: Type.String(),
    frequency: Type.Literal("monthly"),
    currency: StrOrNull,
    calculation_version: Type.String(),
    method: Type.String(),
    percentile_basis: Nullable(
      Type.String({ description: "what valuation_percentile_* rank: pe, else ev_to_revenue (no earnings)" }),
    ),
  }),
  points: Type.Array(
    Type.Intersect([
      Type.Object({ date: Type.String(), price: Type.Number() }),
      numbers([
        "market_cap",
        "enterprise_value",
        "pe",
        "forward_pe",
        "pb",
        "price_to_fcf",
        "ev_to_revenue",
        "ev_to_ebitda",
        "fcf_yield",
        "earnings_yield",
        "valuation_percentile_3y",
        "valuation_percentile_5y",
        "valuation_percentile_10y",
      ]),
    ]),
  ),
});

/** Trailing and forward dividends per share, yields, the next payment and the frequency. */
export const Dividend = Type.Object({
  symbol: Type.String(),
  metadata: Type.Object({ as_of_date: Type.String(), calculation_version: Type.String() }),
  dividend: Type.Intersect([
    numbers([
      "dps_ttm",
      "dps_forward_12m",
      "dps_next_payment",
      "dividend_yield_ttm",
      "dividend_yield_forward",
      "dividend_yield_history_high",
      "dividend_yield_history_low",
      "payment_amount_next",
    ]),
    Type.Object({
      ex_dividend_date_next: StrOrNull,
      payment_date_next: StrOrNull,
      dividend_frequency: Nullable(
        Type.String({ description: "monthly, quarterly, semi-annual, annual or irregular" }),
      ),
    }),
  ]),
});

/** Earnings release dates and the latest quarter's EPS. */
export const Earnings = Type.Object({
  symbol: Type.String(),
  metadata: Type.Object({
    symbol: Type.String(),
    as_of_date: StrOrNull,
    calculation_version: Type.String(),
  }),
  earnings: Type.Intersect([
    Type.Object({
      latest_earnings_release_date: StrOrNull,
      past_earnings_date: StrOrNull,
      next_earnings_date: StrOrNull,
      next_earnings_time: StrOrNull,
      eps_latest_q_period_end: StrOrNull,
    }),
    numbers([
      "eps_latest_q",
      "eps_estimate_latest_q",
      "eps_surprise_latest_q",
      "eps_surprise_ratio_latest_q",
      "eps_estimate_next_q",
      "no_of_estimates_next_q",
    ]),
  ]),
});

/** Imported estimate signals with forward P/E and PEG from the latest close. */
export const Estimates = Type.Object({
  symbol: Type.String(),
  metadata: Type.Object({
    symbol: Type.String(),
    as_of_date: StrOrNull,
    price_date: StrOrNull,
    calculation_version: Type.String(),
  }),
  estimates: Type.Intersect([
    Type.Object({ as_of_date: StrOrNull }),
    numbers([
      "eps_growth_yoy_est_next_q",
      "eps_growth_yoy_est_next_fy",
      "rvn_growth_yoy_est_next_q",
      "rvn_growth_yoy_est_next_fy",
      "earning_growth_5y_est",
      "total_rvn_growth_5y_est",
      "eps_est_next_fy",
      "forward_pe",
      "forward_peg_ratio",
    ]),
  ]),
});

const EarningTime = Type.Union(
  [
    Type.Literal("pre-market"),
    Type.Literal("after-hours"),
    Type.Literal("during-market"),
    Type.Literal("not-supplied"),
  ],
  { description: "when in the trading day the results come out" },
);
/** When in the trading day results come out. */
export type EarningTime = Static<typeof EarningTime>;

/** One row of the `earnings_calendar` table, served as it is: one earnings date of one security. */
export const CalendarRow = Type.Object({
  cik: Nullable(
    Type.String({ description: "10-digit zero-padded CIK; filled from EDGAR when the source gives none" }),
  ),
  ticker: Type.String(),
  earning_date: Type.String({ description: "YYYY-MM-DD" }),
  earning_time: EarningTime,
  eps_forecast: NumOrNull,
  eps_actual: NumOrNull,
  eps_surprise: Nullable(Type.Number({ description: "eps_actual − eps_forecast" })),
  no_of_estimates: Nullable(Integer()),
  fiscal_quarter_ending: Nullable(Type.String({ description: "YYYY-MM (month precision)" })),
  currency: Nullable(
    Type.String({
      description: "currency of the EPS figures when the source says (Alpha Vantage does; often not USD)",
    }),
  ),
});
export type CalendarRow = StaticDecode<typeof CalendarRow>;

/** Metadata of a document computed from one TTM or annual period (the importer adds the symbol). */
export type PeriodMetadata = Omit<Static<typeof PeriodMetadata>, "symbol">;
/** Metadata of a document computed from one annual period (the importer adds the symbol). */
export type AnnualMetadata = Omit<Static<typeof AnnualMetadata>, "symbol">;

export type FundamentalMetricsDocument = Static<typeof FundamentalMetrics>;
export type GrowthDocument = Static<typeof Growth>;
export type CapitalAllocationDocument = Static<typeof CapitalAllocation>;
export type OwnerEarningsDocument = Static<typeof OwnerEarnings>;
export type ValuationDocument = Static<typeof Valuation>;
export type ValuationHistoryDocument = Static<typeof ValuationHistory>;
export type ValuationPointsDocument = Static<typeof ValuationPoints>;
export type DividendDocument = Static<typeof Dividend>;
export type EarningsDocument = Static<typeof Earnings>;
export type EstimatesDocument = Static<typeof Estimates>;

/** Each kind of derived document's type, as the importer stores it and the routes serve it. */
export interface DerivedDocuments {
  valuation: ValuationDocument;
  valuation_history: ValuationHistoryDocument;
  valuation_points: ValuationPointsDocument;
  metrics: FundamentalMetricsDocument;
  growth: GrowthDocument;
  capital_allocation: CapitalAllocationDocument;
  owner_earnings: OwnerEarningsDocument;
  dividend: DividendDocument;
  earnings: EarningsDocument;
  estimates: EstimatesDocument;
}
