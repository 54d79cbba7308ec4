/**
 * Readers of the raw real-data files for the derived-endpoint tests (derived-*.test.ts):
 * SEC companyfacts (edgar/companyfacts/CIK*.json), Yahoo-layout prices, the split column of
 * variants/prices-adjusted-with-actions, dividends/<T>.csv and the Nasdaq calendar files.
 * Expected values are computed here from those files with the rules of docs/methodology.md,
 * never by calling the code under test (calendar arithmetic, pinned by test/domain/dates.test.ts,
 * is shared).
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { addDays, addYears, daysBetween } from "../../src/domain/dates.ts";
import { type CsvPrice, readJson, readPriceCsv } from "./endpoint-helpers.ts";

/** One fact as the SEC lists it. */
export interface Fact {
  start?: string;
  end: string;
  val: number;
  accn: string;
  fy?: number | null;
  fp?: string | null;
  form: string;
  filed: string;
}

interface CompanyFactsFile {
  facts: Record<string, Record<string, { units: Record<string, Fact[]> }>>;
}

/** Inclusive length of a duration fact in days. */
const lengthOf = (f: Fact) => (f.start === undefined ? 0 : daysBetween(f.start, f.end) + 1);
const isAnnual = (f: Fact) => lengthOf(f) >= 350 && lengthOf(f) <= 380;

/** The fact filed last among several versions of one period (a restatement wins). */
function latestFiled(facts: readonly Fact[]): Fact | null {
  let best: Fact | null = null;
  for (const f of facts) if (best === null || f.filed > best.filed) best = f;
  return best;
}

/** A TTM (or annual) sum rebuilt from raw facts, with the facts it came from. */
export interface RawTtm {
  value: number;
  how: "annual" | "quarters";
  concept: string;
  /** The facts summed (latest-filed versions). */
  parts: Fact[];
  /**
   * When it could first be computed: at a fiscal-year end, the first filing of the annual
   * fact; else the latest publication date of its four quarters.
   */
  known: string;
}

/** First filing date of each period (start|end) among the facts of one concept. */
function firstFilings(facts: readonly Fact[]): (fact: Fact) => string {
  const first = new Map<string, string>();
  for (const f of facts) {
    const k = `${f.start}|${f.end}`;
    const seen = first.get(k);
    if (seen === undefined || f.filed < seen) first.set(k, f.filed);
  }
  return (fact) => first.get(`${fact.start}|${fact.end}`) as string;
}

/**
 * One fiscal quarter: its three-month fact (latest filed) where reported, else year-to-date
 * at `end` − year-to-date at `prev` (Q1: the year to date itself). It is known from the
 * earlier of the three-month fact's first filing and the date both year-to-date facts had
 * been filed (a fourth quarter is known with the annual report, before any three-month
 * fact for it appears as a comparative).
 */
function quarterValue(
  facts: readonly Fact[],
  yearStart: string,
  prev: string | null,
  end: string,
  published: (fact: Fact) => string,
): { value: number; known: string; parts: Fact[] } | null {
  const start = prev === null ? yearStart : addDays(prev, 1);
  const quarter = latestFiled(facts.filter((f) => f.start === start && f.end === end));
  const ytd = latestFiled(facts.filter((f) => f.start === yearStart && f.end === end));
  const before =
    prev === null ? null : latestFiled(facts.filter((f) => f.start === yearStart && f.end === prev));
  const derivable = ytd !== null && (prev === null || before !== null);
  const derivedKnown = derivable
    ? [ytd, before]
        .filter((f) => f !== null)
        .map(published)
        .sort()
        .at(-1)
    : undefined;
  if (quarter) {
    const own = published(quarter);
    const known = derivedKnown !== undefined && derivedKnown < own ? derivedKnown : own;
    return { value: quarter.val, known, parts: [quarter] };
  }
  if (!derivable || derivedKnown === undefined) return null;
  return {
    value: ytd.val - (before?.val ?? 0),
    known: derivedKnown,
    parts: before ? [ytd, before] : [ytd],
  };
}

/** One company's companyfacts file. */
export class RawFacts {
  private readonly file: CompanyFactsFile;

  constructor(path: string) {
    this.file = readJson<CompanyFactsFile>(path);
  }

  /** Every fact of `concept` in `unit` (us-gaap unless the concept is written `dei:Name`). */
  all(concept: string, unit = "USD"): Fact[] {
    const [taxonomy, name] = concept.includes(":") ? concept.split(":") : ["us-gaap", concept];
    return this.file.facts[taxonomy as string]?.[name as string]?.units[unit] ?? [];
  }

  /** The latest-filed value of an instant fact dated `end`, or null. */
  instant(concept: string, end: string, unit = "USD"): number | null {
    return (
      latestFiled(this.all(concept, unit).filter((f) => f.start === undefined && f.end === end))?.val ?? null
    );
  }

  /** The first concept of a priority list that has an instant fact at `end` (the mapping rule). */
  firstInstant(concepts: readonly string[], end: string, unit = "USD"): number | null {
    for (const c of concepts) {
      const v = this.instant(c, end, unit);
      if (v !== null) return v;
    }
    return null;
  }

  /**
   * The full-year fact ending nearest `end` within `tolerance` days (52/53-week years end on
   * different days), latest filed; null when none.
   */
  annual(concept: string, end: string, tolerance = 3, unit = "USD"): Fact | null {
    const near = this.all(concept, unit).filter(
      (f) => isAnnual(f) && Math.abs(daysBetween(f.end, end)) <= tolerance,
    );
    const best = Math.min(...near.map((f) => Math.abs(daysBetween(f.end, end))));
    return latestFiled(near.filter((f) => Math.abs(daysBetween(f.end, end)) === best));
  }

  /** End date of the latest full-year fact of `concept`. */
  latestAnnualEnd(concept: string, unit = "USD"): string | null {
    return (
      this.all(concept, unit)
        .filter(isAnnual)
        .map((f) => f.end)
        .sort()
        .at(-1) ?? null
    );
  }

  /** End date of the latest duration fact of `concept` (the latest reported period). */
  latestPeriodEnd(concept: string, unit = "USD"): string | null {
    return (
      this.all(concept, unit)
        .filter((f) => f.start !== undefined)
        .map((f) => f.end)
        .sort()
        .at(-1) ?? null
    );
  }

  /**
   * Trailing twelve months ending on `end`, from raw facts: the full-year fact when one ends
   * on `end` (a fiscal year end), else the sum of the last four fiscal
   * quarters, each quarter being its three-month fact where the filer reported one, else the
   * difference of consecutive year-to-date facts (the fourth quarter: the full year less the
   * nine months; cash flows are only reported year to date). The fiscal year containing
   * `end` starts where the longest fact ending on `end` starts; the previous one is the
   * full-year fact ending the day before. The first concept of the list with a fact ending
   * on `end` is used. Null when a part is missing.
   */
  ttm(concepts: readonly string[], end: string, unit = "USD"): RawTtm | null {
    for (const concept of concepts) {
      const facts = this.all(concept, unit).filter((f) => f.start !== undefined);
      const ending = facts.filter((f) => f.end === end);
      if (ending.length === 0) continue;
      const published = firstFilings(facts);
      const longest = Math.max(...ending.map(lengthOf));
      const yearStart = ending.find((f) => lengthOf(f) === longest)?.start as string;
      const year = latestFiled(ending.filter(isAnnual));
      const current = this.quarterEnds(facts, yearStart).filter((e) => e <= end);
      const quarters = current.map((e, i) => ({ start: yearStart, prev: current[i - 1] ?? null, end: e }));
      if (quarters.length < 4 && !year) {
        const previous = this.annual(concept, addDays(yearStart, -1), 3, unit);
        const before = previous?.start ? this.quarterEnds(facts, previous.start) : [];
        if (before.length !== 4) return null;
        const needed = before
          .map((e, i) => ({ start: previous?.start as string, prev: before[i - 1] ?? null, end: e }))
          .slice(quarters.length);
        quarters.unshift(...needed);
      }
      const parts: Fact[] = [];
      let value = 0;
      let known = "";
      for (const q of quarters.length === 4 ? quarters : []) {
        const v = quarterValue(facts, q.start, q.prev, q.end, published);
        if (v === null) break;
        value += v.value;
        parts.push(...v.parts);
        if (v.known > known) known = v.known;
      }
      const complete =
        parts.length > 0 &&
        quarters.length === 4 &&
        quarters.every((q) => parts.some((f) => f.end === q.end));
      // A fiscal year end is known with its annual report, whether or not its quarters are.
      if (year) {
        const yearKnown = published(year);
        return complete
          ? { value, how: "quarters", concept, parts, known: yearKnown }
          : { value: year.val, how: "annual", concept, parts: [year], known: yearKnown };
      }
      return complete ? { value, how: "quarters", concept, parts, known } : null;
    }
    return null;
  }

  /** Ends of the quarter, half-year, nine-month and full-year facts starting on `yearStart`. */
  private quarterEnds(facts: readonly Fact[], yearStart: string): string[] {
    const ranges = [
      [80, 100],
      [170, 190],
      [260, 285],
      [350, 380],
    ];
    const ends = new Set(
      facts
        .filter(
          (f) =>
            f.start === yearStart &&
            ranges.some(([lo, hi]) => lengthOf(f) >= (lo as number) && lengthOf(f) <= (hi as number)),
        )
        .map((f) => f.end),
    );
    return [...ends].sort();
  }

  /** The date `end` was first published: the earliest filing with a `concept` fact ending then. */
  firstFiled(concept: string, end: string, unit = "USD"): string | null {
    const dates = this.all(concept, unit)
      .filter((f) => f.end === end)
      .map((f) => f.filed)
      .sort();
    return dates[0] ?? null;
  }

  /** dei:EntityCommonStockSharesOutstanding facts (single-class filers). */
  sharesOutstanding(): Fact[] {
    return this.all("dei:EntityCommonStockSharesOutstanding", "shares");
  }

  /**
   * The cover-page share count known on `date`: among the facts filed on or before it, the
   * one with the latest as-of date (the latest filing of that date). Null before the first.
   */
  sharesKnownAt(date: string): Fact | null {
    const known = this.sharesOutstanding().filter((f) => f.filed <= date);
    const lastEnd = known
      .map((f) => f.end)
      .sort()
      .at(-1);
    return lastEnd === undefined ? null : latestFiled(known.filter((f) => f.end === lastEnd));
  }
}

// ---------------------------------------------------------------------------------------
// Statement values by the concept lists of src/domain/xbrl-mapping.ts as documented in
// docs/methodology.md ("Common line items"), written out here so that the test does not
// read the mapping it checks.

export const REVENUE = [
  "RevenueFromContractWithCustomerExcludingAssessedTax",
  "Revenues",
  "SalesRevenueNet",
  "RevenueFromContractWithCustomerIncludingAssessedTax",
  "SalesRevenueGoodsNet",
];
export const GROSS_PROFIT = ["GrossProfit"];
export const COST_OF_REVENUE = ["CostOfRevenue", "CostOfGoodsAndServicesSold", "CostOfGoodsSold"];
export const OPERATING_INCOME = ["OperatingIncomeLoss"];
export const NET_INCOME = ["NetIncomeLoss", "ProfitLoss"];
export const CFO = [
  "NetCashProvidedByUsedInOperatingActivities",
  "NetCashProvidedByUsedInOperatingActivitiesContinuingOperations",
];
/** Reported as a positive payment; the cash-flow statement stores it negated. */
export const CAPEX = ["PaymentsToAcquirePropertyPlantAndEquipment", "PaymentsToAcquireProductiveAssets"];
export const EQUITY = ["StockholdersEquity"];

/**
 * Total debt at a balance-sheet date (methodology "total debt"): (short-term debt and lease
 * obligation, else short-term debt) + (long-term debt and lease obligation, else long-term
 * debt), each filled from its concepts or, when not reported, summed from its parts; long-term
 * debt falls back to LongTermDebt less its current maturities.
 */
export function totalDebt(raw: RawFacts, end: string): number {
  const at = (concepts: string[]) => raw.firstInstant(concepts, end);
  const sumPresent = (...xs: (number | null)[]) =>
    xs.every((x) => x === null) ? null : xs.reduce<number>((s, x) => s + (x ?? 0), 0);
  const shortDebt =
    at(["DebtCurrent"]) ??
    sumPresent(
      at(["ShortTermBorrowings", "CommercialPaper"]),
      at(["LongTermDebtCurrent", "ConvertibleDebtCurrent"]),
    );
  const shortLease = at(["FinanceLeaseLiabilityCurrent", "CapitalLeaseObligationsCurrent"]);
  const short = at(["LongTermDebtAndCapitalLeaseObligationsCurrent"]) ?? sumPresent(shortDebt, shortLease);
  const reportedWithLeases = at(["LongTermDebtAndCapitalLeaseObligations"]);
  // LongTermDebt includes current maturities; taken only when it fits under the reported
  // long-term debt including leases.
  const total = at(["LongTermDebt"]);
  const fromTotal =
    total === null ? null : total - (at(["LongTermDebtCurrent", "ConvertibleDebtCurrent"]) ?? 0);
  const longDebt =
    at(["LongTermDebtNoncurrent", "LongTermNotesPayable", "ConvertibleDebtNoncurrent"]) ??
    (fromTotal !== null && (reportedWithLeases === null || fromTotal <= reportedWithLeases)
      ? fromTotal
      : null);
  const longLease = at(["FinanceLeaseLiabilityNoncurrent", "CapitalLeaseObligationsNoncurrent"]);
  const long = reportedWithLeases ?? sumPresent(longDebt, longLease);
  return (short ?? 0) + (long ?? 0);
}

/** The date of the balance sheet about one year before `end` (within 20 days, nearest first). */
export function balanceDateYearBefore(raw: RawFacts, concept: string, end: string): string | null {
  const target = addYears(end, -1);
  for (let off = 0; off <= 20; off++) {
    for (const d of off === 0 ? [target] : [addDays(target, -off), addDays(target, off)]) {
      if (raw.instant(concept, d) !== null) return d;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------
// Prices, splits, dividends, calendar.

/** Month-end rows: the last trading day of each month in the file. */
export function monthEnds(rows: readonly CsvPrice[]): CsvPrice[] {
  return rows.filter((r, i) => rows[i + 1]?.date.slice(0, 7) !== r.date.slice(0, 7));
}

/**
 * The dividend yield range's inputs (docs/methodology.md): at each month end of the five
 * years up to `last` whose trailing year starts on or after the first ex-date, the amounts
 * with ex-dates in its trailing 365 days over its close. `rows` ascending by date.
 */
export function trailingYields(
  prices: readonly CsvPrice[],
  rows: readonly { date: string; amount: number }[],
  last: string,
): number[] {
  const first = rows[0]?.date ?? last;
  return monthEnds(prices)
    .filter((p) => p.date > addYears(last, -5) && addDays(p.date, -365) >= first)
    .map((p) => {
      const start = addDays(p.date, -365);
      const sum = rows.filter((r) => r.date > start && r.date <= p.date).reduce((s, r) => s + r.amount, 0);
      return sum / p.close;
    });
}

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

/** Product of the ratios of the splits after `date` (and, when given, on or before `until`). */
export function splitFactorAfter(splits: readonly Split[], date: string, until?: string): number {
  return splits
    .filter((s) => s.date > date && (until === undefined || s.date <= until))
    .reduce((f, s) => f * s.ratio, 1);
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

export { readPriceCsv };

/**
 * A ticker's CIK (10 digits) from edgar/company_tickers_exchange.json, else from
 * edgar/company_tickers.json (some listed tickers are only in the latter).
 */
const cikCache = new Map<string, string>();
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

/** The companyfacts file of a ticker. */
export function factsOf(root: string, ticker: string): RawFacts {
  return new RawFacts(join(root, "edgar", "companyfacts", `CIK${cikOf(root, ticker)}.json`));
}

/** Relative difference |a − b| / max(|b|, tiny). */
export function relDiff(actual: number, expected: number): number {
  return Math.abs(actual - expected) / Math.max(Math.abs(expected), 1e-300);
}
