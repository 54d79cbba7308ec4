/**
 * One security's daily prices as columns: what the company pass hands to the importer's
 * thread. Typed arrays and one string cross between threads without per-row objects.
 */

import type { PriceRow } from "../sources/price-rows.ts";
import { type SerializedPrices, serializePrices } from "./price-file.ts";

export interface PriceColumns {
  /** The date of the last row (the rows' days are `served.days`). */
  lastDate: string;
  /** Price and volume columns; NaN for a missing value (parsed values are never NaN). */
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  adj_close: Float64Array;
  volume: Float64Array;
  /** The same rows for the serving price files, serialised where they were parsed. */
  served: SerializedPrices;
}

/** The numeric columns. */
export const PRICE_VALUES = ["open", "high", "low", "close", "adj_close", "volume"] as const;

export function toPriceColumns(rows: readonly PriceRow[]): PriceColumns {
  const columns = Object.fromEntries(PRICE_VALUES.map((c) => [c, new Float64Array(rows.length)])) as Omit<
    PriceColumns,
    "lastDate" | "served"
  >;
  rows.forEach((row, i) => {
    for (const c of PRICE_VALUES) columns[c][i] = row[c] ?? Number.NaN;
  });
  return { lastDate: rows.at(-1)?.date ?? "", ...columns, served: serializePrices(rows) };
}

/** The buffers `postMessage` can transfer instead of copying. */
export function priceBuffers(columns: PriceColumns): ArrayBuffer[] {
  const { days, offsets } = columns.served;
  return [
    ...PRICE_VALUES.map((c) => columns[c].buffer as ArrayBuffer),
    days.buffer,
    offsets.buffer,
  ] as ArrayBuffer[];
}

/** Row `i` of a column; null where missing. */
export function priceValue(column: Float64Array, i: number): number | null {
  const v = column[i] as number;
  return Number.isNaN(v) ? null : v;
}
