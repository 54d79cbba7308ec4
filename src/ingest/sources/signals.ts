/**
 * The shared shape of the "signals" CSV files (estimates/*.csv, growth/*.csv): one row per
 * (ticker, as_of_date) with a set of optional numeric columns.
 *
 * Rules common to every signals file: a header row; `ticker` (alias `symbol`) and
 * `as_of_date` (aliases `date`, `as_of`) are required, and so is at least one of the
 * file's value columns (a file with none of them has the wrong columns). Value columns
 * may be absent (then null in every row) and cells may be empty / `N/A` (null). Values
 * are plain decimals (`0.12`, `-0.035`, `1.2e-2`); `12%` is rejected, not guessed at.
 * Columns are matched case-insensitively in any order; unknown columns are ignored.
 * `as_of_date` lies from 1900 to a week from today: the day the figures were known.
 * Several rows for one (ticker, as_of_date): the last one is kept, the others skipped.
 */
import { ImportError } from "../errors.ts";
import { readCsv } from "./csv.ts";
import { type Aliases, fieldsFromCsv, mapColumns } from "./fields.ts";
import {
  FieldError,
  type ParseOptions,
  type ParseResult,
  RecordCollector,
  readDate,
  readNumber,
  readTicker,
  shown,
} from "./value-readers.ts";

/** One value column of a signals file. */
export interface SignalColumn<K extends string> {
  name: K;
  /** Lowest possible value (e.g. -1 for a growth rate of something that cannot go negative). */
  min?: number;
}

/** A parsed signals row: ticker, as_of_date and one number-or-null per value column. */
export type SignalRow<K extends string> = { ticker: string; as_of_date: string } & Record<K, number | null>;

/** Parses a signals CSV whose value columns are `columns` (see the module comment). */
export function parseSignalsCsv<K extends string>(
  text: string,
  file: string,
  columns: readonly SignalColumn<K>[],
  opts: ParseOptions = {},
): ParseResult<SignalRow<K>> {
  const table = readCsv(text, file);
  const aliases = signalAliases(columns);
  const map = mapColumns(table, aliases);
  const missing = ["ticker", "as_of_date"].filter((f) => map[f as K | "ticker"] === -1);
  if (missing.length > 0 || columns.every((c) => map[c.name] === -1)) {
    const expected = ["ticker", "as_of_date", ...columns.map((c) => c.name)].join(",");
    const what = missing.length > 0 ? `missing required column ${missing.join(", ")}` : "no value column";
    throw new ImportError(file, table.headerLine, `${what}; expected columns ${expected}`);
  }
  const out = new RecordCollector<SignalRow<K>>(file, opts.lenient === true);
  for (const record of table.records) {
    out.add(record.line, () => {
      const f = fieldsFromCsv(record, table, map);
      const row: Record<string, string | number | null> = {
        ticker: readTicker(f.get("ticker"), f.label("ticker")),
        as_of_date: readDate(f.get("as_of_date") ?? "", f.label("as_of_date")),
      };
      for (const c of columns) row[c.name] = readBounded(f.get(c.name), f.label(c.name), c.min);
      return row as SignalRow<K>;
    });
  }
  return out.resultKeepingLast(
    (row) => `${row.ticker}\u0000${row.as_of_date}`,
    (row) => `${row.ticker} ${row.as_of_date}`,
  );
}

function signalAliases<K extends string>(
  columns: readonly SignalColumn<K>[],
): Aliases<K | "ticker" | "as_of_date"> {
  const aliases: Record<string, readonly string[]> = {
    ticker: ["ticker", "symbol"],
    as_of_date: ["as_of_date", "date", "as_of"],
  };
  for (const c of columns) aliases[c.name] = [c.name];
  return aliases as Aliases<K | "ticker" | "as_of_date">;
}

function readBounded(value: string | undefined, column: string, min: number | undefined): number | null {
  const n = readNumber(value, column);
  if (n !== null && min !== undefined && n < min) {
    throw new FieldError(`${column} ${shown(value)} is below ${min}, which is impossible for this value`);
  }
  return n;
}
