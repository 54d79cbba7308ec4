/** What every price file parser yields (price-files.ts and the format parsers beside it). */
import type { ParseResult } from "./value-readers.ts";

/** A split a price file records: on `date` each share became `ratio` shares. */
export interface PriceSplit {
  date: string;
  ratio: number;
}

/** One daily bar of a price file, as the prices table stores it (without its security). */
export interface PriceRow {
  date: string;
  open: number | null;
  high: number | null;
  low: number | null;
  close: number;
  adj_close: number | null;
  volume: number | null;
}

/**
 * A price file parsed once: its daily bars, and the splits it records (yfinance's Stock Splits,
 * Alpha Vantage's split coefficients; none in a file without them), ascending by date.
 */
export interface PriceFile extends ParseResult<PriceRow> {
  splits: PriceSplit[];
}
