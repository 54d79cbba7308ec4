/**
 * Earnings calendar files: `calendar/*.json` or `calendar/*.csv`, any number of them. Each
 * gives rows of (ticker, earning date); the importer merges files.
 *
 * Accepted layouts (chosen from the content, not the file name):
 *
 * 1. **Nasdaq earnings-calendar API** (`api.nasdaq.com/api/calendar/earnings?date=D`):
 *    `{"data":{"asOf":"Mon, Jul 1, 2024","rows":[{"symbol","time":"time-pre-market",
 *    "epsForecast":"($0.11)","noOfEsts":"2","fiscalQuarterEnding":"Mar/2024","eps"?,...}]}}`.
 *    The response is for one day: earning_date is `asOf`, or, when asOf is missing or not a
 *    date, the first `YYYY-MM-DD` in the file name. `eps` (past days only) is eps_actual.
 *    `name`, `marketCap`, `lastYearRptDt`, `lastYearEPS`, `surprise` are ignored.
 *    `rows: null` (a day without reports) is no rows.
 * 2. **Alpha Vantage EARNINGS_CALENDAR**, as its CSV (`symbol,name,reportDate,
 *    fiscalDateEnding,estimate,currency`) or as a JSON array of those objects.
 * 3. **A JSON object keyed by ticker** (the mktmusings calendar):
 *    `{"AAPL":{"date":"2026-07-30","period_end":"2026-06-29","quarter":"FY26Q3",
 *    "last_report_date"?:"2026-04-30",...}}`. `date` gives one row; `last_report_date`, when
 *    present, gives a second row for that past report (fiscal_quarter_ending null).
 * 4. **Plain CSV**: `ticker,earning_date,earning_time,eps_forecast,eps_actual,no_of_estimates`,
 *    optionally `cik`, `fiscal_quarter_ending` and `currency`. Only ticker and earning_date are required;
 *    column order is free and other columns are ignored.
 *
 * Column / key aliases (matched case-insensitively, ` `, `-`, `.` = `_`): ticker = symbol;
 * earning_date = earnings_date, report_date, reportDate, date; earning_time = time,
 * report_time; eps_forecast = epsForecast, estimate, eps_estimate, estimatedEPS;
 * eps_actual = eps, reported_eps, reportedEPS; no_of_estimates = noOfEsts, no_of_ests,
 * num_estimates; fiscal_quarter_ending = fiscalQuarterEnding, fiscalDateEnding, period_end.
 *
 * Values: EPS as money strings or plain numbers ("$1.23", "($0.45)" = -0.45, "-0.45");
 * `""`, `N/A`, `None`, `--` = null. earning_time is normalised to "pre-market" (also
 * time-pre-market, bmo, before-market-open), "after-hours" (time-after-hours, amc,
 * after-market-close, post-market), "during-market" (dmh, during-market-hours) or
 * "not-supplied" (empty, time-not-supplied, n/a, unknown); anything else is an error.
 * fiscal_quarter_ending is month precision `YYYY-MM` (Nasdaq "Mar/2024" → "2024-03",
 * "2023-04-30" → "2023-04"). Dates (and months) lie from 1900 to a year from today. cik is
 * 10-digit zero-padded. eps_surprise = eps_actual − eps_forecast when both are known, else null
 * (sources' own surprise figures are ignored).
 */
import type { CalendarRow, EarningTime } from "../../snapshot/documents.ts";
import { ImportError } from "../errors.ts";
import { readCsv } from "./csv.ts";
import { type Aliases, type FieldSource, fieldsFromCsv, fieldsFromObject, mapColumns } from "./fields.ts";
import {
  dateRangeProblem,
  FieldError,
  formatDate,
  isCalendarDate,
  isMissing,
  isObject,
  type JsonObject,
  type ParseOptions,
  type ParseResult,
  parseJson,
  RecordCollector,
  readCount,
  readCurrency,
  readDate,
  readMoney,
  readTicker,
  roundDecimal,
  shown,
} from "./value-readers.ts";

type CalendarField =
  | "ticker"
  | "cik"
  | "earning_date"
  | "earning_time"
  | "eps_forecast"
  | "eps_actual"
  | "no_of_estimates"
  | "fiscal_quarter_ending"
  | "currency";

const ALIASES: Aliases<CalendarField> = {
  ticker: ["ticker", "symbol"],
  cik: ["cik"],
  earning_date: ["earning_date", "earnings_date", "report_date", "reportdate", "date"],
  earning_time: ["earning_time", "time", "report_time", "reporttime"],
  eps_forecast: ["eps_forecast", "epsforecast", "estimate", "eps_estimate", "estimatedeps"],
  eps_actual: ["eps_actual", "eps", "reported_eps", "reportedeps"],
  no_of_estimates: ["no_of_estimates", "noofests", "no_of_ests", "num_estimates"],
  fiscal_quarter_ending: ["fiscal_quarter_ending", "fiscalquarterending", "fiscaldateending", "period_end"],
  currency: ["currency"],
};

/** Parses one calendar file of any accepted layout (see the module comment). */
export function parseCalendar(text: string, file: string, opts: ParseOptions = {}): ParseResult<CalendarRow> {
  const out = new RecordCollector<CalendarRow>(file, opts.lenient === true);
  if (/^\s*[{[]/.test(text.slice(0, 64))) addJsonRows(parseJson(text, file), file, out);
  else addCsvRows(text, file, out);
  return out.result();
}

function addCsvRows(text: string, file: string, out: RecordCollector<CalendarRow>): void {
  const table = readCsv(text, file);
  const columns = mapColumns(table, ALIASES);
  for (const field of ["ticker", "earning_date"] as const) {
    if (columns[field] === -1) {
      const seen = shown(table.header.join(","));
      throw new ImportError(file, table.headerLine, `missing required column ${field} (header is ${seen})`);
    }
  }
  for (const record of table.records) {
    out.add(record.line, () => calendarRow(fieldsFromCsv(record, table, columns), null));
  }
}

function addJsonRows(json: unknown, file: string, out: RecordCollector<CalendarRow>): void {
  if (Array.isArray(json)) {
    json.forEach((item, i) => {
      out.add(null, () => calendarRow(objectFields(item), null), `[${i}]`);
    });
  } else if (isObject(json) && "data" in json) {
    addNasdaqRows(json, file, out);
  } else if (isObject(json) && Object.values(json).every(isObject)) {
    addTickerKeyedRows(json, out);
  } else {
    throw new ImportError(file, null, "not a known earnings-calendar layout (see the calendar formats)");
  }
}

function objectFields(item: unknown): FieldSource<CalendarField> {
  if (!isObject(item)) throw new FieldError("record is not an object");
  return fieldsFromObject(item, ALIASES);
}

function addNasdaqRows(json: JsonObject, file: string, out: RecordCollector<CalendarRow>): void {
  const data = json.data;
  const rows = isObject(data) ? data.rows : undefined;
  if (!isObject(data) || !(Array.isArray(rows) || rows === null)) {
    throw new ImportError(file, null, "not a Nasdaq earnings-calendar response: data.rows is missing");
  }
  const day = nasdaqDay(data.asOf, file);
  (rows ?? []).forEach((item, i) => {
    out.add(null, () => calendarRow(objectFields(item), day), `data.rows[${i}]`);
  });
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const AS_OF = /^(?:[A-Za-z]{3},\s*)?([A-Za-z]{3})[a-z]*\s+(\d{1,2}),\s*(\d{4})$/;

/** The day of a Nasdaq response: asOf ("Mon, Jul 1, 2024"), else a date in the file name. */
function nasdaqDay(asOf: unknown, file: string): string {
  const m = typeof asOf === "string" ? AS_OF.exec(asOf.trim()) : null;
  if (m !== null) {
    const [y, mo, d] = [Number(m[3]), MONTHS.indexOf((m[1] ?? "").toLowerCase()) + 1, Number(m[2])];
    if (isCalendarDate(y, mo, d)) {
      const day = formatDate(y, mo, d);
      const problem = dateRangeProblem(day, "announced");
      if (problem !== null) throw new ImportError(file, null, `asOf ${shown(asOf)} ${problem}`);
      return day;
    }
  }
  const named = /(\d{4}-\d{2}-\d{2})/.exec(file.split(/[\\/]/).pop() ?? "");
  if (named?.[1] !== undefined) {
    try {
      return readDate(named[1], "file name date", "announced");
    } catch {
      // fall through to the error below
    }
  }
  throw new ImportError(file, null, `cannot tell the day: asOf ${shown(asOf)} and no date in the file name`);
}

/** `{"AAPL":{"date","period_end","last_report_date"?},...}`: one or two rows per ticker. */
function addTickerKeyedRows(json: JsonObject, out: RecordCollector<CalendarRow>): void {
  for (const [ticker, value] of Object.entries(json)) {
    if (!isObject(value)) continue; // the caller checked every value is an object
    const entry: JsonObject = { ...value, symbol: ticker };
    out.add(null, () => calendarRow(fieldsFromObject(entry, ALIASES), null), shown(ticker));
    const last = entry.last_report_date;
    if (last === undefined || last === null) continue;
    const past = { symbol: ticker, date: last };
    out.add(
      null,
      () => calendarRow(fieldsFromObject(past, ALIASES), null),
      `${shown(ticker)}.last_report_date`,
    );
  }
}

/** Builds one row; `day` is the date of a one-day response (Nasdaq), used when the record has none. */
function calendarRow(f: FieldSource<CalendarField>, day: string | null): CalendarRow {
  const dateText = f.get("earning_date");
  const eps_forecast = readMoney(f.get("eps_forecast"), f.label("eps_forecast"));
  const eps_actual = readMoney(f.get("eps_actual"), f.label("eps_actual"));
  const fq = f.get("fiscal_quarter_ending");
  return {
    ticker: readTicker(f.get("ticker"), f.label("ticker")),
    cik: readCik(f.get("cik"), f.label("cik")),
    earning_date:
      day !== null && dateText === undefined
        ? day
        : readDate(dateText ?? "", f.label("earning_date"), "announced"),
    earning_time: readEarningTime(f.get("earning_time"), f.label("earning_time")),
    eps_forecast,
    eps_actual,
    eps_surprise:
      eps_forecast !== null && eps_actual !== null ? roundDecimal(eps_actual - eps_forecast) : null,
    no_of_estimates: readCount(f.get("no_of_estimates"), f.label("no_of_estimates")),
    fiscal_quarter_ending: isMissing(fq) ? null : readFiscalMonth(fq ?? "", f.label("fiscal_quarter_ending")),
    currency: readCurrency(f.get("currency"), f.label("currency")),
  };
}

const TIMES: Record<string, EarningTime> = {
  pre_market: "pre-market",
  premarket: "pre-market",
  bmo: "pre-market",
  before_market_open: "pre-market",
  after_hours: "after-hours",
  after_market_close: "after-hours",
  amc: "after-hours",
  post_market: "after-hours",
  postmarket: "after-hours",
  during_market: "during-market",
  during_market_hours: "during-market",
  dmh: "during-market",
  not_supplied: "not-supplied",
  unknown: "not-supplied",
};

/** Normalises a release-time label (see the module comment); empty / N/A is not-supplied. */
export function readEarningTime(value: string | undefined, column: string): EarningTime {
  if (isMissing(value)) return "not-supplied";
  const key = (value ?? "")
    .trim()
    .toLowerCase()
    .replace(/^time[-_ ]/, "")
    .replace(/[\s-]+/g, "_");
  const time = TIMES[key];
  if (time === undefined) throw new FieldError(`${column} ${shown(value)} is not a known earnings time`);
  return time;
}

const MONTH_SLASH_YEAR = /^([A-Za-z]{3})\/(\d{4})$/;
const YEAR_MONTH = /^(\d{4})-(\d{2})(?:-\d{2})?$/;

/**
 * "Mar/2024", "2024-03" or "2024-03-31" → "2024-03" (a full date must be a real date; the
 * month's first day within the bounds of `readDate`).
 */
function readFiscalMonth(value: string, column: string): string {
  const s = value.trim();
  const named = MONTH_SLASH_YEAR.exec(s);
  const numeric = named === null ? YEAR_MONTH.exec(s) : null;
  const year = Number(named?.[2] ?? numeric?.[1]);
  const month = named ? MONTHS.indexOf((named[1] ?? "").toLowerCase()) + 1 : Number(numeric?.[2]);
  if (s.length === 10) readDate(s, column, "announced");
  if (!isCalendarDate(year, month, 1))
    throw new FieldError(`${column} ${shown(value)} is not a fiscal quarter end`);
  const first = formatDate(year, month, 1);
  const problem = dateRangeProblem(first, "announced");
  if (problem !== null) throw new FieldError(`${column} ${shown(value)} ${problem}`);
  return first.slice(0, 7);
}

/** A CIK: 1–10 digits, returned zero-padded to 10; empty is null. */
function readCik(value: string | undefined, column: string): string | null {
  if (isMissing(value)) return null;
  const s = (value ?? "").trim();
  if (!/^\d{1,10}$/.test(s)) throw new FieldError(`${column} ${shown(value)} is not a CIK`);
  return s.padStart(10, "0");
}
