/**
 * The earnings and the estimates documents of one security.
 * Release dates come from the company's 10-Q/10-K filings and the imported calendar; the
 * latest quarter's EPS from the statements, else from an imported earnings history.
 */

import { addDays, daysBetween } from "../../domain/dates.ts";
import { ratio } from "../../domain/ratios.ts";
import type { StatementPeriod } from "../../domain/statements.ts";
import type { CalendarRow, EarningsDocument, EstimatesDocument } from "../../snapshot/documents.ts";
import type { EarningsHistory, EstimateSignalsRow } from "../sources/estimates.ts";

export const EARNINGS_VERSION = "earnings-2026.11.25";

/** A report this many days or fewer after a results announcement is that announcement's. */
export const REPORT_AFTER_ANNOUNCEMENT_DAYS = 45;
export const ESTIMATES_VERSION = "estimates-2026.11.5";

/**
 * Longest time from the end of the latest quarter on file to the latest release while the
 * facts are still current: one quarter (the next quarter's press release may come before its
 * report's facts) plus the longest filing lag (a 20-F's four months; 10-K deadlines are 60–90
 * days). Longer, and the company's facts have stopped (Tesla's companyfacts end in 2022): that
 * quarter's EPS is not served as the latest quarter's.
 */
const STALE_AFTER_DAYS = 91 + 135;

/** The earnings document's figures (derive.ts adds the symbol and metadata). */
export type EarningsSnapshot = EarningsDocument["earnings"];

export interface EarningsInput {
  asOf: string;
  /** Release dates: periodic report filings (amendments excluded) and an earnings history's. */
  reportDates: readonly string[];
  quarters: readonly StatementPeriod[];
  calendar: readonly CalendarRow[];
  history: EarningsHistory | null;
}

/**
 * Release dates: past ones are the report dates and calendar dates on or before `asOf`; the
 * next one is the first calendar date after it. The latest quarter is the newest of the
 * quarterly statements' and of the earnings history's and the calendar's reported quarters
 * (the same quarter when they end in the same month; a calendar quarter is dated at its
 * month's end), if it ended at most `STALE_AFTER_DAYS` before the latest release. Its EPS: the statement's diluted EPS; where the filer reports none for that quarter
 * (Q4 is usually only in the annual report; a quarter the filer reports year to date only)
 * or has no statements, the earnings history's reported EPS for the same quarter end, else the
 * calendar's reported EPS of that fiscal quarter; estimate and surprise come from the earnings
 * history or the calendar.
 */
export function computeEarnings(input: EarningsInput): EarningsSnapshot {
  const past = [...new Set([...input.reportDates, ...input.calendar.map((c) => c.earning_date)])]
    .filter((d) => d <= input.asOf)
    .sort()
    .reverse();
  const next = input.calendar
    .filter((c) => c.earning_date > input.asOf)
    .sort((a, b) => a.earning_date.localeCompare(b.earning_date))[0];
  const statementQ = [...input.quarters].sort((a, b) => b.period_end.localeCompare(a.period_end))[0];
  const historyEnd = (input.history?.quarterly ?? [])
    .filter((q) => q.reported_eps !== null && q.reported_date !== null && q.reported_date <= input.asOf)
    .map((q) => q.fiscal_date_ending)
    .sort()
    .at(-1);
  // The calendar's quarters reported by now, dated at their month's end (it gives the month).
  const calendarEnd = input.calendar
    .filter((c) => c.eps_actual !== null && c.fiscal_quarter_ending !== null && c.earning_date <= input.asOf)
    .map((c) => lastDayOfMonth(c.fiscal_quarter_ending as string))
    .sort()
    .at(-1);
  const reportedEnd =
    historyEnd === undefined ||
    (calendarEnd !== undefined && calendarEnd > historyEnd && !sameMonth(calendarEnd, historyEnd))
      ? calendarEnd
      : historyEnd;
  const newestEnd =
    statementQ &&
    (reportedEnd === undefined ||
      statementQ.period_end >= reportedEnd ||
      sameMonth(statementQ.period_end, reportedEnd))
      ? statementQ.period_end
      : reportedEnd;
  const release = past[0];
  const latestEnd =
    newestEnd !== undefined && (release === undefined || daysBetween(newestEnd, release) <= STALE_AFTER_DAYS)
      ? newestEnd
      : null;
  const latestQ = latestEnd !== null && statementQ?.period_end === latestEnd ? statementQ : null;
  const historyQ =
    latestEnd === null
      ? undefined
      : input.history?.quarterly.find((q) => sameMonth(q.fiscal_date_ending, latestEnd));
  const calendarQ = latestEnd === null ? undefined : calendarRowOf(input.calendar, latestEnd);
  const eps =
    (latestQ?.values.diluted_eps as number | null | undefined) ??
    historyQ?.reported_eps ??
    calendarQ?.eps_actual ??
    null;
  const releaseRow = input.calendar.find((c) => c.eps_actual !== null && c.earning_date === past[0]);
  const estimate = historyQ?.estimated_eps ?? (calendarQ ?? releaseRow)?.eps_forecast ?? null;
  const surprise = eps !== null && estimate !== null ? round(eps - estimate) : null;
  return {
    latest_earnings_release_date: past[0] ?? null,
    past_earnings_date: past[1] ?? null,
    next_earnings_date: next?.earning_date ?? null,
    next_earnings_time: next?.earning_time ?? null,
    eps_latest_q: eps,
    eps_latest_q_period_end: latestEnd,
    eps_estimate_latest_q: estimate,
    eps_surprise_latest_q: surprise,
    eps_surprise_ratio_latest_q:
      surprise !== null && estimate !== null && estimate !== 0 ? ratio(surprise, Math.abs(estimate)) : null,
    eps_estimate_next_q: next?.eps_forecast ?? null,
    no_of_estimates_next_q: next?.no_of_estimates ?? null,
  };
}

/** The estimates document's figures (derive.ts adds the symbol and metadata). */
export type EstimatesSnapshot = EstimatesDocument["estimates"];

/**
 * Imported estimate signals, with forward P/E = last close / next-FY EPS estimate (null when
 * the estimate is ≤ 0) and forward PEG = forward P/E / (5-year EPS growth estimate × 100)
 * (null when growth ≤ 0). Without a signals row, next-quarter EPS growth comes from an
 * earnings history's estimate for the next quarter against the same quarter a year earlier.
 */
export function computeEstimates(
  signals: EstimateSignalsRow | null,
  history: EarningsHistory | null,
  close: number | null,
): EstimatesSnapshot | null {
  const nextQ = history ? nextQuarterGrowth(history) : null;
  if (!signals && nextQ === null) return null;
  const epsNextFy = signals?.eps_est_next_fy ?? null;
  const forwardPe = close !== null && epsNextFy !== null && epsNextFy > 0 ? close / epsNextFy : null;
  const growth5y = signals?.earning_growth_5y_est ?? null;
  return {
    as_of_date: signals?.as_of_date ?? null,
    eps_growth_yoy_est_next_q: signals?.eps_growth_yoy_est_next_q ?? nextQ,
    eps_growth_yoy_est_next_fy: signals?.eps_growth_yoy_est_next_fy ?? null,
    rvn_growth_yoy_est_next_q: signals?.rvn_growth_yoy_est_next_q ?? null,
    rvn_growth_yoy_est_next_fy: signals?.rvn_growth_yoy_est_next_fy ?? null,
    earning_growth_5y_est: growth5y,
    total_rvn_growth_5y_est: signals?.total_rvn_growth_5y_est ?? null,
    eps_est_next_fy: epsNextFy,
    forward_pe: forwardPe,
    forward_peg_ratio:
      forwardPe !== null && growth5y !== null && growth5y > 0 ? forwardPe / (growth5y * 100) : null,
  };
}

/** Growth of the first unreported quarter's estimate over the reported EPS a year before it. */
function nextQuarterGrowth(history: EarningsHistory): number | null {
  const next = nextQuarterBasis(history);
  return "growth" in next ? next.growth : null;
}

/**
 * Why an earnings history gives no next-quarter EPS growth (so, without a signals row, no
 * estimates document): the import report says it. Null when it gives one.
 */
export function nextQuarterGap(history: EarningsHistory): string | null {
  const next = nextQuarterBasis(history);
  return "gap" in next ? next.gap : null;
}

/**
 * The first quarter with an estimate and no reported EPS, over the reported EPS of the same
 * quarter a year earlier; or, when there is none, what is missing. Alpha Vantage lists an
 * upcoming quarter only while its report is pending: a file fetched after a report carries no
 * forward estimate at all.
 */
function nextQuarterBasis(history: EarningsHistory): { growth: number } | { gap: string } {
  const upcoming = history.quarterly
    .filter((q) => q.reported_eps === null && q.estimated_eps !== null)
    .sort((a, b) => a.fiscal_date_ending.localeCompare(b.fiscal_date_ending))[0];
  if (!upcoming || upcoming.estimated_eps === null) {
    const newest = history.quarterly
      .filter((q) => q.estimated_eps !== null)
      .sort((a, b) => b.fiscal_date_ending.localeCompare(a.fiscal_date_ending))[0];
    const reported = newest?.reported_date ? `, reported ${newest.reported_date}` : "";
    return { gap: newest ? `newest estimate ${newest.fiscal_date_ending}${reported}` : "no estimate" };
  }
  const yearBefore = shiftYear(upcoming.fiscal_date_ending, -1);
  const base =
    history.quarterly.find((q) => sameMonth(q.fiscal_date_ending, yearBefore))?.reported_eps ?? null;
  if (base === null || base <= 0) return { gap: `no reported EPS above 0 for ${yearBefore}` };
  return { growth: upcoming.estimated_eps / base - 1 };
}

/**
 * The calendar row with a reported EPS for the quarter ending `end`: its fiscal quarter
 * (YYYY-MM) is the month of the end, or of a day within a week of it (a 52/53-week quarter
 * ending on 2024-09-28 or 2024-10-03 is September's).
 */
function calendarRowOf(calendar: readonly CalendarRow[], end: string): CalendarRow | undefined {
  const months = new Set([end, addDays(end, -7), addDays(end, 7)].map((d) => d.slice(0, 7)));
  return calendar
    .filter((c) => c.eps_actual !== null && c.fiscal_quarter_ending !== null)
    .filter((c) => months.has(c.fiscal_quarter_ending as string))
    .sort((a, b) => b.earning_date.localeCompare(a.earning_date))[0];
}

/** The last day of a month given as YYYY-MM. */
function lastDayOfMonth(month: string): string {
  const [year, m] = month.split("-").map(Number) as [number, number];
  const next = m === 12 ? `${year + 1}-01-01` : `${year}-${String(m + 1).padStart(2, "0")}-01`;
  return addDays(next, -1);
}

function sameMonth(a: string, b: string): boolean {
  return a.slice(0, 7) === b.slice(0, 7) || Math.abs(daysBetween(a, b)) <= 7;
}

function shiftYear(date: string, years: number): string {
  return `${Number(date.slice(0, 4)) + years}${date.slice(4)}`;
}

function round(x: number): number {
  return Math.round(x * 1e8) / 1e8;
}
