/**
 * The dividend document (/stocks/{symbol}/dividend) from split-adjusted dividend rows and split-adjusted closes,
 * plus the per-share dividend helpers shared with valuation and growth.
 */
import { CALCULATION_VERSION } from "../../domain/calculation-version.ts";
import { addDays, addYears, daysBetween } from "../../domain/dates.ts";
import { decimalSum, ratioOverPositive } from "../../domain/ratios.ts";
import type { DividendDocument } from "../../snapshot/documents.ts";
import type { DividendRow, PriceBar } from "./inputs.ts";
import { lastPriceOnOrBefore, monthEndPrices, validPrices } from "./price-series.ts";

/** Payment frequency inferred from the spacing of ex-dates. */
export type DividendFrequency = "monthly" | "quarterly" | "semi-annual" | "annual" | "irregular";

/** Days in the trailing window of "TTM" dividends: ex-dates in (date − 365, date]. */
const TTM_DAYS = 365;
/** Number of most recent ex-dates whose spacing decides the frequency. */
const FREQUENCY_SAMPLE = 6;
/** Days a regular payment may be overdue before the schedule counts as broken. */
const OVERDUE_GRACE_DAYS = 45;

const PAYMENTS_PER_YEAR: Record<Exclude<DividendFrequency, "irregular">, number> = {
  monthly: 12,
  quarterly: 4,
  "semi-annual": 2,
  annual: 1,
};

/** The stored dividend snapshot: the document's figures with its date and methodology version (derive.ts splits them). */
export type DividendSnapshot = DividendDocument["metadata"] & DividendDocument["dividend"];

/** Inputs of the dividend snapshot; `as_of` defaults to the last price date. */
export interface DividendInput {
  dividends: readonly DividendRow[];
  prices: readonly PriceBar[];
  as_of?: string;
}

/** Valid rows (finite amount > 0) sorted by ex-date. */
export function sortedDividends(rows: readonly DividendRow[]): DividendRow[] {
  return rows
    .filter((r) => Number.isFinite(r.amount) && r.amount > 0)
    .sort((a, b) => (a.ex_date < b.ex_date ? -1 : a.ex_date > b.ex_date ? 1 : 0));
}

/** Sum of amounts with ex-date in (date − 365 days, date]; null when `rows` is null. */
export function trailingDividendSum(rows: readonly DividendRow[] | null, date: string): number | null {
  if (rows === null) return null;
  const from = addDays(date, -TTM_DAYS);
  return decimalSum(
    rows
      .filter((r) => r.ex_date > from && r.ex_date <= date && Number.isFinite(r.amount))
      .map((r) => r.amount),
  );
}

/** Median of the gaps in days between consecutive distinct dates (ascending input). */
function medianSpacing(dates: readonly string[]): number | null {
  const gaps: number[] = [];
  for (let i = 1; i < dates.length; i++) {
    const [a, b] = [dates[i - 1], dates[i]];
    if (a !== undefined && b !== undefined) gaps.push(daysBetween(a, b));
  }
  gaps.sort((x, y) => x - y);
  const mid = Math.floor(gaps.length / 2);
  if (gaps.length === 0) return null;
  return gaps.length % 2 === 1 ? (gaps[mid] ?? null) : ((gaps[mid - 1] ?? 0) + (gaps[mid] ?? 0)) / 2;
}

/** Classifies a median spacing in days; null without at least two distinct ex-dates. */
export function inferDividendFrequency(exDates: readonly string[]): DividendFrequency | null {
  const distinct = [...new Set(exDates)].sort().slice(-FREQUENCY_SAMPLE);
  const days = medianSpacing(distinct);
  if (days === null) return null;
  if (days >= 20 && days <= 45) return "monthly";
  if (days >= 60 && days <= 120) return "quarterly";
  if (days >= 150 && days <= 210) return "semi-annual";
  if (days >= 300 && days <= 430) return "annual";
  return "irregular";
}

/** Amount per share paid on the latest ex-date on or before `date` (rows sorted). */
function latestPayment(
  rows: readonly DividendRow[],
  date: string,
): { ex_date: string; amount: number } | null {
  const past = rows.filter((r) => r.ex_date <= date);
  const last = past[past.length - 1];
  if (last === undefined) return null;
  const amount = past.filter((r) => r.ex_date === last.ex_date).reduce((s, r) => s + r.amount, 0);
  return { ex_date: last.ex_date, amount };
}

/**
 * Highest and lowest trailing-dividend yield (TTM dividends / close) over the month ends of
 * the five years up to `asOf`, counting only month ends whose whole trailing year lies after
 * the first recorded ex-date. Two pointers over sorted rows: O(rows + months).
 */
function dividendYieldRange(
  rows: readonly DividendRow[],
  prices: readonly PriceBar[],
  asOf: string,
): { high: number | null; low: number | null } {
  const first = rows[0];
  if (first === undefined) return { high: null, low: null };
  const start = addYears(asOf, -5);
  let [high, low]: [number | null, number | null] = [null, null];
  let [enter, leave, sum] = [0, 0, 0];
  for (const bar of monthEndPrices(prices)) {
    if (bar.date <= start || bar.date > asOf) continue;
    for (let r = rows[enter]; r !== undefined && r.ex_date <= bar.date; r = rows[++enter]) sum += r.amount;
    const from = addDays(bar.date, -TTM_DAYS);
    for (let r = rows[leave]; r !== undefined && r.ex_date <= from; r = rows[++leave]) sum -= r.amount;
    if (Math.abs(sum) < 1e-12) sum = 0; // float residue of the running sum
    const y = from >= first.ex_date ? ratioOverPositive(sum, bar.close) : null;
    if (y === null) continue;
    high = high === null ? y : Math.max(high, y);
    low = low === null ? y : Math.min(low, y);
  }
  return { high, low };
}

/** Forward 12-month dividends: `payment` (declaredPayment) × payments per year, while the schedule holds. */
function forwardDividends(
  payment: { ex_date: string; amount: number } | null,
  frequency: DividendFrequency | null,
  asOf: string,
): number | null {
  if (payment === null || frequency === null || frequency === "irregular") return null;
  const perYear = PAYMENTS_PER_YEAR[frequency];
  const overdue = daysBetween(payment.ex_date, asOf) > 365 / perYear + OVERDUE_GRACE_DAYS;
  return overdue ? null : decimalSum(Array(perYear).fill(payment.amount));
}

/**
 * The payment the forward figure repeats: the announced one when it continues the schedule
 * (0.5–2× the latest paid: a raise or a cut, not a special dividend), else the latest paid.
 */
function declaredPayment(
  rows: readonly DividendRow[],
  next: DividendRow | null,
  latest: { ex_date: string; amount: number } | null,
): { ex_date: string; amount: number } | null {
  const announced = next === null ? null : latestPayment(rows, next.ex_date);
  if (announced === null || latest === null || latest.amount <= 0) return announced ?? latest;
  const change = announced.amount / latest.amount;
  return change >= 0.5 && change <= 2 ? announced : latest;
}

/** The dividend snapshot at `as_of`; null without dividend rows or without a date. */
export function computeDividendSnapshot(input: DividendInput): DividendSnapshot | null {
  const rows = sortedDividends(input.dividends);
  const prices = validPrices(input.prices);
  const asOf = input.as_of ?? prices[prices.length - 1]?.date;
  if (rows.length === 0 || asOf === undefined) return null;
  const close = lastPriceOnOrBefore(prices, asOf)?.close ?? null;
  const next = rows.find((r) => r.ex_date > asOf) ?? null;
  const latest = latestPayment(rows, asOf);
  const frequency = inferDividendFrequency(rows.map((r) => r.ex_date));
  const dpsTtm = trailingDividendSum(rows, asOf) ?? 0;
  const forward = forwardDividends(declaredPayment(rows, next, latest), frequency, asOf);
  const range = dividendYieldRange(rows, prices, asOf);
  return {
    as_of_date: asOf,
    calculation_version: CALCULATION_VERSION.dividend,
    dps_ttm: dpsTtm,
    dps_forward_12m: forward,
    dps_next_payment: next?.amount ?? (forward === null ? null : (latest?.amount ?? null)),
    dividend_yield_ttm: ratioOverPositive(dpsTtm, close),
    dividend_yield_forward: ratioOverPositive(forward, close),
    dividend_yield_history_high: range.high,
    dividend_yield_history_low: range.low,
    ex_dividend_date_next: next?.ex_date ?? null,
    payment_date_next: next?.pay_date ?? null,
    payment_amount_next: next?.amount ?? null,
    dividend_frequency: frequency,
  };
}
