/**
 * What every price file parser yields (price-files.ts and the format parsers beside it), and
 * the check of rows an adjustment computed.
 */
import { ImportError } from "../errors.ts";
import { checkPrice, checkVolume, FieldError, type ParseResult } from "./value-readers.ts";

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

/**
 * Checks the rows an adjustment computed (Alpha Vantage's prices divided by split
 * coefficients, yfinance's put back from its dividends): each is still a price row, so that no
 * coefficient or amount of a file makes a price 0, negative or out of bounds unnoticed. Throws
 * ImportError naming the day: the whole file fails, as every earlier day depends on the event
 * that did it.
 */
export function checkAdjustedPrices(rows: readonly PriceRow[], file: string): void {
  for (const row of rows) {
    try {
      if (!(checkPrice(row.close, "close") > 0)) throw new FieldError(`close ${row.close} is not positive`);
      for (const column of ["open", "high", "low", "adj_close"] as const) {
        const price = row[column];
        if (price !== null) checkPrice(price, column);
      }
      if (row.volume !== null) checkVolume(row.volume, "volume");
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      throw new ImportError(
        file,
        null,
        `${row.date}: ${error.message} once adjusted for splits and dividends`,
      );
    }
  }
}
