/**
 * Quarter structure of the fiscal calendar (see fiscal-calendar.ts): locating the fiscal year
 * a date falls into (extrapolating years beyond the known ones), and voting each year's
 * quarter ends from the quarter-length and year-to-date durations the company reported.
 */

import { fromDayNumber, toDayNumber } from "../../domain/dates.ts";
import type { DurationCount, FactScan } from "./xbrl-scan.ts";

export const DAYS_PER_YEAR = 365.2425;
const DAYS_PER_QUARTER = DAYS_PER_YEAR / 4;

/** One fiscal year. Day numbers are days since 1970-01-01. */
export interface FiscalYear {
  label: number;
  start: number;
  end: number;
  /** True when established by a full-year period; false when extrapolated from a neighbour. */
  known: boolean;
  /** Whether `start` is exact (known years, and the year right after a known one). */
  startExact: boolean;
  /** End day of Q1..Q4 (index 0..3), null where the company reported no such quarter. */
  quarterEnds: Array<number | null>;
  /** Start day of Q1..Q4, null where unknown. */
  quarterStarts: Array<number | null>;
}
/** Slack for 52/53-week drift when placing a date in an extrapolated year. */
const DRIFT_DAYS = 7;

/**
 * Label of a fiscal year by the calendar year it ends in; a year ending in the first week of
 * January (a 52/53-week year that spills over) belongs to the year before.
 */
export function labelFromCalendarYear(endDay: number): number {
  const date = fromDayNumber(endDay);
  const year = Number(date.slice(0, 4));
  return date.slice(5, 7) === "01" && Number(date.slice(8, 10)) <= DRIFT_DAYS ? year - 1 : year;
}

function emptyYear(label: number, start: number, end: number, startExact: boolean): FiscalYear {
  return {
    label,
    start,
    end,
    known: false,
    startExact,
    quarterEnds: [null, null, null, null],
    quarterStarts: [null, null, null, null],
  };
}

/**
 * A nominal fiscal year for a company without any full-year period: the year of its latest
 * quarterly report (labelled with that report's fy), else the calendar year of its latest
 * quarter. Null when the company reported no quarter either.
 */
export function nominalYearFromQuarter(scan: FactScan): FiscalYear | null {
  let latest: { end: number; fy: number; quarter: number } | null = null;
  for (const a of scan.accessions.values()) {
    const quarter = a.fp === "Q1" ? 1 : a.fp === "Q2" ? 2 : a.fp === "Q3" ? 3 : 0;
    if (quarter === 0 || a.fy === null || a.reportEnd === null) continue;
    if (latest === null || a.reportEnd > latest.end) latest = { end: a.reportEnd, fy: a.fy, quarter };
  }
  if (latest !== null) {
    const end = latest.end + Math.round((4 - latest.quarter) * DAYS_PER_QUARTER);
    return emptyYear(latest.fy, end - 363, end, false);
  }
  let lastEnd: number | null = null;
  for (const c of scan.partial.values()) lastEnd = Math.max(lastEnd ?? c.end, c.end);
  if (lastEnd === null) return null;
  const year = fromDayNumber(lastEnd).slice(0, 4);
  return emptyYear(Number(year), toDayNumber(`${year}-01-01`), toDayNumber(`${year}-12-31`), true);
}

/** Finds the fiscal year of a day among known years, creating extrapolated years as needed. */
class YearLocator {
  private readonly created = new Map<number, FiscalYear>();

  /** `known` is non-empty and sorted by end. */
  constructor(private readonly known: readonly FiscalYear[]) {}

  yearOf(day: number): FiscalYear | null {
    const i = this.known.findIndex((y) => y.end >= day);
    const next = i === -1 ? undefined : this.known[i];
    if (next !== undefined && next.start <= day) return next;
    const prev = i === -1 ? this.known[this.known.length - 1] : this.known[i - 1];
    if (prev !== undefined) return this.after(prev, next, day);
    return next === undefined ? null : this.before(next, day);
  }

  extrapolated(): FiscalYear[] {
    return [...this.created.values()];
  }

  private after(base: FiscalYear, next: FiscalYear | undefined, day: number): FiscalYear | null {
    const k = Math.max(1, Math.ceil((day - base.end - DRIFT_DAYS) / DAYS_PER_YEAR));
    const label = base.label + k;
    if (next !== undefined && label >= next.label) return null;
    // A single missing year between two known ones has exact bounds.
    const end =
      next !== undefined && label === next.label - 1
        ? next.start - 1
        : base.end + Math.round(k * DAYS_PER_YEAR);
    return this.make(label, base.end + 1 + Math.round((k - 1) * DAYS_PER_YEAR), end, k === 1);
  }

  private before(base: FiscalYear, day: number): FiscalYear {
    const k = 1 + Math.floor((base.start - 1 - day + DRIFT_DAYS) / DAYS_PER_YEAR);
    const end = base.start - 1 - Math.round((k - 1) * DAYS_PER_YEAR);
    return this.make(base.label - k, end - 363, end, false);
  }

  private make(label: number, start: number, end: number, startExact: boolean): FiscalYear {
    let year = this.created.get(label);
    if (year === undefined) {
      year = emptyYear(label, start, end, startExact);
      this.created.set(label, year);
    }
    return year;
  }
}

interface QuarterVotes {
  /** Per quarter position 1..4 (index 0..3): fact counts by end day, and by start day. */
  ends: Array<Map<number, number>>;
  starts: Array<Map<number, number>>;
  /** Starts of year-to-date durations: the year's first day. */
  yearStarts: Map<number, number>;
}

/**
 * Sets `quarterEnds`/`quarterStarts` on the years of `base` (mutated) and returns the
 * extrapolated years that the company's quarters fell into.
 */
export function voteQuarters(scan: FactScan, base: readonly FiscalYear[]): FiscalYear[] {
  const locator = new YearLocator(base);
  const votes = new Map<FiscalYear, QuarterVotes>();
  for (const c of scan.partial.values()) {
    const year = locator.yearOf(c.end);
    if (year === null) continue;
    const position = positionIn(year, c);
    if (position === null) continue;
    let v = votes.get(year);
    if (v === undefined) {
      v = {
        ends: [0, 1, 2, 3].map(() => new Map()),
        starts: [0, 1, 2, 3].map(() => new Map()),
        yearStarts: new Map(),
      };
      votes.set(year, v);
    }
    add(v.ends[position - 1], c.end, c.count);
    add(c.quarters === 1 ? v.starts[position - 1] : v.yearStarts, c.start, c.count);
  }
  for (const [year, v] of votes) settleQuarters(year, v);
  return locator.extrapolated();
}

/** Quarter number (1..4) a duration ends at within `year`, or null when it does not fit. */
function positionIn(year: FiscalYear, c: DurationCount): number | null {
  let position: number;
  if (c.quarters === 1) {
    position = Math.round((c.end - year.start + 1) / DAYS_PER_QUARTER);
  } else {
    // Year-to-date figures start on the year's first day.
    const tolerance = year.startExact ? 10 : 21;
    if (Math.abs(c.start - year.start) > tolerance) return null;
    position = c.quarters;
  }
  // A known year's fourth quarter ends on the year's end, never on a voted date.
  const last = year.known ? 3 : 4;
  return position >= 1 && position <= last ? position : null;
}

function settleQuarters(year: FiscalYear, v: QuarterVotes): void {
  const firstDay = mostVoted(v.yearStarts);
  if (!year.startExact && firstDay !== null) {
    year.start = firstDay;
    year.startExact = true;
  }
  let previousEnd: number | null = null;
  for (let i = 0; i < 4; i++) {
    const hasEarlier = year.quarterEnds.some((e) => e !== null);
    let end = year.known && i === 3 ? (hasEarlier ? year.end : null) : mostVoted(v.ends[i]);
    if (end !== null && previousEnd !== null && end <= previousEnd) end = null;
    year.quarterEnds[i] = end;
    if (end === null) continue;
    const before = i === 0 ? null : (year.quarterEnds[i - 1] ?? null);
    const exactStart = i === 0 ? (year.startExact ? year.start : null) : before === null ? null : before + 1;
    year.quarterStarts[i] = exactStart ?? mostVoted(v.starts[i]);
    previousEnd = end;
  }
}

function add(map: Map<number, number> | undefined, key: number, count: number): void {
  map?.set(key, (map.get(key) ?? 0) + count);
}

function mostVoted(map: Map<number, number> | undefined): number | null {
  let best: number | null = null;
  let bestCount = 0;
  for (const [key, count] of map ?? []) {
    if (count > bestCount || (count === bestCount && best !== null && key > best)) {
      best = key;
      bestCount = count;
    }
  }
  return best;
}
