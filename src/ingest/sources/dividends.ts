/**
 * Dividend history, one file per security: `dividends/<TICKER>.csv` or `.json`. The ticker
 * is the file name (see `tickerFromFileName`), unless the caller passes `opts.ticker`.
 *
 * **CSV** (header row required; column names are matched case-insensitively, spaces,
 * `-` and `.` count as `_`; other columns are ignored):
 *
 * | column | aliases | required | value |
 * |---|---|---|---|
 * | ex_date | `date`, `ex-date`, `Date`, `ex_dividend_date` | yes | ex-dividend date |
 * | amount | `dividends`, `dividend`, `cash_amount` | yes | cash per share, > 0, split-adjusted |
 * | pay_date | `payment_date` | no | payment date |
 * | record_date | | no | record date |
 * | declaration_date | `declared_date` | no | declaration date |
 * | currency | | no | ISO code of amount, e.g. USD |
 *
 * Dates are `YYYY-MM-DD` (a trailing time such as yfinance's ` 00:00:00-05:00` is
 * ignored) or `M/D/YYYY`. Amounts are plain decimals; `$` and thousands separators are
 * accepted. Optional cells may be empty or `N/A`. The real files this was built on are
 * yfinance exports `date,amount` (ex-date, split-adjusted amount).
 *
 * **JSON**: the Nasdaq dividend-history response
 * (`api.nasdaq.com/api/quote/<T>/dividends?assetclass=stocks`):
 * `{"data":{"dividends":{"rows":[{"exOrEffDate":"05/10/2024","type":"Cash",
 * "amount":"$0.25","declarationDate","recordDate","paymentDate","currency"}]}}}`,
 * dates `MM/DD/YYYY`, `N/A` for missing. Only `type` "Cash" rows are dividends; other
 * types are listed in `skipped`. Nasdaq amounts are as declared, NOT split-adjusted
 * (AAPL's 1988 rows show $0.10), unlike the yfinance CSVs: rows say so in `split_adjusted`.
 *
 * Rules: an amount that is zero, negative, not a number or not below MAX_PER_SHARE, or a
 * date that is not a real calendar date or lies before 1900 or more than a year ahead (a
 * declared dividend's dates are ahead of its history), is a bad record (an ImportError in
 * strict mode, skipped in lenient mode).
 * Several rows with the same ex_date: the LAST one in file order is kept (a later line is
 * taken as a correction); the others are listed in `skipped`. Rows are returned sorted by
 * ex_date ascending.
 */
import { ImportError } from "../errors.ts";
import { type CsvRecord, checkWidth, findColumn, readCsv, requireColumn } from "./csv.ts";
import {
  FieldError,
  isObject,
  MAX_PER_SHARE,
  type ParseOptions,
  type ParseResult,
  parseJson,
  RecordCollector,
  readCurrency,
  readDate,
  readMoney,
  readOptionalDate,
  shown,
  textProp,
  tickerFromFileName,
} from "./value-readers.ts";

export { tickerFromFileName } from "./value-readers.ts";

/** One cash dividend of one security. */
export interface DividendRow {
  ticker: string;
  /** Ex-dividend date, YYYY-MM-DD. */
  ex_date: string;
  pay_date: string | null;
  record_date: string | null;
  declaration_date: string | null;
  /** Cash per share; always > 0. */
  amount: number;
  /** ISO currency of amount when the source says (Nasdaq JSON, optional CSV column), else null. */
  currency: string | null;
  /**
   * Whether amount is adjusted for later splits (comparable with split-adjusted prices):
   * true for CSV (the format requires it), false for Nasdaq JSON (amounts as declared).
   */
  split_adjusted: boolean;
}

/** A dividend event of a price file: its ex-date and amount, on the prices' split-adjusted basis. */
export function priceFileDividend(ticker: string, exDate: string, amount: number): DividendRow {
  return {
    ticker,
    ex_date: exDate,
    pay_date: null,
    record_date: null,
    declaration_date: null,
    amount,
    currency: null,
    split_adjusted: true,
  };
}

/** Options of the dividend parsers. */
export interface DividendParseOptions extends ParseOptions {
  /** The security's ticker; default: taken from the file name. */
  ticker?: string;
}

/** Parses a dividends file of either format, chosen by its first non-blank character. */
export function parseDividends(
  text: string,
  file: string,
  opts: DividendParseOptions = {},
): ParseResult<DividendRow> {
  return /^\s*[{[]/.test(text.slice(0, 64))
    ? parseNasdaqDividendsJson(text, file, opts)
    : parseDividendsCsv(text, file, opts);
}

interface DividendColumns {
  exDate: number;
  amount: number;
  payDate: number;
  recordDate: number;
  declarationDate: number;
  currency: number;
}

/** Parses a dividends CSV (see the module comment for the columns). */
function parseDividendsCsv(
  text: string,
  file: string,
  opts: DividendParseOptions = {},
): ParseResult<DividendRow> {
  const table = readCsv(text, file);
  const cols: DividendColumns = {
    exDate: requireColumn(table, file, "ex_date", ["ex_date", "date", "ex_dividend_date"]),
    amount: requireColumn(table, file, "amount", ["amount", "dividends", "dividend", "cash_amount"]),
    payDate: findColumn(table.header, ["pay_date", "payment_date"]),
    recordDate: findColumn(table.header, ["record_date"]),
    declarationDate: findColumn(table.header, ["declaration_date", "declared_date"]),
    currency: findColumn(table.header, ["currency"]),
  };
  const ticker = opts.ticker ?? tickerFromFileName(file);
  const out = new RecordCollector<DividendRow>(file, opts.lenient === true);
  for (const record of table.records) {
    out.add(record.line, () => dividendFromCsv(record, table.header.length, cols, ticker));
  }
  return finish(out);
}

function dividendFromCsv(
  record: CsvRecord,
  width: number,
  cols: DividendColumns,
  ticker: string,
): DividendRow {
  const widthProblem = checkWidth(record, width);
  if (widthProblem !== null) throw new FieldError(widthProblem);
  const cell = (at: number) => (at === -1 ? undefined : record.cells[at]);
  return {
    ticker,
    ex_date: readDate(cell(cols.exDate) ?? "", "ex_date", "announced"),
    pay_date: readOptionalDate(cell(cols.payDate), "pay_date", "announced"),
    record_date: readOptionalDate(cell(cols.recordDate), "record_date", "announced"),
    declaration_date: readOptionalDate(cell(cols.declarationDate), "declaration_date", "announced"),
    amount: readAmount(cell(cols.amount), "amount"),
    currency: readCurrency(cell(cols.currency), "currency"),
    split_adjusted: true,
  };
}

/** A cash amount per share: required, positive and below MAX_PER_SHARE. */
function readAmount(value: string | undefined, column: string): number {
  const amount = readMoney(value, column);
  if (amount === null) throw new FieldError(`${column} is empty`);
  if (!(amount > 0)) throw new FieldError(`${column} ${shown(value)} is not a positive amount per share`);
  if (!(amount < MAX_PER_SHARE))
    throw new FieldError(`${column} ${shown(value)} is not below ${MAX_PER_SHARE}`);
  return amount;
}

/** Parses a Nasdaq dividend-history JSON response (see the module comment). */
function parseNasdaqDividendsJson(
  text: string,
  file: string,
  opts: DividendParseOptions = {},
): ParseResult<DividendRow> {
  const records = nasdaqDividendRecords(parseJson(text, file), file);
  const ticker = opts.ticker ?? tickerFromFileName(file);
  const out = new RecordCollector<DividendRow>(file, opts.lenient === true);
  records.forEach((record, i) => {
    const where = `data.dividends.rows[${i}]`;
    const type = isObject(record) ? record.type : undefined;
    if (typeof type === "string" && type.trim().toLowerCase() !== "cash") {
      out.drop(null, `${where}: type ${shown(type)} is not a cash dividend`);
      return;
    }
    out.add(null, () => dividendFromNasdaq(record, ticker), where);
  });
  return finish(out);
}

/** The rows array of a Nasdaq dividends response; `rows: null` (no dividends) is empty. */
function nasdaqDividendRecords(json: unknown, file: string): unknown[] {
  const dividends = isObject(json) && isObject(json.data) ? json.data.dividends : undefined;
  if (isObject(dividends) && (Array.isArray(dividends.rows) || dividends.rows === null)) {
    return dividends.rows ?? [];
  }
  throw new ImportError(file, null, "not a Nasdaq dividends response: data.dividends.rows is missing");
}

function dividendFromNasdaq(record: unknown, ticker: string): DividendRow {
  if (!isObject(record)) throw new FieldError("record is not an object");
  return {
    ticker,
    ex_date: readDate(textProp(record, "exOrEffDate") ?? "", "exOrEffDate", "announced"),
    pay_date: readOptionalDate(textProp(record, "paymentDate"), "paymentDate", "announced"),
    record_date: readOptionalDate(textProp(record, "recordDate"), "recordDate", "announced"),
    declaration_date: readOptionalDate(textProp(record, "declarationDate"), "declarationDate", "announced"),
    amount: readAmount(textProp(record, "amount"), "amount"),
    currency: readCurrency(textProp(record, "currency"), "currency"),
    split_adjusted: false,
  };
}

/** One row per ex_date (the last one wins), sorted by ex_date. */
function finish(out: RecordCollector<DividendRow>): ParseResult<DividendRow> {
  const result = out.resultKeepingLast(
    (row) => row.ex_date,
    (row) => `ex_date ${row.ex_date}`,
  );
  result.rows.sort((a, b) => (a.ex_date < b.ex_date ? -1 : a.ex_date > b.ex_date ? 1 : 0));
  return result;
}
