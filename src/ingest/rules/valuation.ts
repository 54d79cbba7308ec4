/**
 * Valuation multiples from a market cap and the fundamentals known at a date.
 * One formula set serves the snapshot, the point-in-time history and the
 * anchored monthly points; see docs/methodology.md, "Valuation".
 */
import { CALCULATION_VERSION } from "../../domain/calculation-version.ts";
import { finiteOrNull, growthRate, ratio, ratioOverPositive } from "../../domain/ratios.ts";
import type { ValuationDocument } from "../../snapshot/documents.ts";
import { trailingDividendSum } from "./dividend.ts";
import type {
  CompanyStatements,
  DividendRow,
  EstimateSignals,
  PriceBar,
  SharesObservation,
} from "./inputs.ts";
import { ebitdaOf, fieldValue, freeCashFlowOf, netClaimsOf, netDebtOf } from "./line-items.ts";
import { type KnownFundamentals, NOTHING_KNOWN, PointInTimeFundamentals } from "./point-in-time.ts";
import { validPrices } from "./price-series.ts";
import { NO_SPLITS, type ShareBasis } from "./shares.ts";
import type { FlowPeriod } from "./statement-book.ts";

/** The valuation document's figures and date. */
type ValuationFields = ValuationDocument["valuation"];

/** Multiples computed from a market cap and known fundamentals. */
export type ValuationMultiples = Omit<ValuationFields, "date" | "forward_pe" | "dividend_yield">;

/** The valuation snapshot: the document's figures and its methodology version (derive.ts splits them). */
export type ValuationSnapshot = ValuationFields & { calculation_version: string };

/** Inputs of the valuation snapshot and the two histories. */
export interface ValuationInput {
  statements: CompanyStatements;
  prices: readonly PriceBar[];
  shares: readonly SharesObservation[];
  /** The closes' share basis, which share counts and EPS are put on (default: no splits). */
  basis?: ShareBasis;
  /** Dividend rows; null or absent when no dividend data was imported (yield is then null). */
  dividends?: readonly DividendRow[] | null;
  estimates?: EstimateSignals | null;
  /** Currency of the prices; when the statements report in another one, no multiple is computed. */
  price_currency?: string | null;
}

/**
 * The fundamentals usable with prices quoted in `priceCurrency`: nothing when the statements
 * report in another currency (typically a foreign filer's ADR, where neither the FX rate nor
 * the ADR ratio is known). An absent price currency is taken to match.
 */
export function inPriceCurrency(
  known: KnownFundamentals,
  priceCurrency: string | null | undefined,
): KnownFundamentals {
  const mismatch = priceCurrency && known.currency !== null && known.currency !== priceCurrency;
  return mismatch ? NOTHING_KNOWN : known;
}

/**
 * Trailing PEG: P/E ÷ (one-year diluted EPS growth × 100); null unless the growth is > 0.
 * The statements carry every EPS on one split basis (statements.ts), so a split between the
 * two years is not growth.
 */
function pegRatio(pe: number | null, known: KnownFundamentals): number | null {
  const eps = (flow: FlowPeriod | null) => fieldValue(flow?.income, "diluted_eps");
  const growth = growthRate(eps(known.prior_flow), eps(known.flow));
  return growth === null ? null : ratioOverPositive(pe, growth * 100);
}

/** Market cap = close × shares on the closes' share basis; null when either is missing or ≤ 0. */
function marketCapOf(close: number | null, shares: number | null): number | null {
  if (close === null || shares === null || close <= 0 || shares <= 0) return null;
  return finiteOrNull(close * shares);
}

/**
 * P/E per share: close ÷ the period's diluted EPS on the closes' share basis, as vendors
 * quote it. The EPS denominator is the period's average diluted count, not today's count of
 * one share class, so buybacks during the year and other classes (Alphabet's) do not move
 * it. Null unless both EPS and net income are > 0. Without an EPS (a filer that tags none):
 * market cap ÷ net income.
 */
function peRatio(close: number, marketCap: number | null, known: KnownFundamentals): number | null {
  const netIncome = fieldValue(known.flow?.income, "net_income");
  if (netIncome !== null && netIncome <= 0) return null;
  if (known.eps !== null) return ratioOverPositive(close, known.eps);
  return ratioOverPositive(marketCap, netIncome);
}

/**
 * Every multiple of the valuation document except forward P/E and dividend yield, at a close: market cap =
 * close × the known shares outstanding (marketCapOf), P/E per share (peRatio).
 */
export function computeMultiples(close: number, known: KnownFundamentals): ValuationMultiples {
  const marketCap = marketCapOf(close, known.shares);
  const income = known.flow?.income ?? null;
  const cash = known.flow?.cash_flow ?? null;
  const netIncome = fieldValue(income, "net_income");
  const revenue = fieldValue(income, "revenue");
  const fcf = freeCashFlowOf(cash);
  const claims = netClaimsOf(known.balance);
  const ev = marketCap === null || claims === null ? null : marketCap + claims;
  const pe = marketCap === null ? null : peRatio(close, marketCap, known);
  return {
    market_cap: marketCap,
    enterprise_value: ev,
    net_debt: netDebtOf(known.balance),
    pe_ratio: pe,
    pb_ratio: ratioOverPositive(marketCap, fieldValue(known.balance, "total_stockholders_equity")),
    ps_ratio: ratioOverPositive(marketCap, revenue),
    peg_ratio: pegRatio(pe, known),
    ev_to_revenue: ratioOverPositive(ev, revenue),
    ev_to_ebitda: ratioOverPositive(ev, ebitdaOf(income, cash)),
    ev_to_fcf: ratioOverPositive(ev, fcf),
    earnings_yield: ratioOverPositive(netIncome, marketCap),
    fcf_yield: ratioOverPositive(fcf, marketCap),
  };
}

/** Forward P/E = price ÷ next-fiscal-year EPS estimate; null when the estimate is ≤ 0. */
export function forwardPe(
  price: number | null,
  estimates: EstimateSignals | null | undefined,
): number | null {
  return ratioOverPositive(price, estimates?.eps_est_next_fy ?? null);
}

/**
 * The valuation on the last price date, using only statements first filed and shares
 * reported on or before that date. Null without prices.
 */
export function computeValuationSnapshot(input: ValuationInput): ValuationSnapshot | null {
  const prices = validPrices(input.prices);
  const last = prices[prices.length - 1];
  if (last === undefined) return null;
  const basis = input.basis ?? NO_SPLITS;
  const pit = new PointInTimeFundamentals(input.statements, input.shares, basis);
  const known = inPriceCurrency(pit.at(last.date), input.price_currency);
  const multiples = computeMultiples(last.close, known);
  return {
    date: last.date,
    calculation_version: CALCULATION_VERSION.valuation,
    ...multiples,
    forward_pe: forwardPe(last.close, input.estimates),
    dividend_yield: ratio(trailingDividendSum(input.dividends ?? null, last.date), last.close),
  };
}
