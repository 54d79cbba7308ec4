/**
 * The facts of one concept in one unit, reduced to one value per period and indexed for
 * period lookups, plus the quarter arithmetic on them.
 *
 * Restatements: when several filings report the same period (same start and end), the value
 * of the latest periodic report wins over any other statement form's (an 8-K's recast, a
 * foreign issuer's 6-K), and for a fiscal year or a balance, an annual report's over a
 * quarterly one's; ties go to the higher accession number. Audited annual figures are what an
 * analyst reads for a fiscal year, and a recast for discontinued operations covers three years
 * only, so taking it would change the basis of a series in its middle. A quarter restated in
 * a later 10-Q (a standard adopted retrospectively) keeps the restated value: the annual
 * report's table of quarters, filed before it, does not win. `firstFiled` keeps the earliest filing date of that period,
 * `lastFiled` the date of the value used. The period keeps its own dates, hence its fiscal label.
 */
import { tidy } from "../../domain/ratios.ts";
import type { XbrlFact } from "../sources/companyfacts.ts";
import type { QuarterSlot } from "./fiscal-calendar.ts";
import type { FiscalYear } from "./fiscal-quarters.ts";
import {
  dayOf,
  isAnnualForm,
  isCurrentReport,
  isStatementForm,
  type QuarterCount,
  quartersSpanned,
} from "./xbrl-scan.ts";

/** A value with the filings it rests on. */
export interface Sourced {
  value: number;
  /** The filing that first reported the period (for a value of several parts: the last part to be first reported). */
  firstFiled: string;
  firstAccession: string;
  /** The latest filing whose value is used. */
  lastFiled: string;
  lastAccession: string;
  /** True for a quarter computed from year-to-date values rather than reported. */
  derived?: boolean;
  /** The concept, when a fallback measure of the field's list gave the value (xbrl-mapping.ts, `~`). */
  fallback?: string;
}

interface Observation extends Sourced {
  start: number | null;
  end: number;
  /** Rank of the form the value comes from (formRank). */
  rank: number;
}

/** Periodic reports before other statement forms; for a fiscal year or a balance, annual reports first. */
function formRank(fact: XbrlFact): number {
  if (isCurrentReport(fact.form)) return 0;
  const yearOrBalance = fact.start === null || quartersSpanned(dayOf(fact.start), dayOf(fact.end)) === 4;
  return yearOrBalance && isAnnualForm(fact.form) ? 2 : 1;
}

/** Days a reported start may differ from the expected one (52/53-week calendars drift). */
const START_TOLERANCE_DAYS = 10;

/** The later of two ISO dates. */
export const later = (a: string, b: string): string => (a > b ? a : b);

/** The later-filed of two values' first and last filings: a value of both is known once both are. */
export function filedAfterBoth(a: Sourced, b: Sourced): Omit<Sourced, "value"> {
  const first = a.firstFiled >= b.firstFiled ? a : b;
  const last = a.lastFiled >= b.lastFiled ? a : b;
  return {
    firstFiled: first.firstFiled,
    firstAccession: first.firstAccession,
    lastFiled: last.lastFiled,
    lastAccession: last.lastAccession,
  };
}

/** a + b (or a − b) carrying the later of the filings: known once both parts are known. */
export function combine(a: Sourced, b: Sourced, sign: 1 | -1): Sourced {
  return { value: tidy(a.value + sign * b.value), ...filedAfterBoth(a, b) };
}

/** One concept's values per period. Built once per company and concept. */
export class ConceptSeries {
  /** Durations by end day × 8 + quarter count. */
  private readonly durations = new Map<number, Observation[]>();
  private readonly instants = new Map<number, Observation>();

  /** Reduces facts (from statement forms only) to one observation per period. */
  constructor(facts: readonly XbrlFact[]) {
    const byPeriod = new Map<string, Observation>();
    for (const fact of facts) {
      if (!isStatementForm(fact.form)) continue;
      const key = `${fact.start ?? ""}|${fact.end}`;
      const seen = byPeriod.get(key);
      if (seen === undefined) {
        byPeriod.set(key, observationOf(fact));
        continue;
      }
      if (
        fact.filed < seen.firstFiled ||
        (fact.filed === seen.firstFiled && fact.accn < seen.firstAccession)
      ) {
        seen.firstFiled = fact.filed;
        seen.firstAccession = fact.accn;
      }
      const rank = formRank(fact);
      if (
        rank > seen.rank ||
        (rank === seen.rank &&
          (fact.filed > seen.lastFiled || (fact.filed === seen.lastFiled && fact.accn > seen.lastAccession)))
      ) {
        seen.value = fact.val;
        seen.lastFiled = fact.filed;
        seen.lastAccession = fact.accn;
        seen.rank = rank;
      }
    }
    for (const obs of byPeriod.values()) this.index(obs);
  }

  private index(obs: Observation): void {
    if (obs.start === null) {
      this.instants.set(obs.end, obs);
      return;
    }
    const quarters = quartersSpanned(obs.start, obs.end);
    if (quarters === null) return;
    const key = obs.end * 8 + quarters;
    const list = this.durations.get(key);
    if (list === undefined) this.durations.set(key, [obs]);
    else list.push(obs);
  }

  /** The balance at the end of `day`. */
  instantAt(day: number): Sourced | null {
    return this.instants.get(day) ?? null;
  }

  /**
   * The value of the duration of `quarters` quarters ending on `end` whose start is closest to
   * `start` (within a tolerance); null when there is none.
   */
  duration(
    end: number,
    quarters: QuarterCount,
    start: number,
    tolerance = START_TOLERANCE_DAYS,
  ): Sourced | null {
    let best: Observation | null = null;
    for (const obs of this.durations.get(end * 8 + quarters) ?? []) {
      const gap = Math.abs((obs.start ?? end) - start);
      if (gap <= tolerance && (best === null || gap < Math.abs((best.start ?? end) - start))) best = obs;
    }
    return best;
  }
}

function observationOf(fact: XbrlFact): Observation {
  return {
    start: fact.start === null ? null : dayOf(fact.start),
    end: dayOf(fact.end),
    value: fact.val,
    firstFiled: fact.filed,
    firstAccession: fact.accn,
    lastFiled: fact.filed,
    lastAccession: fact.accn,
    rank: formRank(fact),
  };
}

/** The full-year value of a fiscal year. */
export function annualValue(series: ConceptSeries, year: FiscalYear): Sourced | null {
  return series.duration(year.end, 4, year.start);
}

/**
 * Values of the four quarters of `year` (index 0..3; null where not computable). A quarter
 * is its reported three-month value, else — for additive values — the difference of two
 * year-to-date values: Q2 = 6M − Q1-YTD, Q3 = 9M − 6M, Q4 = FY − 9M, where a year-to-date
 * value not reported is the sum of the quarters before it (so Q4 = FY − Q1 − Q2 − Q3 when no
 * 9M figure exists). Per-share amounts and share counts are not additive: reported only.
 */
export function quarterValues(
  series: ConceptSeries,
  year: FiscalYear,
  slots: ReadonlyArray<QuarterSlot | undefined>,
  additive: boolean,
): Array<Sourced | null> {
  const out: Array<Sourced | null> = [null, null, null, null];
  const zero: Sourced = { value: 0, firstFiled: "", firstAccession: "", lastFiled: "", lastAccession: "" };
  let toDate: Sourced | null = zero;
  const ytdTolerance = year.startExact ? START_TOLERANCE_DAYS : 21;
  for (let i = 0; i < 4; i++) {
    const slot = slots[i];
    if (slot === undefined) {
      toDate = null;
      continue;
    }
    const expectedStart = slot.start ?? slot.end - 90;
    const discrete = series.duration(
      slot.end,
      1,
      expectedStart,
      slot.start === null ? 30 : START_TOLERANCE_DAYS,
    );
    const reportedToDate =
      i === 0 ? discrete : series.duration(slot.end, (i + 1) as QuarterCount, year.start, ytdTolerance);
    const derived: Sourced | null =
      additive && toDate !== null && reportedToDate !== null
        ? { ...combine(reportedToDate, toDate, -1), derived: true }
        : null;
    const quarter: Sourced | null = discrete ?? derived;
    out[i] = quarter;
    toDate = reportedToDate ?? (toDate !== null && quarter !== null ? combine(toDate, quarter, 1) : null);
  }
  return out;
}
