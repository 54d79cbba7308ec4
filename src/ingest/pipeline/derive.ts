/**
 * Every derived document of one security, computed at import time and stored in
 * the snapshot as the exact response body each endpoint serves. Routes only read them.
 */

import { daysBetween } from "../../domain/dates.ts";
import type { DerivedKind } from "../../domain/derived.ts";
import type {
  CalendarRow,
  DerivedDocuments,
  DividendDocument,
  ValuationPointsDocument,
} from "../../snapshot/documents.ts";
import { computeCapitalAllocation } from "../rules/capital-allocation.ts";
import { computeDividendSnapshot } from "../rules/dividend.ts";
import {
  computeEarnings,
  computeEstimates,
  EARNINGS_VERSION,
  ESTIMATES_VERSION,
  REPORT_AFTER_ANNOUNCEMENT_DAYS,
} from "../rules/earnings.ts";
import { computeGrowth } from "../rules/growth.ts";
import type { CompanyStatements, DividendRow, SharesObservation, SplitEvent } from "../rules/inputs.ts";
import { type YieldMarketCap, yieldMarketCap, yieldNullReasons } from "../rules/market-yields.ts";
import { computeMetrics } from "../rules/metrics.ts";
import { computeOwnerEarnings } from "../rules/owner-earnings.ts";
import { perShareOnBasis, type ShareBasis } from "../rules/shares.ts";
import { inferSplits } from "../rules/splits.ts";
import { computeValuationSnapshot } from "../rules/valuation.ts";
import {
  computeValuationHistory,
  computeValuationPoints,
  type ValuationPointsResult,
} from "../rules/valuation-history.ts";
import type { EarningsHistory, EstimateSignalsRow } from "../sources/estimates.ts";
import type { GrowthSignalsRow } from "../sources/growth-signals.ts";
import type { PriceRow } from "../sources/price-rows.ts";

/** One row of the `derived` table: a pre-serialised response body. */
export interface DerivedRow {
  security_id: string;
  kind: DerivedKind;
  as_of: string | null;
  body: string;
}

export interface SecurityInputs {
  securityId: string;
  symbol: string;
  priceCurrency: string | null;
  // `splits`: the company's splits as its statements found them (splits.ts); else inferred from `shares`.
  statements: (CompanyStatements & { currency: string | null; splits?: readonly SplitEvent[] }) | null;
  shares: readonly SharesObservation[];
  prices: readonly PriceRow[];
  dividends: readonly DividendRow[] | null;
  calendar: readonly CalendarRow[];
  /** Filing dates of the periodic reports (10-K, 10-Q, 20-F, 40-F). */
  reportDates: readonly string[];
  /** Filing dates of those reports' results announcements (8-K item 2.02: rules/results-releases.ts). */
  resultsDates: readonly string[];
  estimates: EstimateSignalsRow | null;
  history: EarningsHistory | null;
  growth: GrowthSignalsRow | null;
}

/** Computes every document the inputs allow; a document that cannot be computed is absent (404). */
export function deriveSecurity(input: SecurityInputs): DerivedRow[] {
  const out: DerivedRow[] = [];
  const add: Add = (kind, asOf, body) =>
    out.push({ security_id: input.securityId, kind, as_of: asOf, body: JSON.stringify(body) });
  const symbol = input.symbol;
  const lastPrice = input.prices.at(-1) ?? null;
  const basis = basisOf(input);
  const dividends = dividendsOnBasis(input.dividends, basis);
  const statements = input.statements;
  let marketCap: number | null = null;
  if (statements && lastPrice) {
    const base = {
      statements,
      prices: input.prices,
      shares: input.shares,
      basis,
      price_currency: input.priceCurrency,
    };
    const estimates = { eps_est_next_fy: input.estimates?.eps_est_next_fy ?? null };
    const valuation = computeValuationSnapshot({ ...base, dividends, estimates });
    if (valuation) {
      marketCap = valuation.market_cap;
      const { calculation_version, ...fields } = valuation;
      add("valuation", valuation.date, { symbol, metadata: { calculation_version }, valuation: fields });
    }
    const history = computeValuationHistory(base);
    if (history.length > 0)
      add("valuation_history", history.at(-1)?.date ?? null, { symbol, valuation_history: history });
    const points = computeValuationPoints({ ...base, estimates });
    if (points.points.length > 0) {
      // The points are priced: their currency is the closes' (TSM's USD ADR, whose
      // statements are in TWD), else the statements'.
      const currency = input.priceCurrency ?? statements.currency;
      const metadata = pointsMetadata(symbol, points, lastPrice.date, currency);
      add("valuation_points", lastPrice.date, { metadata, points: points.points });
    }
  }
  // Market-based yields need a price of the same time as the fundamentals they divide
  // (market-yields.ts); the documents say why they are null when they are.
  if (statements) {
    const cap = yieldMarketCap(statements, lastPrice?.date ?? null, marketCap);
    addFundamentals(add, symbol, statements, cap, { ...input, dividends }, basis);
  }
  if (lastPrice) out.push(...deriveDividend(input, dividends, lastPrice.date));
  const asOf = ownAsOf(input);
  if (asOf !== null) out.push(...deriveEarnings(input, asOf));
  return out;
}

/**
 * The closes' share basis. Split-adjusted closes are on the basis of the day the price file
 * was made (its last row): counts reported before it are multiplied by the splits up to then,
 * and counts filed after it, on a later basis, are divided by the splits since. Without
 * prices: the basis after every split.
 */
function basisOf(input: SecurityInputs): ShareBasis {
  return {
    splits: input.statements?.splits ?? inferSplits(input.shares),
    date: input.prices.at(-1)?.date ?? null,
  };
}

/**
 * Dividend rows on the closes' basis: an amount as declared (a Nasdaq history) is divided by
 * the splits after its ex-date; split-adjusted amounts are kept.
 */
function dividendsOnBasis(
  rows: readonly DividendRow[] | null,
  basis: ShareBasis,
): readonly DividendRow[] | null {
  return (
    rows?.map((r) =>
      r.split_adjusted === false
        ? { ...r, amount: perShareOnBasis(r.amount, r.ex_date, basis) ?? r.amount, split_adjusted: true }
        : r,
    ) ?? null
  );
}

/** The dividend document of a security as of `asOf`; its yields need a close on or before it. */
function deriveDividend(
  input: SecurityInputs,
  dividends: readonly DividendRow[] | null,
  asOf: string,
): DerivedRow[] {
  if (!dividends || dividends.length === 0) return [];
  const dividend = computeDividendSnapshot({ dividends, prices: input.prices, as_of: asOf });
  if (!dividend) return [];
  const { calculation_version, as_of_date, ...fields } = dividend;
  const body: DividendDocument = {
    symbol: input.symbol,
    metadata: { as_of_date, calculation_version },
    dividend: fields,
  };
  return [{ security_id: input.securityId, kind: "dividend", as_of: as_of_date, body: JSON.stringify(body) }];
}

/**
 * Which of a security's documents are dated by the whole snapshot: earnings without a price
 * or report of its own, dividends without prices (their yields are then null).
 */
function undated(input: SecurityInputs) {
  return {
    earnings: ownAsOf(input) === null && input.calendar.length > 0,
    dividends: input.prices.length === 0 && (input.dividends?.length ?? 0) > 0,
  };
}

/** Whether some of a security's documents wait for the snapshot's data date (`deriveUndated`). */
export function isUndated(input: SecurityInputs): boolean {
  const { earnings, dividends } = undated(input);
  return earnings || dividends;
}

/** Those documents, as of the snapshot's data date (its latest price date). */
export function deriveUndated(input: SecurityInputs, dataAsOf: string): DerivedRow[] {
  const { earnings, dividends } = undated(input);
  return [
    ...(earnings ? deriveEarnings(input, dataAsOf) : []),
    ...(dividends ? deriveDividend(input, dividendsOnBasis(input.dividends, basisOf(input)), dataAsOf) : []),
  ];
}

/** Stores a document of `kind`; its body has the type of the kind's schema (snapshot/documents.ts). */
type Add = <K extends DerivedKind>(kind: K, asOf: string | null, body: DerivedDocuments[K]) => void;

function addFundamentals(
  add: Add,
  symbol: string,
  statements: CompanyStatements,
  cap: YieldMarketCap,
  input: SecurityInputs,
  basis: ShareBasis,
): void {
  const marketCap = cap.market_cap;
  const metrics = computeMetrics({ statements, market_cap: marketCap });
  if (metrics) {
    const null_reasons = yieldNullReasons(metrics.metrics, METRICS_YIELDS, cap);
    add("metrics", metrics.metadata.as_of_date, {
      metadata: { symbol, ...metrics.metadata, null_reasons },
      metrics: metrics.metrics,
    });
  }
  const growth = computeGrowth({
    statements,
    dividends: input.dividends,
    signals: input.growth,
    as_of: input.prices.at(-1)?.date,
  });
  if (growth)
    add("growth", growth.metadata.as_of_date, {
      metadata: { symbol, ...growth.metadata },
      growth: growth.growth,
    });
  const capital = computeCapitalAllocation({ statements, market_cap: marketCap, basis });
  if (capital) {
    const { metadata, capital_allocation } = capital;
    const null_reasons = yieldNullReasons(capital_allocation, ["buyback_yield"], cap);
    add("capital_allocation", metadata.as_of_date, {
      metadata: { symbol, ...metadata, null_reasons },
      capital_allocation,
    });
  }
  const owner = computeOwnerEarnings({ statements, market_cap: marketCap, signals: input.growth });
  if (owner) {
    const { metadata, owner_earnings } = owner;
    const null_reasons = yieldNullReasons(owner_earnings, ["owner_earnings_yield"], cap);
    add("owner_earnings", metadata.as_of_date, {
      symbol,
      metadata: { symbol, ...metadata, null_reasons },
      owner_earnings,
    });
  }
}

/** The metrics that divide by the market cap. */
const METRICS_YIELDS = ["shareholder_yield", "buyback_yield", "dividend_yield_ttm"] as const;

/**
 * "Now" for a security: the later of its last price and its latest periodic report (from
 * the submissions or, where they end earlier, the statements' own filing dates); null when
 * it has neither, and the importer then uses the snapshot's data date.
 */
export function ownAsOf(input: SecurityInputs): string | null {
  // A results announcement precedes its report (rules/results-releases.ts), so the reports
  // date "now".
  const dates = [input.prices.at(-1)?.date, ...reportingDates(input)].filter(
    (d): d is string => d !== undefined,
  );
  return dates.length > 0 ? (dates.sort().at(-1) ?? null) : null;
}

/**
 * Dates a company reported results on: the submissions' periodic report dates, the first
 * filing dates of the statements' periods and the reported dates of an imported earnings
 * history's quarters with a reported EPS (a semi-annual reporter's other quarters published
 * none).
 */
function reportingDates(input: SecurityInputs): string[] {
  const fromStatements = (input.statements?.income_statement ?? [])
    .filter((p) => p.period_type !== "ttm")
    .map((p) => p.first_filed);
  return [...input.reportDates, ...fromStatements, ...historyReleases(input)];
}

/** The reported dates of an imported earnings history's quarters with a reported EPS. */
function historyReleases(input: SecurityInputs): string[] {
  return (input.history?.quarterly ?? [])
    .filter((q) => q.reported_eps !== null)
    .map((q) => q.reported_date)
    .filter((d): d is string => d !== null);
}

/**
 * Earnings release dates: the results announcements (8-K item 2.02 before a report: Apple's
 * of 2026-01-29, a day before its 10-Q; the imported calendar's dates of reported quarters
 * and the earnings history's reported dates, which are announcement dates too), and the
 * reporting dates that no announcement preceded by up to 45 days (a company that announces
 * nothing on an 8-K releases with its report). A 10-Q filed two weeks after the calendar's
 * release is that release's report, not a release of its own.
 */
function releaseDates(input: SecurityInputs): string[] {
  const calendar = input.calendar.filter((c) => c.eps_actual !== null).map((c) => c.earning_date);
  const announcements = [...input.resultsDates, ...calendar, ...historyReleases(input)];
  const announced = (date: string) =>
    announcements.some((r) => r <= date && daysBetween(r, date) <= REPORT_AFTER_ANNOUNCEMENT_DAYS);
  return [...new Set([...announcements, ...reportingDates(input).filter((d) => !announced(d))])].sort();
}

/** The earnings and estimates documents of a security as of `asOf`. */
export function deriveEarnings(input: SecurityInputs, asOf: string): DerivedRow[] {
  const out: DerivedRow[] = [];
  const { symbol } = input;
  const add = <K extends DerivedKind>(kind: K, body: DerivedDocuments[K]) =>
    out.push({ security_id: input.securityId, kind, as_of: asOf, body: JSON.stringify(body) });
  const reportDates = releaseDates(input);
  const quarters = input.statements?.income_statement.filter((p) => p.period_type === "quarterly") ?? [];
  if (reportDates.length > 0 || input.calendar.length > 0 || quarters.length > 0) {
    const earnings = computeEarnings({
      asOf,
      reportDates,
      quarters,
      calendar: input.calendar,
      history: input.history,
    });
    const metadata = { symbol, as_of_date: asOf, calculation_version: EARNINGS_VERSION };
    add("earnings", { symbol, metadata, earnings });
  }
  const lastPrice = input.prices.at(-1) ?? null;
  const estimates = computeEstimates(input.estimates, input.history, lastPrice?.close ?? null);
  if (estimates) {
    const metadata = {
      symbol,
      as_of_date: estimates.as_of_date ?? asOf,
      price_date: lastPrice?.date ?? null,
      calculation_version: ESTIMATES_VERSION,
    };
    add("estimates", { symbol, metadata, estimates });
  }
  return out;
}

function pointsMetadata(
  symbol: string,
  points: ValuationPointsResult,
  asOf: string,
  currency: string | null,
): ValuationPointsDocument["metadata"] {
  return {
    symbol,
    as_of_date: asOf,
    frequency: "monthly",
    currency,
    calculation_version: points.calculation_version,
    method:
      "today's fundamentals applied across the stored month-end prices: an approximation of historical multiples, not a point-in-time model (see /securities/{ticker}/valuation/history for that)",
    // Which multiple valuation_percentile_3y/5y/10y rank: "pe", else "ev_to_revenue" for a
    // company without earnings; null when the points have neither.
    percentile_basis: points.percentile_basis,
  };
}
