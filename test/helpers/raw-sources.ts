/**
 * Readers of raw source files, real (STOCKD_FIXTURES) or the demo's, so that expected values
 * come from the files a snapshot was imported from, never from the service: JSON, Yahoo-layout
 * price CSVs, SEC submissions and ticker lists, splits, dividends and the Nasdaq calendar. SEC
 * companyfacts: raw-companyfacts.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type Json = Record<string, unknown>;

export function readJson<T = Json>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

/** One row of a Yahoo-layout price CSV, numbers as written in the file. */
export interface CsvPrice {
  date: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** Parses `Date,Open,High,Low,Close,Adj Close,Volume` (skipping `null` rows), ascending. */
export function readPriceCsv(path: string): CsvPrice[] {
  const lines = readFileSync(path, "utf8")
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .filter(Boolean);
  const header = (lines.shift() ?? "").toLowerCase().split(",");
  const at = (name: string) => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`${path}: no ${name} column`);
    return i;
  };
  const [d, o, h, l, c, v] = [at("date"), at("open"), at("high"), at("low"), at("close"), at("volume")];
  const rows: CsvPrice[] = [];
  for (const line of lines) {
    const cells = line.split(",");
    if (cells[c] === "null") continue;
    const n = (i: number) => Number(cells[i]);
    rows.push({
      date: (cells[d] ?? "").slice(0, 10),
      open: n(o),
      high: n(h),
      low: n(l),
      close: n(c),
      volume: n(v),
    });
  }
  return rows.sort((a, b) => a.date.localeCompare(b.date));
}

/**
 * A price row as /stocks/{symbol}/price serves it: date, open, close, high, low and volume, in
 * that order (no adjusted close).
 */
export function servedPrice<N extends number | null>(row: {
  date: string;
  open: N;
  close: number;
  high: N;
  low: N;
  volume: N;
}): { date: string; open: N; close: number; high: N; low: N; volume: N } {
  const { date, open, close, high, low, volume } = row;
  return { date, open, close, high, low, volume };
}

/** The columnar `filings.recent` block of a submissions file, or a paged file's top level. */
export interface FilingColumns {
  accessionNumber: string[];
  filingDate: string[];
  reportDate: string[];
  acceptanceDateTime: string[];
  form: string[];
  primaryDocument: string[];
  primaryDocDescription: string[];
  /** An 8-K's item numbers ("2.02,9.01"); absent from some files. */
  items?: string[];
}

export interface Submissions {
  cik: string | number;
  name: string;
  sic: string;
  sicDescription: string;
  fiscalYearEnd: string;
  stateOfIncorporation: string;
  tickers: string[];
  exchanges: string[];
  addresses: { business: { stateOrCountry: string; stateOrCountryDescription: string } };
  filings: { recent: FilingColumns; files: { name: string }[] };
}

export interface RawFiling {
  accessionNumber: string;
  filingDate: string;
  reportDate: string;
  form: string;
  primaryDocument: string;
  items: string;
}

/** Row view of columnar filings. */
export function filingRows(cols: FilingColumns): RawFiling[] {
  return cols.accessionNumber.map((accessionNumber, i) => ({
    accessionNumber,
    filingDate: cols.filingDate[i] as string,
    reportDate: cols.reportDate[i] ?? "",
    form: cols.form[i] as string,
    primaryDocument: cols.primaryDocument[i] ?? "",
    items: cols.items?.[i] ?? "",
  }));
}

/** Newest first by filing date; the order within a day is the file's own. */
export function newestFirst(rows: RawFiling[]): RawFiling[] {
  return [...rows].sort((a, b) => b.filingDate.localeCompare(a.filingDate));
}

/** sec.gov document URL, built independently of the service. */
export function secUrl(cik: string | number, accession: string, document: string): string {
  return `https://www.sec.gov/Archives/edgar/data/${Number(cik)}/${accession.replace(/-/g, "")}/${document}`;
}

const cikCache = new Map<string, string>();

/**
 * A ticker's CIK (10 digits) from edgar/company_tickers_exchange.json, else from
 * edgar/company_tickers.json (some listed tickers are only in the latter).
 */
export function cikOf(root: string, ticker: string): string {
  const cached = cikCache.get(`${root}|${ticker}`);
  if (cached) return cached;
  const cik = lookUpCik(root, ticker);
  cikCache.set(`${root}|${ticker}`, cik);
  return cik;
}

function lookUpCik(root: string, ticker: string): string {
  const list = readJson<{ fields: string[]; data: unknown[][] }>(
    join(root, "edgar", "company_tickers_exchange.json"),
  );
  const row = list.data.find((r) => r[list.fields.indexOf("ticker")] === ticker);
  if (row) return String(row[list.fields.indexOf("cik")]).padStart(10, "0");
  const plain = readJson<Record<string, { cik_str: number; ticker: string }>>(
    join(root, "edgar", "company_tickers.json"),
  );
  const entry = Object.values(plain).find((e) => e.ticker === ticker);
  if (!entry) throw new Error(`${ticker} is in neither SEC ticker list`);
  return String(entry.cik_str).padStart(10, "0");
}

// SEC and Yahoo-layout side files: splits, dividends, the Nasdaq earnings calendar.

export interface Split {
  date: string;
  ratio: number;
}

/** Split events of the "Stock Splits" column of variants/prices-adjusted-with-actions/<T>.csv. */
export function splitsFromActions(root: string, ticker: string): Split[] {
  const lines = readFileSync(join(root, "variants", "prices-adjusted-with-actions", `${ticker}.csv`), "utf8")
    .split(/\r?\n/)
    .filter(Boolean);
  const header = (lines.shift() ?? "").split(",");
  const at = header.indexOf("Stock Splits");
  if (at < 0) throw new Error(`${ticker}: no Stock Splits column`);
  return lines
    .map((l) => l.split(","))
    .filter((c) => Number(c[at]) > 0)
    .map((c) => ({ date: (c[0] ?? "").slice(0, 10), ratio: Number(c[at]) }));
}

/** dividends/<T>.csv rows `date,amount` (ex-date, split-adjusted amount per share). */
export function readDividendCsv(path: string): { date: string; amount: number }[] {
  const lines = readFileSync(path, "utf8").split(/\r?\n/).filter(Boolean);
  const header = (lines.shift() ?? "").toLowerCase().split(",");
  const [d, a] = [header.indexOf("date"), header.indexOf("amount")];
  return lines.map((l) => {
    const c = l.split(",");
    return { date: c[d] as string, amount: Number(c[a]) };
  });
}

/** One row of a Nasdaq earnings-calendar response, with the day it is for. */
export interface NasdaqRow {
  day: string;
  symbol: string;
  time: string;
  epsForecast: string;
  noOfEsts: string;
  fiscalQuarterEnding: string;
}

/** Every row of calendar/*.json (Nasdaq API responses), dated by the response's asOf. */
export function readNasdaqCalendar(root: string): NasdaqRow[] {
  const dir = join(root, "calendar");
  const out: NasdaqRow[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".json"))) {
    const body = readJson<{ data: { asOf: string; rows: Omit<NasdaqRow, "day">[] | null } }>(join(dir, name));
    const day = nasdaqDay(body.data.asOf);
    for (const r of body.data.rows ?? []) out.push({ ...r, day });
  }
  return out;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** Nasdaq's asOf "Mon, Jul 1, 2024" → "2024-07-01". */
function nasdaqDay(asOf: string): string {
  const m = /^\w+, (\w{3}) (\d{1,2}), (\d{4})$/.exec(asOf.trim());
  if (!m) throw new Error(`unexpected asOf ${asOf}`);
  const month = MONTHS.indexOf(m[1] as string) + 1;
  return `${m[3]}-${String(month).padStart(2, "0")}-${(m[2] as string).padStart(2, "0")}`;
}

/** Nasdaq money text: "$1.23" → 1.23, "($0.11)" → -0.11, "" or "N/A" → null. */
export function nasdaqMoney(text: string): number | null {
  const t = text.trim();
  if (t === "" || t === "N/A" || t === "--") return null;
  const negative = t.startsWith("(") && t.endsWith(")");
  const n = Number(t.replace(/[()$,]/g, ""));
  return negative ? -n : n;
}
