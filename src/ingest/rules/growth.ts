/**
 * The growth document (/stocks/{symbol}/growth) from the annual history: one-year change and 3/5-year CAGR of
 * revenue, diluted EPS, free cash flow, book value per share and diluted share count, plus
 * dividend growth (imported signals, else calendar-year dividends per share).
 */
import { CALCULATION_VERSION } from "../../domain/calculation-version.ts";
import { yearOf } from "../../domain/dates.ts";
import { cagr, finiteOrNull, growthRate, ratioOverPositive } from "../../domain/ratios.ts";
import type { AnnualMetadata, GrowthDocument } from "../../snapshot/documents.ts";
import { sortedDividends } from "./dividend.ts";
import type { CompanyStatements, DividendRow, GrowthSignals } from "./inputs.ts";
import { fieldValue, freeCashFlowOf } from "./line-items.ts";
import { type FlowPeriod, StatementBook } from "./statement-book.ts";

/** Growth fields (fractions; 3y/5y share-count and dividend growth annualized). */
type GrowthFields = GrowthDocument["growth"];

/** The stored growth row: the document without the symbol, which derive.ts adds. */
export interface GrowthResult {
  metadata: AnnualMetadata;
  growth: GrowthFields;
}

/** Inputs of the growth table. */
export interface GrowthInput {
  statements: CompanyStatements;
  dividends?: readonly DividendRow[] | null;
  signals?: GrowthSignals | null;
  /** Snapshot date; calendar years before its year are complete. Default: the latest ex-date. */
  as_of?: string;
}

/** One-year change and 3/5-year CAGR of a per-period value. */
export interface GrowthTriple {
  y1: number | null;
  y3: number | null;
  y5: number | null;
}

/** Growth of `measure` from the annual periods 1, 3 and 5 years before `latest`. */
export function annualGrowth(
  book: StatementBook,
  latest: FlowPeriod,
  measure: (period: FlowPeriod) => number | null,
): GrowthTriple {
  const at = (years: number): number | null => {
    const p = book.flowYearsBefore(latest, years);
    return p === null ? null : measure(p);
  };
  const now = measure(latest);
  return { y1: growthRate(at(1), now), y3: cagr(at(3), now, 3), y5: cagr(at(5), now, 5) };
}

/** The latest annual period of a book. */
export function latestAnnual(book: StatementBook): FlowPeriod | null {
  const end = book.annualEnds().at(-1);
  return end === undefined ? null : book.flowAt("annual", end);
}

/**
 * Calendar-year dividend-per-share growth (CAGR over `years`) ending with the last complete
 * year; both years must be complete and inside the recorded history (after the first
 * ex-date's year, not after the last ex-date's year).
 */
export function dividendCagr(rows: readonly DividendRow[], years: number, asOf?: string): number | null {
  const sorted = sortedDividends(rows);
  const first = sorted[0];
  const last = sorted.at(-1);
  if (first === undefined || last === undefined) return null;
  const end = yearOf(asOf ?? last.ex_date) - 1;
  const start = end - years;
  if (start <= yearOf(first.ex_date) || end > yearOf(last.ex_date)) return null;
  const perYear = (year: number) =>
    sorted.filter((r) => yearOf(r.ex_date) === year).reduce((s, r) => s + r.amount, 0);
  return cagr(perYear(start), perYear(end), years);
}

/** Growth fields that come from the statements (all but dividend growth). */
type StatementGrowth = Omit<GrowthFields, "dividend_growth_3y" | "dividend_growth_5y">;

/**
 * Revenue, diluted EPS, FCF, book value per share (equity / diluted average shares) and
 * diluted share count growth. The statements carry every share count and EPS on one split
 * basis (statements.ts), so a split between two years is not growth.
 */
function statementGrowth(book: StatementBook, latest: FlowPeriod): StatementGrowth {
  const shares = (p: FlowPeriod) => fieldValue(p.income, "diluted_average_shares");
  const eps = (p: FlowPeriod) => fieldValue(p.income, "diluted_eps");
  const equity = (p: FlowPeriod) =>
    fieldValue(book.balanceYearsBefore(p.period_end, 0), "total_stockholders_equity");
  const revenue = annualGrowth(book, latest, (p) => fieldValue(p.income, "revenue"));
  const epsG = annualGrowth(book, latest, eps);
  const fcf = annualGrowth(book, latest, (p) => freeCashFlowOf(p.cash_flow));
  const bv = annualGrowth(book, latest, (p) => ratioOverPositive(equity(p), shares(p)));
  const count = annualGrowth(book, latest, shares);
  return {
    revenue_growth_1y: revenue.y1,
    revenue_cagr_3y: revenue.y3,
    revenue_cagr_5y: revenue.y5,
    eps_growth_1y: epsG.y1,
    eps_cagr_3y: epsG.y3,
    eps_cagr_5y: epsG.y5,
    fcf_growth_1y: fcf.y1,
    fcf_cagr_3y: fcf.y3,
    fcf_cagr_5y: fcf.y5,
    book_value_per_share_growth_1y: bv.y1,
    book_value_per_share_cagr_3y: bv.y3,
    book_value_per_share_cagr_5y: bv.y5,
    share_count_growth_1y: count.y1,
    share_count_growth_3y: count.y3,
    share_count_growth_5y: count.y5,
  };
}

/**
 * The growth row from the latest annual period; null without annual periods. Dividend
 * growth is the imported signal where present, else the calendar-year DPS CAGR.
 */
export function computeGrowth(input: GrowthInput): GrowthResult | null {
  const book = StatementBook.of(input.statements);
  const latest = latestAnnual(book);
  if (latest === null) return null;
  const rows = input.dividends ?? [];
  const signals = input.signals ?? null;
  return {
    metadata: annualMetadata(latest, CALCULATION_VERSION.growth),
    growth: {
      ...statementGrowth(book, latest),
      dividend_growth_3y: finiteOrNull(signals?.dividend_growth_3y) ?? dividendCagr(rows, 3, input.as_of),
      dividend_growth_5y: finiteOrNull(signals?.dividend_growth_5y) ?? dividendCagr(rows, 5, input.as_of),
    },
  };
}

/** Metadata for a table computed from one annual period. */
export function annualMetadata(period: FlowPeriod, version: string): AnnualMetadata {
  return {
    as_of_date: period.period_end,
    period_type: "annual",
    fiscal_year: period.fiscal_year,
    currency: period.currency,
    calculation_version: version,
  };
}
