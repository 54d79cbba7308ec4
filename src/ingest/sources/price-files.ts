/**
 * Daily price files `prices/<TICKER>.csv`, one per ticker (the file name is the ticker).
 * Header names are matched case-insensitively; accepted layouts:
 * - Yahoo: `Date,Open,High,Low,Close,Adj Close,Volume` (rows of `null` = no trading data,
 *   skipped and counted)
 * - Stooq: `Date,Open,High,Low,Close,Volume` (also the Polish `Data,Otwarcie,Najwyzszy,
 *   Najnizszy,Zamkniecie,Wolumen`)
 * - yfinance with actions: `Date,Open,High,Low,Close,Volume,Dividends,Stock Splits`, dates
 *   like `2024-02-09 00:00:00-05:00` (the local trading date is kept). Without an `Adj Close`
 *   column (yfinance's `auto_adjust`, its default), its prices are adjusted for dividends as
 *   well as splits: they are put back on the split-adjusted basis (`withoutDividends`), and
 *   the file's Close is kept as the adjusted close.
 * - close only: `date,close`
 * and `prices/<TICKER>.json`, Alpha Vantage's daily adjusted series (alphavantage-daily.ts).
 * Required: date and close. Close must be positive, other prices non-negative, all below
 * MAX_PER_SHARE; volume a whole number below MAX_VOLUME; dates from 1900 to a week from today
 * (`readDate`), each once per file. Rows are returned in date order. High below Low by
 * less than 1% is kept as given (back-adjusted sources round old prices so that it happens:
 * XOM's 1968-02-20 in yfinance, 0.1603 against 0.1606); by more, it is an error.
 */
import { ImportError } from "../errors.ts";
import { parseAlphaVantageDividends, parseAlphaVantagePrices } from "./alphavantage-daily.ts";
import { checkWidth, findColumn, forEachCsvRecord, readCsv } from "./csv.ts";
import { type DividendRow, priceFileDividend } from "./dividends.ts";
import { checkAdjustedPrices, type PriceFile, type PriceRow } from "./price-rows.ts";
import {
  FieldError,
  isMissing,
  type ParseOptions,
  type ParseResult,
  RecordCollector,
  readDate,
  readPrice,
  readVolume,
  roundDecimal,
  type SkippedRecord,
  shown,
} from "./value-readers.ts";

const COLUMNS = {
  date: ["date", "data"],
  open: ["open", "otwarcie"],
  high: ["high", "najwyzszy"],
  low: ["low", "najnizszy"],
  close: ["close", "zamkniecie"],
  adj_close: ["adj_close", "adjclose", "adjusted_close"],
  volume: ["volume", "wolumen"],
  dividends: ["dividends"],
  splits: ["stock_splits"],
} as const;

type Layout = Record<keyof typeof COLUMNS, number>;

/**
 * Whether a price file carries dividend events: an Alpha Vantage series, or a CSV whose header
 * (in `head`, the file's first bytes) has a Dividends column (yfinance with actions).
 */
export function carriesDividends(file: string, head: string): boolean {
  if (file.toLowerCase().endsWith(".json")) return true;
  let header: string[] = [];
  try {
    header = readCsv(head.split(/\r?\n/, 1)[0] ?? "", file).header;
  } catch {
    return false;
  }
  return findColumn(header, COLUMNS.dividends) >= 0;
}

/**
 * The dividend events of a price file that carries them (`carriesDividends`), split-adjusted
 * as its prices are (yfinance's Dividends are), ascending by ex-date.
 */
export function parsePriceFileDividends(
  text: string,
  file: string,
  opts: ParseOptions & { ticker: string },
): ParseResult<DividendRow> {
  if (file.toLowerCase().endsWith(".json")) return parseAlphaVantageDividends(text, file, opts);
  const { dividends, lostDividends } = readPriceCsv(text, file, opts);
  const rows = [...dividends]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([date, amount]) => priceFileDividend(opts.ticker, date, amount));
  return { rows, skipped: lostDividends };
}

/** Parses a price file of either kind, told apart by its extension. */
export function parsePriceFile(text: string, file: string, opts: ParseOptions = {}): PriceFile {
  return file.toLowerCase().endsWith(".json")
    ? parseAlphaVantagePrices(text, file, opts)
    : parsePrices(text, file, opts);
}

/**
 * Parses one price CSV. Rows with no trading data (all prices missing) are skipped, not errors.
 * Its splits are each day whose Stock Splits is a positive number other than 1, as new shares
 * per old share (yfinance's 4.0 is 4-for-1, 0.1 a 1-for-10 reverse split), ascending by date.
 */
export function parsePrices(text: string, file: string, opts: ParseOptions = {}): PriceFile {
  const { rows, dividends, splits: byDate, layout, skipped } = readPriceCsv(text, file, opts);
  const splits = [...byDate].sort(([a], [b]) => (a < b ? -1 : 1)).map(([date, ratio]) => ({ date, ratio }));
  if (!adjustedForDividends(layout)) return { rows, skipped, splits };
  const raw = withoutDividends(rows, dividends);
  checkAdjustedPrices(raw, file);
  return { rows: raw, skipped, splits };
}

/**
 * The rows of a price CSV as written, in date order, and its Dividends column's amounts by
 * date (a dividend on a day without prices too: yfinance writes its ex-date alone). When the
 * prices are to be put back from those dividends (`adjustedForDividends`), a row that carries
 * a dividend cannot be skipped when lenient: every earlier price depends on it, so such a row
 * fails the file. `lostDividends` lists the dividends of rows skipped otherwise.
 */
function readPriceCsv(text: string, file: string, opts: ParseOptions) {
  // Null for a row of a dividend alone, which is no price row.
  const out = new RecordCollector<PriceRow | null>(file, opts.lenient ?? false);
  const noData: SkippedRecord[] = [];
  const lostDividends: SkippedRecord[] = [];
  const dividends = new Map<string, number>();
  const splits = new Map<string, number>();
  let layout: Layout | null = null;
  let width = 0;
  forEachCsvRecord(text, file, (cells, line) => {
    if (layout === null) {
      layout = headerLayout(cells, file, line);
      width = cells.length;
      return;
    }
    const at = layout;
    const dividendCell = at.dividends < 0 ? "" : (cells[at.dividends] ?? "").trim();
    const hasDividend = !isMissing(dividendCell) && Number(dividendCell) !== 0;
    const readDividend = (date: string) => {
      const amount = readPrice(dividendCell, "Dividends") ?? 0;
      // Two dividends on one ex-date (a regular and a special one) are one payment of both.
      if (amount > 0) dividends.set(date, (dividends.get(date) ?? 0) + amount);
    };
    // A bad row that carries a dividend: see the function comment.
    const keepingDividends =
      <T>(build: () => T) =>
      () => {
        try {
          return build();
        } catch (error) {
          if (!(error instanceof FieldError) || !hasDividend) throw error;
          if (opts.lenient && adjustedForDividends(at))
            throw new ImportError(file, line, `${error.message} (a row with a dividend cannot be skipped)`);
          lostDividends.push({ line, reason: `dividend ${dividendCell} left out: ${error.message}` });
          throw error;
        }
      };
    if (at.close >= 0 && isMissing(cells[at.close]) && (at.open < 0 || isMissing(cells[at.open]))) {
      if (!hasDividend) noData.push({ line, reason: "no trading data" });
      else
        out.add(
          line,
          keepingDividends(() => {
            readDividend(readDate(cells[at.date] ?? "", "Date"));
            return null;
          }),
        );
      return;
    }
    out.add(
      line,
      keepingDividends(() => {
        const bad = checkWidth({ line, cells }, width);
        if (bad) throw new FieldError(bad);
        const row = priceRow(cells, at);
        readDividend(row.date);
        const split = at.splits < 0 ? null : readSplit(cells[at.splits] ?? "");
        if (split !== null) splits.set(row.date, split);
        return row;
      }),
    );
  });
  const at = layout as Layout | null;
  if (at === null) throw new ImportError(file, 1, "empty file: no header row");
  const result = out.result();
  const rows = result.rows.filter((row): row is PriceRow => row !== null);
  rows.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  for (let i = 1; i < rows.length; i++) {
    if (rows[i]?.date === rows[i - 1]?.date) {
      throw new ImportError(file, null, `date ${rows[i]?.date} appears more than once`);
    }
  }
  return { rows, dividends, splits, layout: at, skipped: [...result.skipped, ...noData], lostDividends };
}

/** Whether a file's prices are adjusted for its dividends (yfinance's `auto_adjust`: no Adj Close). */
const adjustedForDividends = (at: Layout) => at.dividends >= 0 && at.adj_close < 0;

/**
 * Prices adjusted for dividends (yfinance's `auto_adjust`, as Yahoo's Adj Close) put back on
 * the split-adjusted basis. Yahoo multiplies every price before an ex-date by
 * `1 - dividend / close of the day before` (that close unadjusted), so, from the newest day
 * back, with F the product of the multipliers of the ex-dates after a day (raw = adjusted / F),
 * an ex-date's multiplier is `m = A / (A + dividend × F)` where A is the adjusted close of the
 * last trading day before it. Reproduces Yahoo's own closes to ~1e-7 on the fixtures' AAPL,
 * KO, XOM, MSFT. The file's close becomes the adjusted close.
 */
function withoutDividends(rows: readonly PriceRow[], dividends: ReadonlyMap<string, number>): PriceRow[] {
  const out: PriceRow[] = new Array(rows.length);
  // Ex-dates newest first; each applies to the rows before it.
  const exDates = [...dividends.keys()].sort().reverse();
  let next = 0;
  let factor = 1;
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i] as PriceRow;
    // The ex-dates between this row and the next (a dividend on a day without prices
    // included) all divide by this row's close as traded, R: A = R × F × Π(1 − d / R). One
    // ex-date solves exactly (m = A / (A + d × F)); several, by a few fixed-point steps.
    const gap: number[] = [];
    for (; next < exDates.length && (exDates[next] as string) > row.date; next++) {
      gap.push(dividends.get(exDates[next] as string) as number);
    }
    if (gap.length > 0) {
      const target = row.close / factor;
      let traded = target + gap.reduce((a, b) => a + b, 0);
      for (let step = 0; step < 8; step++) traded = target / gap.reduce((m, d) => m * (1 - d / traded), 1);
      factor *= gap.reduce((m, d) => m * (1 - d / traded), 1);
    }
    const raw = (v: number | null) => (v === null || factor === 1 ? v : roundDecimal(v / factor));
    out[i] = {
      ...row,
      open: raw(row.open),
      high: raw(row.high),
      low: raw(row.low),
      close: raw(row.close) as number,
      adj_close: row.close,
    };
  }
  return out;
}

function headerLayout(cells: string[], file: string, line: number): Layout {
  const layout = Object.fromEntries(
    Object.entries(COLUMNS).map(([key, names]) => [key, findColumn(cells, names)]),
  ) as Layout;
  if (layout.date < 0 || layout.close < 0) {
    throw new ImportError(
      file,
      line,
      `expected a Date and a Close column (header is ${shown(cells.join(","))})`,
    );
  }
  return layout;
}

/** A Stock Splits cell: null for none (empty, 0 or 1), else the ratio; anything else is an error. */
function readSplit(cell: string): number | null {
  if (isMissing(cell)) return null;
  const ratio = Number(cell.trim());
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1_000 || (ratio > 0 && ratio < 0.001))
    throw new FieldError(`Stock Splits: ${shown(cell)} is not a split ratio`);
  return ratio === 0 || ratio === 1 ? null : ratio;
}

/** How far below Low a High may be and still be rounding (see the module comment). */
const ROUNDING = 0.01;

function priceRow(cells: string[], at: Layout): PriceRow {
  const price = (i: number, name: string) => (i < 0 ? null : readPrice(cells[i], name));
  const close = price(at.close, "Close");
  if (close === null || close === 0)
    throw new FieldError(`Close ${shown(cells[at.close])} must be a positive price`);
  const high = price(at.high, "High");
  const low = price(at.low, "Low");
  if (high !== null && low !== null && high < low * (1 - ROUNDING))
    throw new FieldError(`High ${high} is below Low ${low}`);
  return {
    date: readDate(cells[at.date] ?? "", "Date"),
    open: price(at.open, "Open"),
    high,
    low,
    close,
    adj_close: price(at.adj_close, "Adj Close"),
    volume: at.volume < 0 ? null : readVolume(cells[at.volume], "Volume"),
  };
}
