/**
 * Earnings history and forward estimate signals: `estimates/*.json` and `estimates/*.csv`.
 *
 * **JSON: Alpha Vantage EARNINGS** (`function=EARNINGS&symbol=T`), one security per file:
 * `{"symbol":"MSFT","annualEarnings":[{"fiscalDateEnding","reportedEPS"}],
 * "quarterlyEarnings":[{"fiscalDateEnding","reportedDate","reportedEPS","estimatedEPS",
 * "surprise","surprisePercentage","reportTime"?}]}`, all values strings, `"None"` = null.
 * surprisePercentage (percent) becomes surprise_ratio (a fraction: 5.49 → 0.0549);
 * reportTime "pre-market" / "post-market" becomes "pre-market" / "after-hours".
 * Alpha Vantage's error bodies (`{"Information"|"Note"|"Error Message": ...}`) fail the file.
 * Periods are returned newest first, one per fiscal_date_ending (the last listed wins); their
 * dates lie from 1900 to a year from today (an upcoming quarter may be listed).
 *
 * Traps in the real data, which the parser reports rather than hides:
 * - The newest annualEarnings entry is often the year to date, labelled with its latest
 *   quarter end (MSFT "2023-09-30": "0"; ASML "2023-06-30" = Q1 only). Such entries get
 *   `partial: true`: an annual entry is partial when its month differs from the issuer's
 *   usual fiscal-year-end month (the most common month among the annual entries), or
 *   when it is the newest entry and fewer than 4 quarterly entries fall in the 12 months
 *   it ends (NVO "2024-12-31" = Q1–Q3 2024).
 * - An estimatedEPS of "0" with surprisePercentage "None" is no estimate (UL and RIO until
 *   2021: every quarter so): estimate and surprise are null.
 * - Semi-annual reporters (RIO, UL) have quarterly entries with reportedEPS "0" for the
 *   quarters in which they published no EPS, with no estimate or with one (UL 2022-09-30:
 *   "0" against "1.12", -100%). In a file with such a quarter without an estimate, every
 *   quarter whose EPS is 0 is one: kept with its EPS, estimate and surprise null. Elsewhere
 *   an EPS of 0 is a break-even quarter.
 *
 * **CSV: forward estimate signals** (the estimates document's fields), one or many securities per file; the
 * shared signals rules apply (see signals.ts: `ticker` and `as_of_date` required, at least
 * one value column, empty = null, one row per (ticker, as_of_date), the last one wins):
 *
 * | column | value |
 * |---|---|
 * | eps_growth_yoy_est_next_q | expected EPS growth, next quarter vs a year earlier (fraction) |
 * | eps_growth_yoy_est_next_fy | expected EPS growth, next fiscal year (fraction) |
 * | rvn_growth_yoy_est_next_q | expected revenue growth, next quarter (fraction, ≥ -1) |
 * | rvn_growth_yoy_est_next_fy | expected revenue growth, next fiscal year (fraction, ≥ -1) |
 * | earning_growth_5y_est | expected annual earnings growth over 5 years (fraction, ≥ -1) |
 * | total_rvn_growth_5y_est | expected annual revenue growth over 5 years (fraction, ≥ -1) |
 * | eps_est_next_fy | consensus EPS for the next fiscal year (currency per share) |
 */

import type { EarningTime } from "../../snapshot/documents.ts";
import { ImportError } from "../errors.ts";
import { readEarningTime } from "./calendar.ts";
import { parseSignalsCsv, type SignalColumn, type SignalRow } from "./signals.ts";
import {
  FieldError,
  isMissing,
  isObject,
  type JsonObject,
  type ParseOptions,
  type ParseResult,
  parseJson,
  RecordCollector,
  readDate,
  readNumber,
  readOptionalDate,
  readTicker,
  roundDecimal,
  textProp,
} from "./value-readers.ts";

/** One fiscal year's reported EPS. */
export interface AnnualEarnings {
  fiscal_date_ending: string;
  reported_eps: number | null;
  /** True when the entry covers only part of a fiscal year (see the module comment). */
  partial: boolean;
}

/** One fiscal quarter's reported and estimated EPS. */
export interface QuarterlyEarnings {
  fiscal_date_ending: string;
  reported_date: string | null;
  reported_eps: number | null;
  estimated_eps: number | null;
  /** reported − estimated, as the source gives it. */
  surprise: number | null;
  /** The source's surprisePercentage as a fraction (percent ÷ 100). */
  surprise_ratio: number | null;
  report_time: EarningTime | null;
}

/** The earnings history of one security, periods newest first. */
export interface EarningsHistory {
  ticker: string;
  annual: AnnualEarnings[];
  quarterly: QuarterlyEarnings[];
}

/** The value columns of a forward-estimate-signals CSV. */
const ESTIMATE_SIGNAL_COLUMNS = [
  { name: "eps_growth_yoy_est_next_q" },
  { name: "eps_growth_yoy_est_next_fy" },
  { name: "rvn_growth_yoy_est_next_q", min: -1 },
  { name: "rvn_growth_yoy_est_next_fy", min: -1 },
  { name: "earning_growth_5y_est", min: -1 },
  { name: "total_rvn_growth_5y_est", min: -1 },
  { name: "eps_est_next_fy" },
] as const satisfies readonly SignalColumn<string>[];

/** One forward-estimate-signals row (the estimates document's source fields). */
export type EstimateSignalsRow = SignalRow<(typeof ESTIMATE_SIGNAL_COLUMNS)[number]["name"]>;

/** Parses one forward-estimate-signals CSV (see the module comment). */
function parseEstimateSignalsCsv(
  text: string,
  file: string,
  opts: ParseOptions = {},
): ParseResult<EstimateSignalsRow> {
  return parseSignalsCsv(text, file, ESTIMATE_SIGNAL_COLUMNS, opts);
}

/** Either kind of estimates file, by content: JSON is earnings history, anything else signals. */
export type EstimatesFile =
  | { kind: "earnings_history"; result: ParseResult<EarningsHistory> }
  | { kind: "signals"; result: ParseResult<EstimateSignalsRow> };

/** Parses an estimates/ file of either kind. */
export function parseEstimatesFile(text: string, file: string, opts: ParseOptions = {}): EstimatesFile {
  return /^\s*[{[]/.test(text.slice(0, 64))
    ? { kind: "earnings_history", result: parseAlphaVantageEarnings(text, file, opts) }
    : { kind: "signals", result: parseEstimateSignalsCsv(text, file, opts) };
}

/**
 * Parses an Alpha Vantage EARNINGS response into one EarningsHistory (the result has one
 * row). Bad periods are errors (strict) or skipped (lenient); a bad symbol or a missing
 * array fails the file.
 */
export function parseAlphaVantageEarnings(
  text: string,
  file: string,
  opts: ParseOptions = {},
): ParseResult<EarningsHistory> {
  const json = alphaVantageBody(parseJson(text, file), file);
  const lenient = opts.lenient === true;
  let ticker: string;
  try {
    ticker = readTicker(textProp(json, "symbol"), "symbol");
  } catch (error) {
    throw error instanceof FieldError ? new ImportError(file, null, error.message) : error;
  }
  const annual = new RecordCollector<Omit<AnnualEarnings, "partial">>(file, lenient);
  arrayProp(json, "annualEarnings", file).forEach((item, i) => {
    annual.add(null, () => annualFrom(item), `annualEarnings[${i}]`);
  });
  const quarterly = new RecordCollector<QuarterlyEarnings>(file, lenient);
  arrayProp(json, "quarterlyEarnings", file).forEach((item, i) => {
    quarterly.add(null, () => quarterFrom(item), `quarterlyEarnings[${i}]`);
  });
  const byEnd = (row: { fiscal_date_ending: string }) => row.fiscal_date_ending;
  const label = (row: { fiscal_date_ending: string }) => `fiscalDateEnding ${row.fiscal_date_ending}`;
  const a = annual.resultKeepingLast(byEnd, label);
  const q = quarterly.resultKeepingLast(byEnd, label);
  const quarters = withoutUnpublished(newestFirst(q.rows));
  const history = { ticker, annual: markPartial(newestFirst(a.rows), quarters), quarterly: quarters };
  return { rows: [history], skipped: [...a.skipped, ...q.skipped] };
}

function alphaVantageBody(json: unknown, file: string): JsonObject {
  if (!isObject(json)) throw new ImportError(file, null, "not an Alpha Vantage EARNINGS response");
  for (const key of ["Error Message", "Information", "Note"]) {
    if (typeof json[key] === "string") {
      throw new ImportError(file, null, `Alpha Vantage returned an error instead of data: ${json[key]}`);
    }
  }
  return json;
}

function arrayProp(json: JsonObject, key: string, file: string): unknown[] {
  const value = json[key];
  if (Array.isArray(value)) return value;
  throw new ImportError(file, null, `not an Alpha Vantage EARNINGS response: ${key} is not an array`);
}

function annualFrom(item: unknown): Omit<AnnualEarnings, "partial"> {
  if (!isObject(item)) throw new FieldError("record is not an object");
  return {
    fiscal_date_ending: readDate(textProp(item, "fiscalDateEnding") ?? "", "fiscalDateEnding", "announced"),
    reported_eps: readNumber(textProp(item, "reportedEPS"), "reportedEPS"),
  };
}

function quarterFrom(item: unknown): QuarterlyEarnings {
  if (!isObject(item)) throw new FieldError("record is not an object");
  const percent = readNumber(textProp(item, "surprisePercentage"), "surprisePercentage");
  const reportTime = textProp(item, "reportTime");
  const reported = readNumber(textProp(item, "reportedEPS"), "reportedEPS");
  const estimated = readNumber(textProp(item, "estimatedEPS"), "estimatedEPS");
  const noEstimate = estimated === 0 && percent === null;
  return {
    fiscal_date_ending: readDate(textProp(item, "fiscalDateEnding") ?? "", "fiscalDateEnding", "announced"),
    reported_date: readOptionalDate(textProp(item, "reportedDate"), "reportedDate", "announced"),
    reported_eps: reported,
    estimated_eps: noEstimate ? null : estimated,
    surprise: noEstimate ? null : readNumber(textProp(item, "surprise"), "surprise"),
    surprise_ratio: percent === null ? null : roundDecimal(percent / 100),
    report_time: isMissing(reportTime) ? null : readEarningTime(reportTime, "reportTime"),
  };
}

/**
 * The quarters of a reporter that publishes no EPS for some of them (an EPS of 0 without an
 * estimate marks one): every quarter with an EPS of 0 has no EPS, estimate or surprise.
 */
function withoutUnpublished(quarters: QuarterlyEarnings[]): QuarterlyEarnings[] {
  const zero = (q: QuarterlyEarnings) => q.reported_eps === 0;
  if (!quarters.some((q) => zero(q) && q.estimated_eps === null)) return quarters;
  return quarters.map((q) =>
    zero(q) ? { ...q, reported_eps: null, estimated_eps: null, surprise: null, surprise_ratio: null } : q,
  );
}

function newestFirst<T extends { fiscal_date_ending: string }>(rows: T[]): T[] {
  return [...rows].sort((a, b) => b.fiscal_date_ending.localeCompare(a.fiscal_date_ending));
}

/** Sets `partial` on annual entries (newest first) by the rule in the module comment. */
function markPartial(
  annual: Omit<AnnualEarnings, "partial">[],
  quarters: QuarterlyEarnings[],
): AnnualEarnings[] {
  const monthCounts = new Map<string, number>();
  for (const a of annual) {
    const month = a.fiscal_date_ending.slice(5, 7);
    monthCounts.set(month, (monthCounts.get(month) ?? 0) + 1);
  }
  const fyMonth = [...monthCounts.entries()].sort((x, y) => y[1] - x[1])[0]?.[0];
  return annual.map((a, i) => {
    const end = a.fiscal_date_ending;
    const start = `${String(Number(end.slice(0, 4)) - 1).padStart(4, "0")}${end.slice(4)}`;
    const inYear = quarters.filter((q) => q.fiscal_date_ending > start && q.fiscal_date_ending <= end);
    const partial = end.slice(5, 7) !== fyMonth || (i === 0 && inYear.length < 4);
    return { ...a, partial };
  });
}
