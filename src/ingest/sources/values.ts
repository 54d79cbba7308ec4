/**
 * Value readers and the strict/lenient record loop shared by the non-SEC source parsers
 * (dividends, calendar, estimates, growth signals).
 *
 * A reader either returns a typed value or throws `FieldError` with a message that names
 * the column and the bad value; `RecordCollector` turns that into an ImportError (strict)
 * or a skipped record (lenient). Nothing here does I/O.
 */
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
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const max = m === 2 && leap ? 29 : (DAYS_IN_MONTH[m - 1] ?? 0);
  return d <= max;
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
export const isIsoDate = (text: string): boolean => /^\d{4}-\d{2}-\d{2}$/.test(text);
const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;

/**
 * Reads a date cell. Accepted: `YYYY-MM-DD`, optionally followed by a time part after a
 * space or `T` (yfinance writes `2024-02-09 00:00:00-05:00`; the date as written is kept,
 * the offset is not applied), and US `M/D/YYYY` (Nasdaq). Returns YYYY-MM-DD.
 * Throws FieldError naming `column` for anything else or an impossible date.
 */
export function readDate(value: string, column: string): string {
  const s = value.trim();
  const iso = ISO_DATE.exec(s);
  const us = iso === null ? US_DATE.exec(s) : null;
  const parts = iso ? [iso[1], iso[2], iso[3]] : us ? [us[3], us[1], us[2]] : null;
  if (parts === null) throw new FieldError(`${column} "${value}" is not a date (YYYY-MM-DD)`);
  const [y, m, d] = parts.map(Number) as [number, number, number];
  if (!isCalendarDate(y, m, d)) throw new FieldError(`${column} "${value}" is not a real calendar date`);
  return formatDate(y, m, d);
}

/** Like readDate, but an empty / N/A / None cell is null. */
export function readOptionalDate(value: string | undefined, column: string): string | null {
  return isMissing(value) ? null : readDate(value ?? "", column);
}

const MISSING = new Set(["", "n/a", "na", "none", "null", "-", "--", "nan"]);

/** True for the spellings sources use for "no value": empty, N/A, None, null, -, --, NaN. */
export function isMissing(value: string | undefined | null): boolean {
  return value === undefined || value === null || MISSING.has(value.trim().toLowerCase());
}

const PLAIN_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Reads a number cell: plain decimal (optionally signed, exponent allowed). Missing
 * spellings (see isMissing) give null. Throws FieldError naming `column` otherwise.
 */
export function readNumber(value: string | undefined, column: string): number | null {
  if (isMissing(value)) return null;
  const s = (value ?? "").trim();
  if (!PLAIN_NUMBER.test(s)) throw new FieldError(`${column} "${value}" is not a number`);
  const n = Number(s);
  return n === 0 ? 0 : n; // no -0
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
    throw new FieldError(`${column} "${value}" is not a money amount`);
  }
  const amount = Number(s.replaceAll(",", ""));
  return negatives === 1 && amount !== 0 ? -amount : amount;
}

/** Reads a non-negative integer count ("12", "1,204"); missing spellings give null. */
export function readCount(value: string | undefined, column: string): number | null {
  if (isMissing(value)) return null;
  const s = (value ?? "").trim().replaceAll(",", "");
  if (!/^\d+$/.test(s)) throw new FieldError(`${column} "${value}" is not a whole number`);
  return Number(s);
}

const TICKER = /^[A-Z0-9][A-Z0-9._\-/^=]*$/;

/** Reads a ticker symbol: trimmed, upper-cased; letters, digits and `. _ - / ^ =` only. */
export function readTicker(value: string | undefined, column: string): string {
  const s = (value ?? "").trim().toUpperCase();
  if (!TICKER.test(s)) throw new FieldError(`${column} "${value ?? ""}" is not a ticker symbol`);
  return s;
}

/** Reads an ISO 4217 currency code ("usd" → "USD"); empty is null. */
export function readCurrency(value: string | undefined, column: string): string | null {
  if (isMissing(value)) return null;
  const s = (value ?? "").trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(s)) throw new FieldError(`${column} "${value}" is not a currency code`);
  return s;
}

/** Rounds away binary noise from a difference of decimals (1.26 - 1.19 → 0.07). */
export function roundDecimal(x: number): number {
  return Math.round(x * 1e8) / 1e8;
}

/**
 * The ticker a per-ticker file is named after: the base name without its extension,
 * upper-cased, with a trailing source tag `-nasdaq` / `_nasdaq` removed
 * ("dividends/brk-b.csv" → "BRK-B", "AAPL-nasdaq.json" → "AAPL"). Throws ImportError when
 * the name is not a ticker.
 */
export function tickerFromFileName(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? file;
  const stem = base.replace(/\.[^.]*$/, "").replace(/[-_]nasdaq$/i, "");
  const ticker = stem.trim().toUpperCase();
  if (!TICKER.test(ticker)) throw new ImportError(file, null, `file name "${base}" does not name a ticker`);
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
  throw new FieldError(`${key} ${JSON.stringify(v)} is not a string or number`);
}
