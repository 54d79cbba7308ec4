/**
 * The serving layout of daily prices, written beside the Parquet table by the importer and
 * memory-mapped by the server: one file of float64 records `[day, open, high, low, close,
 * volume]` (day = days since 1970-01-01; a missing value is NaN), each security's rows
 * contiguous and ascending by day, and a JSON index `security_id → [first row, row count]`.
 * A 1-year window is then a binary search and a slice, with no query engine on the path.
 */

export const PRICE_FILE = "prices.f64";
export const PRICE_INDEX_FILE = "prices.index.json";
/** float64 values per record. */
export const PRICE_RECORD = 6;

/** `security_id → [first row, row count]`. */
export type PriceIndex = Record<string, [number, number]>;

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a YYYY-MM-DD date. */
export function dayNumber(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / DAY_MS;
}

/** The YYYY-MM-DD date of a day number. */
export function dateOfDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}
