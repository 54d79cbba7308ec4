/**
 * One security's daily prices as columns: what the company pass hands to the importer's
 * thread. Typed arrays and one string cross between threads without per-row objects.
 */
import type { PriceRow } from "./sources/prices.ts";

/** Characters of a `YYYY-MM-DD` date. */
const DATE_LENGTH = 10;

export interface PriceColumns {
  /** The rows' dates, concatenated. */
  dates: string;
  /** Price and volume columns; NaN for a missing value (parsed values are never NaN). */
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  adj_close: Float64Array;
  volume: Float64Array;
}

const NUMERIC = ["open", "high", "low", "close", "adj_close", "volume"] as const;

export function toPriceColumns(rows: readonly PriceRow[]): PriceColumns {
  const columns = Object.fromEntries(NUMERIC.map((c) => [c, new Float64Array(rows.length)])) as Omit<
    PriceColumns,
    "dates"
  >;
  rows.forEach((row, i) => {
    for (const c of NUMERIC) columns[c][i] = row[c] ?? Number.NaN;
  });
  return { dates: rows.map((r) => r.date).join(""), ...columns };
}

export function priceRowCount(columns: PriceColumns): number {
  return columns.close.length;
}

/** The date of the last row. */
export function lastPriceDate(columns: PriceColumns): string {
  return columns.dates.slice(-DATE_LENGTH);
}

/** The buffers `postMessage` can transfer instead of copying. */
export function priceBuffers(columns: PriceColumns): ArrayBuffer[] {
  return NUMERIC.map((c) => columns[c].buffer as ArrayBuffer);
}

export function fromPriceColumns(columns: PriceColumns): PriceRow[] {
  const value = (column: Float64Array, i: number) => {
    const v = column[i] as number;
    return Number.isNaN(v) ? null : v;
  };
  const rows: PriceRow[] = new Array(priceRowCount(columns));
  for (let i = 0; i < rows.length; i++) {
    rows[i] = {
      date: columns.dates.slice(i * DATE_LENGTH, (i + 1) * DATE_LENGTH),
      open: value(columns.open, i),
      high: value(columns.high, i),
      low: value(columns.low, i),
      close: columns.close[i] as number,
      adj_close: value(columns.adj_close, i),
      volume: value(columns.volume, i),
    };
  }
  return rows;
}
