/**
 * Value readers and the strict/lenient record loop shared by the source parsers, and the
 * bounds of what a value may be (prices, volumes, dates; tickers are `domain/tickers.ts`'s).
 *
 * A reader either returns a typed value or throws `FieldError` with a message that names
 * the column and the bad value; `RecordCollector` turns that into an ImportError (strict)
 * or a skipped record (lenient). Nothing here does I/O.
 */
import { fromDayNumber, MS_PER_DAY } from "../../domain/dates.ts";
import { normalizeTicker } from "../../domain/tickers.ts";
import { ImportError } from "../errors.ts";

/** Options every source parser takes. */
export interface ParseOptions {
  /** Skip malformed records (and report them) instead of failing on the first one. */
  lenient?: boolean;
}

/** A record that was not imported, and why. `line` is null for JSON records (no lines). */
export interface SkippedRecord {
  line: number | null;
  reason: string;
}

/** What every source parser returns. */
export interface ParseResult<T> {
  rows: T[];
  skipped: SkippedRecord[];
}

/** A bad value in one record; `RecordCollector` adds the file and line. */
export class FieldError extends Error {
  override name = "FieldError";
}

/**
 * Runs one record builder per input record. In strict mode the first FieldError becomes
 * an ImportError(file, line, message); in lenient mode the record is skipped and listed.
 * Other exceptions propagate unchanged.
 */
export class RecordCollector<T> {
  private readonly rows: T[] = [];
  private readonly skipped: SkippedRecord[] = [];
  /** Where each kept row came from ("line 12", "quarterlyEarnings[3]"), parallel to rows. */
  private readonly origins: { line: number | null; where: string }[] = [];

  constructor(
    private readonly file: string,
    private readonly lenient: boolean,
  ) {}

  /** Builds and keeps one row; `where` names a JSON record in messages (e.g. "rows[3]"). */
  add(line: number | null, build: () => T, where?: string): void {
    try {
      this.rows.push(build());
      this.origins.push({ line, where: where ?? `line ${line ?? "?"}` });
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      const reason = where === undefined ? error.message : `${where}: ${error.message}`;
      if (!this.lenient) throw new ImportError(this.file, line, reason);
      this.skipped.push({ line, reason });
    }
  }

  /** Lists a record left out on purpose (not an error in either mode). */
  drop(line: number | null, reason: string): void {
    this.skipped.push({ line, reason });
  }

  /** The rows and skipped records so far. */
  result(): ParseResult<T> {
    return { rows: this.rows, skipped: this.skipped };
  }

  /**
   * The result with one row per `key`: a later row replaces an earlier one with the same
   * key (a later line is taken as a correction), and each replaced row is listed in
   * `skipped` as "duplicate <label>; kept <where>". Kept rows stay in input order.
   */
  resultKeepingLast(key: (row: T) => string, label: (row: T) => string): ParseResult<T> {
    const lastIndex = new Map<string, number>();
    this.rows.forEach((row, i) => {
      lastIndex.set(key(row), i);
    });
    const rows: T[] = [];
    const skipped = [...this.skipped];
    this.rows.forEach((row, i) => {
      const kept = lastIndex.get(key(row)) ?? i;
      if (kept === i) rows.push(row);
      else {
        const reason = `duplicate ${label(row)}; kept ${this.origins[kept]?.where}`;
        skipped.push({ line: this.origins[i]?.line ?? null, reason });
      }
    });
    return { rows, skipped };
  }
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** True when y-m-d is a real Gregorian calendar date (2024-02-29 yes, 2023-02-29 no). */
export function isCalendarDate(y: number, m: number, d: number): boolean {
  if (!Number.isInteger(y) || !Number.isInteger(m) || !Number.isInteger(d)) return false;
  if (y < 1 || y > 9999 || m < 1 || m > 12 || d < 1) return false;
  return d <= daysInMonth(y, m);
}

/** Days in month `m` (1–12) of year `y`; 0 for no month. */
function daysInMonth(y: number, m: number): number {
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return m === 2 && leap ? 29 : (DAYS_IN_MONTH[m - 1] ?? 0);
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** Formats a validated date as YYYY-MM-DD. */
export function formatDate(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, "0")}-${pad2(m)}-${pad2(d)}`;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:$|[ T])/;

/** Whether a text is a date written YYYY-MM-DD and nothing else (as SEC JSON writes dates). */
const isIsoDate = (text: string): boolean => /^\d{4}-\d{2}-\d{2}$/.test(text);
const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;

/**
 * How far after today a date may lie: `recorded` for what has happened (prices, filings, facts,
 * as-of dates), `announced` for what is announced ahead (earnings dates, estimates, declared
 * dividends).
 */
export type DateHorizon = "recorded" | "announced";

/** The earliest date any source may give (the oldest real prices are from 1962). */
const EARLIEST_DATE = "1900-01-01";

/**
 * Days after today (UTC) each horizon reaches: a week covers a source a time zone ahead and a
 * clock a little behind; a year covers Alpha Vantage's 12-month earnings calendar.
 */
const DAYS_AHEAD: Record<DateHorizon, { days: number; text: string }> = {
  recorded: { days: 7, text: "a week from today" },
  announced: { days: 366, text: "a year from today" },
};

/** The latest date of each horizon, for the UTC day it was computed on: once a day, not once a row. */
const latest = { day: Number.NaN, recorded: "", announced: "" };

/** The latest date a source may give under `horizon`, as of now. */
export function latestDate(horizon: DateHorizon): string {
  const day = Math.floor(Date.now() / MS_PER_DAY);
  if (day !== latest.day) {
    latest.recorded = fromDayNumber(day + DAYS_AHEAD.recorded.days);
    latest.announced = fromDayNumber(day + DAYS_AHEAD.announced.days);
    latest.day = day;
  }
  return latest[horizon];
}

/**
 * Why a real calendar date (YYYY-MM-DD) is out of bounds: before EARLIEST_DATE, or after
 * `latestDate(horizon)`. Null when it is within them.
 */
export function dateRangeProblem(date: string, horizon: DateHorizon): string | null {
  if (date < EARLIEST_DATE) return `is before ${EARLIEST_DATE}`;
  const last = latestDate(horizon);
  return date > last ? `is after ${last}, ${DAYS_AHEAD[horizon].text}` : null;
}

/**
 * Reads a date cell. Accepted: `YYYY-MM-DD`, optionally followed by a time part after a
 * space or `T` (yfinance writes `2024-02-09 00:00:00-05:00`; the date as written is kept,
 * the offset is not applied), and US `M/D/YYYY` (Nasdaq). Returns YYYY-MM-DD. Throws
 * FieldError naming `column` for anything else, an impossible date, or one out of the
 * bounds of `horizon` (see `dateRangeProblem`).
 */
export function readDate(value: string, column: string, horizon: DateHorizon = "recorded"): string {
  const s = value.trim();
  const iso = ISO_DATE.exec(s);
  const us = iso === null ? US_DATE.exec(s) : null;
  const parts = iso ? [iso[1], iso[2], iso[3]] : us ? [us[3], us[1], us[2]] : null;
  if (parts === null) throw new FieldError(`${column} ${shown(value)} is not a date (YYYY-MM-DD)`);
  const [y, m, d] = parts.map(Number) as [number, number, number];
  if (!isCalendarDate(y, m, d)) throw new FieldError(`${column} ${shown(value)} is not a real calendar date`);
  // An ISO date is written as formatDate would write it (millions of rows: no second copy).
  const date = iso ? s.slice(0, 10) : formatDate(y, m, d);
  const problem = dateRangeProblem(date, horizon);
  if (problem !== null) throw new FieldError(`${column} ${shown(value)} ${problem}`);
  return date;
}

/** The number two digits at `at` write. */
const twoDigits = (text: string, at: number) =>
  (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48;

/**
 * Why a text is no date written YYYY-MM-DD and nothing else (as SEC JSON writes its millions
 * of dates) within the bounds of `readDate`, or null when it is one. `latest` is `latestDate`
 * of its horizon, read once per file: the clock and a thrown error cost more than the test.
 */
export function isoDateProblem(text: string, latest: string): string | null {
  if (!isIsoDate(text)) return `${shown(text)} is not a date (YYYY-MM-DD)`;
  const day = twoDigits(text, 8);
  if (day < 1 || day > daysInMonth(twoDigits(text, 0) * 100 + twoDigits(text, 2), twoDigits(text, 5)))
    return `${shown(text)} is not a real calendar date`;
  // YYYY-MM-DD compares as the dates do.
  if (text < EARLIEST_DATE || text > latest)
    return `${shown(text)} is not from ${EARLIEST_DATE} to ${latest}`;
  return null;
}

/** Like readDate, but an empty / N/A / None cell is null. */
export function readOptionalDate(
  value: string | undefined,
  column: string,
  horizon: DateHorizon = "recorded",
): string | null {
  return isMissing(value) ? null : readDate(value ?? "", column, horizon);
}

/**
 * The spellings of "no value". Not `NaN`: a computation's failure written out is no gap, and
 * no real source writes it for one.
 */
const MISSING = new Set(["", "n/a", "na", "none", "null", "-", "--"]);

/** True for the spellings sources use for "no value": empty, N/A, None, null, -, --. */
export function isMissing(value: string | undefined | null): boolean {
  return value === undefined || value === null || MISSING.has(value.trim().toLowerCase());
}

const PLAIN_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Reads a number cell: plain decimal (optionally signed, exponent allowed), finite. Missing
 * spellings (see isMissing) give null. Throws FieldError naming `column` otherwise: `NaN`,
 * `Infinity`, hex, or an exponent too large for a double (`1e400`).
 */
export function readNumber(value: string | undefined, column: string): number | null {
  if (isMissing(value)) return null;
  const s = (value ?? "").trim();
  if (!PLAIN_NUMBER.test(s)) throw new FieldError(`${column} ${shown(value)} is not a number`);
  const n = Number(s);
  if (!Number.isFinite(n)) throw new FieldError(`${column} ${shown(s)} is too large a number`);
  return n === 0 ? 0 : n; // no -0
}

/**
 * The largest per-share amount (a price, a dividend) a source may give. Berkshire's A shares
 * trade near 7e5, and prices adjusted for reverse splits run higher still (IMNN's early prices,
 * 1.5e5, in the fixtures); 1e9 leaves room for those and refuses what is no price (1e308)
 * before a sum or product of it overflows.
 */
export const MAX_PER_SHARE = 1e9;

/** The largest daily volume: split-adjusted early volumes reach 1e10 (NVIDIA's, in the fixtures). */
export const MAX_VOLUME = 1e12;

/** A price as a source gives it or an adjustment computes it: not negative, below MAX_PER_SHARE. */
export function checkPrice(price: number, column: string): number {
  if (price < 0) throw new FieldError(`${column} ${price} is negative`);
  if (!(price < MAX_PER_SHARE)) throw new FieldError(`${column} ${price} is not below ${MAX_PER_SHARE}`);
  return price;
}

/** Reads a price cell (readNumber, then `checkPrice`); missing spellings give null. */
export function readPrice(value: string | undefined, column: string): number | null {
  const price = readNumber(value, column);
  return price === null ? null : checkPrice(price, column);
}

/**
 * A volume as a source gives it or an adjustment computes it: a whole number from 0 to below
 * MAX_VOLUME. `written` is how a message shows it (a cell's text, quoted).
 */
export function checkVolume(volume: number, column: string, written = String(volume)): number {
  if (!Number.isSafeInteger(volume) || volume < 0)
    throw new FieldError(`${column} ${written} is not a whole number`);
  if (volume >= MAX_VOLUME) throw new FieldError(`${column} ${volume} is not below ${MAX_VOLUME}`);
  return volume;
}

/**
 * Reads a traded volume cell (`checkVolume`), written as a count or as a decimal (`1234.0`, as
 * some sources write counts). Missing spellings give null.
 */
export function readVolume(value: string | undefined, column: string): number | null {
  const volume = readNumber(value, column);
  return volume === null ? null : checkVolume(volume, column, shown(value));
}

const MONEY_DIGITS = /^(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)$/;

/**
 * Reads a money cell as written by Nasdaq and similar sites: "$1.23", "1.23", "-$0.45",
 * "$-0.45", "($0.45)" (accounting negative), "$1,234.50". Missing spellings give null.
 * Throws FieldError naming `column` otherwise.
 */
export function readMoney(value: string | undefined, column: string): number | null {
  if (isMissing(value)) return null;
  const raw = (value ?? "").trim();
  const paren = raw.startsWith("(") && raw.endsWith(")");
  let s = paren ? raw.slice(1, -1) : raw;
  let negatives = paren ? 1 : 0;
  if (s.startsWith("-")) [negatives, s] = [negatives + 1, s.slice(1)];
  if (s.startsWith("$")) s = s.slice(1);
  if (s.startsWith("-")) [negatives, s] = [negatives + 1, s.slice(1)];
  if (negatives > 1 || !MONEY_DIGITS.test(s)) {
    throw new FieldError(`${column} ${shown(value)} is not a money amount`);
  }
  const amount = Number(s.replaceAll(",", ""));
  if (!Number.isFinite(amount)) throw new FieldError(`${column} ${shown(raw)} is too large a number`);
  return negatives === 1 && amount !== 0 ? -amount : amount;
}

/** Reads a non-negative integer count ("12", "1,204"); missing spellings give null. */
export function readCount(value: string | undefined, column: string): number | null {
  if (isMissing(value)) return null;
  const s = (value ?? "").trim().replaceAll(",", "");
  const count = Number(s);
  if (!/^\d+$/.test(s) || !Number.isSafeInteger(count))
    throw new FieldError(`${column} ${shown(value)} is not a whole number`);
  return count;
}

/** Reads a ticker symbol (see `normalizeTicker`: trimmed, upper-cased, 1 to 10 of A-Z 0-9 . - / _). */
export function readTicker(value: string | undefined, column: string): string {
  const ticker = normalizeTicker(value ?? "");
  if (ticker === null) throw new FieldError(`${column} ${shown(value ?? "")} is not a ticker symbol`);
  return ticker;
}

/** Reads an ISO 4217 currency code ("usd" → "USD"); empty is null. */
export function readCurrency(value: string | undefined, column: string): string | null {
  if (isMissing(value)) return null;
  const s = (value ?? "").trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(s)) throw new FieldError(`${column} ${shown(value)} is not a currency code`);
  return s;
}

/** Longest text of a value a message quotes; a longer one is cut (a report lists 1,000 messages). */
const SHOWN_LENGTH = 40;

/**
 * A value as messages quote it: as JSON (a text in double quotes, a NUL or a line break in it
 * escaped, so visible and on one line), a text cut after SHOWN_LENGTH characters and any other
 * value's JSON after as many.
 */
export function shown(value: unknown): string {
  if (typeof value !== "string") return String(JSON.stringify(value)).slice(0, SHOWN_LENGTH);
  const cut = value.length > SHOWN_LENGTH;
  const quoted = JSON.stringify(cut ? value.slice(0, SHOWN_LENGTH) : value);
  return cut ? `${quoted.slice(0, -1)}..."` : quoted;
}

/** Rounds away binary noise from a difference of decimals (1.26 - 1.19 → 0.07). */
export function roundDecimal(x: number): number {
  return Math.round(x * 1e8) / 1e8;
}

/**
 * The ticker a per-ticker file is named after: the base name without its extension,
 * upper-cased, with a trailing source tag `-nasdaq` / `_nasdaq` removed
 * ("dividends/brk-b.csv" → "BRK-B", "AAPL-nasdaq.json" → "AAPL"). Throws ImportError when
 * the name is not a ticker (see `normalizeTicker`).
 */
export function tickerFromFileName(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? file;
  const ticker = normalizeTicker(base.replace(/\.[^.]*$/, "").replace(/[-_]nasdaq$/i, ""));
  if (ticker === null) throw new ImportError(file, null, `file name ${shown(base)} does not name a ticker`);
  return ticker;
}

/** JSON.parse that reports a syntax error as an ImportError for `file`. */
export function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ImportError(file, null, `not valid JSON: ${detail}`);
  }
}

/** A JSON object (not an array, not null). */
export type JsonObject = Record<string, unknown>;

/** True for a JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A property read as text: strings as they are, finite numbers as their decimal text,
 * null or absent as undefined. Any other type is a FieldError naming `key`.
 */
export function textProp(obj: JsonObject, key: string): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  throw new FieldError(`${key} ${shown(v)} is not a string or number`);
}
