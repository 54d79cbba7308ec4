/**
 * Expected values of the derived endpoints (derived-*.test.ts), computed from the raw files
 * (read by test/helpers/raw-companyfacts.ts and raw-sources.ts) with the rules of
 * docs/methodology.md, never by calling the code under test (calendar arithmetic, pinned by
 * test/domain/dates.test.ts, is shared): TTM sums, total debt, balance dates, trailing
 * yields, split factors.
 */

import { addDays, addYears, daysBetween } from "../../src/domain/dates.ts";
import {
  factsOf as conceptFacts,
  latestFiled,
  readCompanyFacts,
  type SecCompanyFacts,
  type SecFact,
} from "../helpers/raw-companyfacts.ts";
import { type CsvPrice, cikOf, type Split } from "../helpers/raw-sources.ts";

/** Inclusive length of a duration fact in days. */
const lengthOf = (f: SecFact) => (f.start === undefined ? 0 : daysBetween(f.start, f.end) + 1);
const isAnnual = (f: SecFact) => lengthOf(f) >= 350 && lengthOf(f) <= 380;

/** A TTM (or annual) sum rebuilt from raw facts, with the facts it came from. */
export interface RawTtm {
  value: number;
  how: "annual" | "quarters";
  concept: string;
  /** The facts summed (latest-filed versions). */
  parts: SecFact[];
  /**
   * When it could first be computed: at a fiscal-year end, the first filing of the annual
   * fact; else the latest publication date of its four quarters.
   */
  known: string;
}

/** First filing date of each period (start|end) among the facts of one concept. */
function firstFilings(facts: readonly SecFact[]): (fact: SecFact) => string {
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
  facts: readonly SecFact[],
  yearStart: string,
  prev: string | null,
  end: string,
  published: (fact: SecFact) => string,
): { value: number; known: string; parts: SecFact[] } | null {
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

/** One company's companyfacts file, with the figures the derived endpoints are built from. */
export class RawFacts {
  constructor(private readonly file: SecCompanyFacts) {}

  /** Every fact of `concept` in `unit` (us-gaap unless the concept is written `dei:Name`). */
  all(concept: string, unit = "USD"): SecFact[] {
    return conceptFacts(this.file, concept, unit);
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
  annual(concept: string, end: string, tolerance = 3, unit = "USD"): SecFact | null {
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
      const parts: SecFact[] = [];
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
  private quarterEnds(facts: readonly SecFact[], yearStart: string): string[] {
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
  sharesOutstanding(): SecFact[] {
    return this.all("dei:EntityCommonStockSharesOutstanding", "shares");
  }

  /**
   * The cover-page share count known on `date`: among the facts filed on or before it, the
   * one with the latest as-of date (the latest filing of that date). Null before the first.
   */
  sharesKnownAt(date: string): SecFact | null {
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

/** Product of the ratios of the splits after `date` (and, when given, on or before `until`). */
export function splitFactorAfter(splits: readonly Split[], date: string, until?: string): number {
  return splits
    .filter((s) => s.date > date && (until === undefined || s.date <= until))
    .reduce((f, s) => f * s.ratio, 1);
}

/** The companyfacts file of a ticker. */
export function rawFactsOf(root: string, ticker: string): RawFacts {
  return new RawFacts(readCompanyFacts(root, cikOf(root, ticker)));
}

/** Relative difference |a − b| / max(|b|, tiny). */
export function relDiff(actual: number, expected: number): number {
  return Math.abs(actual - expected) / Math.max(Math.abs(expected), 1e-300);
}
