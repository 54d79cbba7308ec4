/**
 * Owner-earnings and dividend growth signals (optional): `growth/*.csv`, the "imported
 * source growth signals" of the growth document (dividend_growth_*) and the owner-earnings
 * document (its growth fields); docs/sources.md.
 *
 * Columns (header required, any order, case-insensitive):
 *
 * | column | required | value |
 * |---|---|---|
 * | ticker | yes | alias `symbol` |
 * | as_of_date | yes | YYYY-MM-DD the figures are as of; alias `date` |
 * | owner_earnings | no | owner earnings in the reporting currency's units (not thousands), any sign |
 * | owner_earnings_growth_1y | no | fraction (0.12 = 12%) |
 * | owner_earnings_growth_3y | no | fraction |
 * | owner_earnings_growth_5y | no | fraction |
 * | dividend_growth_3y | no | fraction, ≥ -1 |
 * | dividend_growth_5y | no | fraction, ≥ -1 |
 *
 * At least one of the optional columns must be present. Empty / `N/A` cells are null.
 * Growth figures are stored as given (the importer does not recompute them). Several rows
 * per ticker are allowed (a history); one per (ticker, as_of_date), the last one wins.
 */
import { parseSignalsCsv, type SignalColumn, type SignalRow } from "./signals.ts";
import type { ParseOptions, ParseResult } from "./value-readers.ts";

/** The value columns of a growth-signals file. */
const GROWTH_SIGNAL_COLUMNS = [
  { name: "owner_earnings" },
  { name: "owner_earnings_growth_1y" },
  { name: "owner_earnings_growth_3y" },
  { name: "owner_earnings_growth_5y" },
  { name: "dividend_growth_3y", min: -1 },
  { name: "dividend_growth_5y", min: -1 },
] as const satisfies readonly SignalColumn<string>[];

/** One growth-signals row: ticker, as_of_date and the columns above (number or null). */
export type GrowthSignalsRow = SignalRow<(typeof GROWTH_SIGNAL_COLUMNS)[number]["name"]>;

/** Parses one growth-signals CSV (see the module comment). */
export function parseGrowthSignalsCsv(
  text: string,
  file: string,
  opts: ParseOptions = {},
): ParseResult<GrowthSignalsRow> {
  return parseSignalsCsv(text, file, GROWTH_SIGNAL_COLUMNS, opts);
}
