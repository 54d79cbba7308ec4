import { t } from "elysia";
import { Nullable, NumOrNull, StrOrNull } from "./common.ts";

/** An object of nullable numbers, one per field name. */
function numbers<const K extends string>(fields: readonly K[]) {
  return t.Object(Object.fromEntries(fields.map((f) => [f, NumOrNull])) as Record<K, typeof NumOrNull>);
}

const Metadata = t.Object({
  symbol: t.String(),
  as_of_date: t.String({ description: "end of the period the values come from" }),
  period_type: t.String({ description: "ttm or annual" }),
  currency: StrOrNull,
  calculation_version: t.String(),
});

/**
 * `metadata.null_reasons`: the document's market-based fields that are null because no market
 * cap of its statements' moment exists, each with the rule (docs/methodology.md, "Market cap").
 */
function nullReasons<const K extends string>(fields: readonly K[]) {
  const reason = t.Optional(
    t.String({ description: "no_market_cap, statements_filed_after_last_price or statements_not_current" }),
  );
  return t.Object({
    null_reasons: t.Object(Object.fromEntries(fields.map((f) => [f, reason])) as Record<K, typeof reason>),
  });
}

const AnnualMetadata = t.Object({
  symbol: t.String(),
  as_of_date: t.String(),
  period_type: t.Literal("annual"),
  fiscal_year: t.Integer(),
  currency: StrOrNull,
  calculation_version: t.String(),
});

export const FundamentalMetrics = t.Object({
  metadata: t.Intersect([
    Metadata,
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

export const Growth = t.Object({
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

export const CapitalAllocation = t.Object({
  metadata: t.Intersect([AnnualMetadata, nullReasons(["buyback_yield"])]),
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

export const OwnerEarnings = t.Object({
  symbol: t.String(),
  metadata: t.Intersect([Metadata, nullReasons(["owner_earnings_yield"])]),
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

const VersionOnly = t.Object({ calculation_version: t.String() });

export const Valuation = t.Object({
  symbol: t.String(),
  metadata: VersionOnly,
  valuation: t.Intersect([
    t.Object({ date: t.String({ description: "last price date; fundamentals filed on or before it" }) }),
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

export const ValuationHistory = t.Object({
  symbol: t.String(),
  valuation_history: t.Array(
    t.Intersect([
      t.Object({ date: t.String() }),
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

export const ValuationPoints = t.Object({
  metadata: t.Object({
    symbol: t.String(),
    as_of_date: t.String(),
    frequency: t.Literal("monthly"),
    currency: StrOrNull,
    calculation_version: t.String(),
    method: t.String(),
    percentile_basis: Nullable(
      t.String({ description: "what valuation_percentile_* rank: pe, else ev_to_revenue (no earnings)" }),
    ),
  }),
  points: t.Array(
    t.Intersect([
      t.Object({ date: t.String(), price: t.Number() }),
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

export const Dividend = t.Object({
  symbol: t.String(),
  metadata: t.Object({ as_of_date: t.String(), calculation_version: t.String() }),
  dividend: t.Intersect([
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
    t.Object({
      ex_dividend_date_next: StrOrNull,
      payment_date_next: StrOrNull,
      dividend_frequency: Nullable(
        t.String({ description: "monthly, quarterly, semi-annual, annual or irregular" }),
      ),
    }),
  ]),
});

const SymbolMetadata = t.Object({
  symbol: t.String(),
  as_of_date: StrOrNull,
  calculation_version: t.String(),
});

export const Earnings = t.Object({
  symbol: t.String(),
  metadata: SymbolMetadata,
  earnings: t.Intersect([
    t.Object({
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

export const Estimates = t.Object({
  symbol: t.String(),
  metadata: t.Object({
    symbol: t.String(),
    as_of_date: StrOrNull,
    price_date: StrOrNull,
    calculation_version: t.String(),
  }),
  estimates: t.Intersect([
    t.Object({ as_of_date: StrOrNull }),
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

export const CalendarRow = t.Object({
  cik: StrOrNull,
  ticker: t.String(),
  earning_date: t.String(),
  earning_time: t.String({ description: "pre-market, after-hours, during-market or not-supplied" }),
  eps_forecast: NumOrNull,
  eps_actual: NumOrNull,
  eps_surprise: NumOrNull,
  no_of_estimates: Nullable(t.Integer()),
  fiscal_quarter_ending: StrOrNull,
  currency: StrOrNull,
});
