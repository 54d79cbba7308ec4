/**
 * The two monthly valuation series: the securities family's point-in-time history
 * and the stocks family's points with today's fundamentals applied to past prices.
 * Both use the last trading day of each month in the price series.
 */
import { CALCULATION_VERSION } from "../../domain/calculation-version.ts";
import { ratioOverPositive } from "../../domain/ratios.ts";
import type { ValuationHistoryDocument, ValuationPointsDocument } from "../../snapshot/documents.ts";
import { freeCashFlowOf } from "./line-items.ts";
import { trailingPercentiles } from "./percentile.ts";
import { PointInTimeFundamentals } from "./point-in-time.ts";
import { monthEndPrices, validPrices } from "./price-series.ts";
import { NO_SPLITS } from "./shares.ts";
import { computeMultiples, forwardPe, inPriceCurrency, type ValuationInput } from "./valuation.ts";

/** One row of `valuation_history`. */
export type ValuationHistoryRow = ValuationHistoryDocument["valuation_history"][number];

/** One element of `points`. */
export type ValuationPoint = ValuationPointsDocument["points"][number];

/** What the percentile ranks of the points rank: P/E, else EV/revenue (see addPercentiles). */
export type PercentileBasis = "pe" | "ev_to_revenue";

/** The stocks-family series with its methodology version and the basis of its percentiles. */
export interface ValuationPointsResult {
  calculation_version: string;
  /** null when neither P/E nor EV/revenue exists at any point (no percentile is given). */
  percentile_basis: PercentileBasis | null;
  points: ValuationPoint[];
}

/**
 * Point-in-time monthly history: each month end uses only statements first filed and
 * shares reported on or before it. Rows start at the first month end with a market cap.
 * O(months + periods) after sorting.
 */
export function computeValuationHistory(
  input: Omit<ValuationInput, "dividends" | "estimates">,
): ValuationHistoryRow[] {
  const basis = input.basis ?? NO_SPLITS;
  const pit = new PointInTimeFundamentals(input.statements, input.shares, basis);
  const rows: ValuationHistoryRow[] = [];
  for (const bar of monthEndPrices(validPrices(input.prices))) {
    const known = inPriceCurrency(pit.at(bar.date), input.price_currency);
    const m = computeMultiples(bar.close, known);
    if (m.market_cap === null) continue;
    rows.push({
      date: bar.date,
      market_cap: m.market_cap,
      enterprise_value: m.enterprise_value,
      pe_ratio: m.pe_ratio,
      pb_ratio: m.pb_ratio,
      ps_ratio: m.ps_ratio,
      peg_ratio: m.peg_ratio,
      ev_to_revenue: m.ev_to_revenue,
      ev_to_ebitda: m.ev_to_ebitda,
      earnings_yield: m.earnings_yield,
      fcf_yield: m.fcf_yield,
    });
  }
  return rows;
}

/**
 * Monthly points with the fundamentals known on the last price date (the snapshot's
 * anchors) applied to every month-end close: market cap = close × today's shares (closes are
 * split-adjusted, and the shares are put on the closes' basis), EV = market cap + today's net claims.
 */
export function computeValuationPoints(input: Omit<ValuationInput, "dividends">): ValuationPointsResult {
  const basis = input.basis ?? NO_SPLITS;
  const prices = validPrices(input.prices);
  const last = prices[prices.length - 1];
  const version = CALCULATION_VERSION.valuation_points;
  if (last === undefined) return { calculation_version: version, percentile_basis: null, points: [] };
  const pit = new PointInTimeFundamentals(input.statements, input.shares, basis);
  const known = inPriceCurrency(pit.at(last.date), input.price_currency);
  const fcf = freeCashFlowOf(known.flow?.cash_flow ?? null);
  const points = monthEndPrices(prices).map((bar): ValuationPoint => {
    const m = computeMultiples(bar.close, known);
    return {
      date: bar.date,
      price: bar.close,
      market_cap: m.market_cap,
      enterprise_value: m.enterprise_value,
      pe: m.pe_ratio,
      forward_pe: forwardPe(bar.close, input.estimates),
      pb: m.pb_ratio,
      price_to_fcf: ratioOverPositive(m.market_cap, fcf),
      ev_to_revenue: m.ev_to_revenue,
      ev_to_ebitda: m.ev_to_ebitda,
      fcf_yield: m.fcf_yield,
      earnings_yield: m.earnings_yield,
      valuation_percentile_3y: null,
      valuation_percentile_5y: null,
      valuation_percentile_10y: null,
    };
  });
  const ranked = percentileBasisOf(points);
  if (ranked !== null) addPercentiles(points, ranked);
  return { calculation_version: version, percentile_basis: ranked, points };
}

/**
 * The multiple the percentiles rank: P/E where the points have one (today's EPS and net
 * income > 0), else EV/revenue, which a company that has never been profitable has too; null
 * when the points have neither. One basis for the whole series, as its fundamentals are fixed.
 */
function percentileBasisOf(points: readonly ValuationPoint[]): PercentileBasis | null {
  if (points.some((p) => p.pe !== null)) return "pe";
  if (points.some((p) => p.ev_to_revenue !== null)) return "ev_to_revenue";
  return null;
}

/** Fills the 3/5/10-year trailing percentile ranks of each point's multiple of `basis`. */
function addPercentiles(points: ValuationPoint[], basis: PercentileBasis): void {
  const dates = points.map((p) => p.date);
  const values = points.map((p) => p[basis]);
  const [p3, p5, p10] = [36, 60, 120].map((months) => trailingPercentiles(dates, values, months));
  points.forEach((p, i) => {
    p.valuation_percentile_3y = p3?.[i] ?? null;
    p.valuation_percentile_5y = p5?.[i] ?? null;
    p.valuation_percentile_10y = p10?.[i] ?? null;
  });
}
