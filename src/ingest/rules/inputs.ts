/**
 * Plain input records of the derived-table computations (metrics, growth, valuation, ...).
 * The importer builds them from parsed sources; compute functions never read files.
 */
import type {
  BalanceSheetField,
  CashFlowField,
  IncomeStatementField,
  StatementPeriod,
} from "../../domain/statements.ts";

/** The three statements of one company, every period type, in any order. */
export interface CompanyStatements {
  income_statement: readonly StatementPeriod<IncomeStatementField>[];
  balance_sheet: readonly StatementPeriod<BalanceSheetField>[];
  cash_flow_statement: readonly StatementPeriod<CashFlowField>[];
}

/** Values of one statement; a field may be absent or null when not reported. */
export type StatementValues<F extends string> = Partial<Record<F, number | null>>;
export type IncomeValues = StatementValues<IncomeStatementField>;
export type BalanceValues = StatementValues<BalanceSheetField>;
export type CashFlowValues = StatementValues<CashFlowField>;

/** One daily price. `close` is split-adjusted (not dividend-adjusted); rows ascend by date. */
export interface PriceBar {
  date: string;
  close: number;
  adj_close?: number | null;
}

/** A shares-outstanding count (xbrl-filings.ts, sharesOutstanding): shares as of `date`, reported on `filed`. */
export interface SharesObservation {
  date: string;
  filed: string;
  value: number;
}

/** One dividend per share (split-adjusted) by ex-date. */
export interface DividendRow {
  ex_date: string;
  pay_date: string | null;
  amount: number;
  /** False when `amount` is as declared, before later splits (Nasdaq); absent or true: adjusted. */
  split_adjusted?: boolean;
}

/** A stock split effective on `date`: `ratio` new shares per old share (4-for-1 → 4, 1-for-10 → 0.1). */
export interface SplitEvent {
  date: string;
  ratio: number;
}

/** Imported profile growth signals (fractions); any field may be null. */
export interface GrowthSignals {
  owner_earnings: number | null;
  owner_earnings_growth_1y: number | null;
  owner_earnings_growth_3y: number | null;
  owner_earnings_growth_5y: number | null;
  dividend_growth_3y: number | null;
  dividend_growth_5y: number | null;
}

/** The estimate signal the valuation needs: next-fiscal-year EPS consensus. */
export interface EstimateSignals {
  eps_est_next_fy: number | null;
}
