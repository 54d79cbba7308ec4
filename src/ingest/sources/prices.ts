/**
 * Daily price files `prices/<TICKER>.csv`, one per ticker (the file name is the ticker).
 * Header names are matched case-insensitively; accepted layouts:
 * - Yahoo: `Date,Open,High,Low,Close,Adj Close,Volume` (rows of `null` = no trading data,
 *   skipped and counted)
 * - Stooq: `Date,Open,High,Low,Close,Volume` (also the Polish `Data,Otwarcie,Najwyzszy,
 *   Najnizszy,Zamkniecie,Wolumen`)
 * - yfinance with actions: `Date,Open,High,Low,Close,Volume,Dividends,Stock Splits`, dates
 *   like `2024-02-09 00:00:00-05:00` (the local trading date is kept)
 * - close only: `date,close`
 * and `prices/<TICKER>.json`, Alpha Vantage's daily adjusted series (alphavantage-daily.ts).
 * Required: date and close. Close must be positive, other prices non-negative, volume a
 * whole number; each date once per file. Rows are returned in date order. High below Low
 * is kept as given: back-adjusted sources round old prices so that it happens.
 */
import { ImportError } from "../errors.ts";
import { parseAlphaVantagePrices } from "./alphavantage-daily.ts";
import { checkWidth, findColumn, forEachCsvRecord } from "./csv.ts";
import {
  FieldError,
  isMissing,
  type ParseOptions,
  type ParseResult,
  RecordCollector,
  readDate,
  readNumber,
} from "./values.ts";

export interface PriceRow {
  date: string;
  open: number | null;
  high: number | null;
  low: number | null;
  close: number;
  adj_close: number | null;
  volume: number | null;
}

const COLUMNS = {
  date: ["date", "data"],
  open: ["open", "otwarcie"],
  high: ["high", "najwyzszy"],
  low: ["low", "najnizszy"],
  close: ["close", "zamkniecie"],
  adj_close: ["adj_close", "adjclose", "adjusted_close"],
  volume: ["volume", "wolumen"],
} as const;

type Layout = Record<keyof typeof COLUMNS, number>;

/** Parses a price file of either kind, told apart by its extension. */
export function parsePriceFile(text: string, file: string, opts: ParseOptions = {}): ParseResult<PriceRow> {
  return file.toLowerCase().endsWith(".json")
    ? parseAlphaVantagePrices(text, file, opts)
    : parsePrices(text, file, opts);
}

/** Parses one price CSV. Rows with no trading data (all prices missing) are skipped, not errors. */
export function parsePrices(text: string, file: string, opts: ParseOptions = {}): ParseResult<PriceRow> {
  const out = new RecordCollector<PriceRow>(file, opts.lenient ?? false);
  const noData: { line: number; reason: string }[] = [];
  let layout: Layout | null = null;
  let width = 0;
  forEachCsvRecord(text, file, (cells, line) => {
    if (layout === null) {
      layout = headerLayout(cells, file, line);
      width = cells.length;
      return;
    }
    const at = layout;
    if (at.close >= 0 && isMissing(cells[at.close]) && (at.open < 0 || isMissing(cells[at.open]))) {
      noData.push({ line, reason: "no trading data" });
      return;
    }
    out.add(line, () => {
      const bad = checkWidth({ line, cells }, width);
      if (bad) throw new FieldError(bad);
      return priceRow(cells, at);
    });
  });
  if (layout === null) throw new ImportError(file, 1, "empty file: no header row");
  const { rows, skipped } = out.result();
  rows.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  for (let i = 1; i < rows.length; i++) {
    if (rows[i]?.date === rows[i - 1]?.date) {
      throw new ImportError(file, null, `date ${rows[i]?.date} appears more than once`);
    }
  }
  return { rows, skipped: [...skipped, ...noData] };
}

function headerLayout(cells: string[], file: string, line: number): Layout {
  const layout = Object.fromEntries(
    Object.entries(COLUMNS).map(([key, names]) => [key, findColumn(cells, names)]),
  ) as Layout;
  if (layout.date < 0 || layout.close < 0) {
    throw new ImportError(file, line, `expected a Date and a Close column (header is "${cells.join(",")}")`);
  }
  return layout;
}

function priceRow(cells: string[], at: Layout): PriceRow {
  const price = (i: number, name: string) => {
    if (i < 0) return null;
    const v = readNumber(cells[i], name);
    if (v !== null && v < 0) throw new FieldError(`${name} ${v} is negative`);
    return v;
  };
  const close = price(at.close, "Close");
  if (close === null || close === 0)
    throw new FieldError(`Close "${cells[at.close]}" must be a positive price`);
  const high = price(at.high, "High");
  const low = price(at.low, "Low");
  if (high !== null && low !== null && high < low * (1 - 1e-6))
    throw new FieldError(`High ${high} is below Low ${low}`);
  return {
    date: readDate(cells[at.date] ?? "", "Date"),
    open: price(at.open, "Open"),
    high: price(at.high, "High"),
    low: price(at.low, "Low"),
    close,
    adj_close: price(at.adj_close, "Adj Close"),
    volume: at.volume < 0 ? null : readVolume(cells[at.volume]),
  };
}

/** Volumes are counts, but some sources write them as `1234.0`. */
function readVolume(value: string | undefined): number | null {
  const v = readNumber(value, "Volume");
  if (v === null) return null;
  if (!Number.isSafeInteger(v) || v < 0) throw new FieldError(`Volume "${value}" is not a whole number`);
  return v;
}
