/**
 * The serving layout of daily prices, written beside the Parquet table by the importer and
 * memory-mapped by the server. Each security's rows are contiguous and ascending by day:
 * - `prices.json`: every row's response text, exactly `JSON.stringify` of the served row
 *   (the field order of the price row in /openapi.json), each followed by a comma;
 * - `prices.days`: int32 per row, days since 1970-01-01;
 * - `prices.offsets`: float64 per row, the byte offset of its text, plus one final entry
 *   (the text's length);
 * - `prices.index.json`: `security_id → [first row, row count]`.
 * A window is two binary searches over the days and one copy of the text between two
 * offsets: no query engine and no number formatting on the serving path.
 */

export const PRICE_TEXT_FILE = "prices.json";
export const PRICE_DAYS_FILE = "prices.days";
export const PRICE_OFFSETS_FILE = "prices.offsets";
export const PRICE_INDEX_FILE = "prices.index.json";
export const PRICE_FILES = [PRICE_TEXT_FILE, PRICE_DAYS_FILE, PRICE_OFFSETS_FILE, PRICE_INDEX_FILE];

/** `security_id → [first row, row count]`. */
export type PriceIndex = Record<string, [number, number]>;

/** One daily row as served (the price row of /openapi.json), in the order of its JSON fields. */
export interface DailyPrice {
  date: string;
  open: number | null;
  close: number;
  high: number | null;
  low: number | null;
  volume: number | null;
}

/** A number as JSON writes it (non-finite values, which JSON cannot hold, as null). */
const json = (value: number | null) => (value !== null && Number.isFinite(value) ? String(value) : "null");

/** The served text of one row: identical to `JSON.stringify(row)`, built without an object. */
export function priceRowText(row: DailyPrice): string {
  return `{"date":"${row.date}","open":${json(row.open)},"close":${json(row.close)},"high":${json(row.high)},"low":${json(row.low)},"volume":${json(row.volume)}}`;
}
