/**
 * One pass over a company's XBRL facts collecting what the fiscal calendar and the filing
 * list need: which full-year periods the annual reports cover, which quarter-length and
 * year-to-date periods exist, and per filing the period it reports on. Dates become day
 * numbers so that durations are integer arithmetic.
 */
import type { CompanyFacts, XbrlFact } from "../sources/companyfacts.ts";

const digit = (s: string, i: number): number => s.charCodeAt(i) - 48;

/**
 * Days since 1970-01-01 of a `YYYY-MM-DD` date (as toDayNumber in domain/dates.ts), by integer
 * arithmetic: this runs for every fact of every company, where Date.parse dominated the time.
 */
export function dayOf(date: string): number {
  const m = digit(date, 5) * 10 + digit(date, 6);
  const d = digit(date, 8) * 10 + digit(date, 9);
  const y =
    digit(date, 0) * 1000 + digit(date, 1) * 100 + digit(date, 2) * 10 + digit(date, 3) - (m <= 2 ? 1 : 0);
  // Days from civil (H. Hinnant): years start in March so the leap day ends the year.
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** Number of fiscal quarters a duration spans (4 = a full year), or null for any other length. */
export type QuarterCount = 1 | 2 | 3 | 4;

/**
 * Classifies a duration by its length in days (end inclusive). The ranges admit 52/53-week
 * years (364/371 days), 13/14-week quarters and the 12-12-12-16-week calendars of some
 * retailers (quarters of 84 or 112 days); anything else (monthly, multi-year, ...) is null
 * and the fact is ignored.
 */
export function quartersSpanned(start: number, end: number): QuarterCount | null {
  const days = end - start + 1;
  if (days >= 75 && days <= 120) return 1;
  if (days >= 160 && days <= 200) return 2;
  if (days >= 245 && days <= 290) return 3;
  if (days >= 350 && days <= 380) return 4;
  return null;
}

/** The forms and their amendments (`/A`), so that a check is one Set lookup per fact. */
const withAmendments = (forms: readonly string[]): ReadonlySet<string> =>
  new Set(forms.flatMap((f) => [f, `${f}/A`]));

const PERIODIC = ["10-K", "10-Q", "20-F", "40-F"];
const PERIODIC_FORMS = withAmendments(PERIODIC);
const ANNUAL_FORMS = withAmendments(["10-K", "20-F", "40-F", "10-KT"]);
/**
 * Forms whose financial facts are used: periodic reports, transition reports, and 8-K/6-K
 * (recast financial statements, foreign issuers' interim reports). Proxy statements and
 * prospectuses carry pay-versus-performance or fee tables, not statements.
 */
const CURRENT_REPORTS = withAmendments(["8-K", "6-K"]);
const STATEMENT_FORMS = new Set([...withAmendments([...PERIODIC, "10-KT", "10-QT"]), ...CURRENT_REPORTS]);

export const isPeriodicForm = (form: string): boolean => PERIODIC_FORMS.has(form);
export const isAnnualForm = (form: string): boolean => ANNUAL_FORMS.has(form);
export const isStatementForm = (form: string): boolean => STATEMENT_FORMS.has(form);
/** An 8-K or 6-K: a recast or a foreign issuer's interim report, not a periodic report. */
export const isCurrentReport = (form: string): boolean => CURRENT_REPORTS.has(form);

/** Map key of a (start, end) pair of day numbers (both well below 2^26). */
const periodKey = (start: number, end: number): number => start * 67_108_864 + end;

/** A distinct (start, end) duration with the number of facts reported for it. */
export interface DurationCount {
  start: number;
  end: number;
  quarters: QuarterCount;
  count: number;
}

/** What one periodic filing reports on. */
export interface AccessionScan {
  accn: string;
  form: string;
  fy: number | null;
  fp: string | null;
  filed: string;
  /** Latest end of a duration matching the filing's fp (FY: a year; Qn: a quarter or n quarters). */
  reportEnd: number | null;
  /** Fact counts by end day, the fallback when no duration matches (fallback: the most common end). */
  endCounts: Map<number, number>;
}

export interface FactScan {
  /** Full-year durations carried by annual reports, keyed by periodKey. */
  annual: Map<number, DurationCount>;
  /** Quarter and year-to-date durations (1–3 quarters) from any statement form, keyed by periodKey. */
  partial: Map<number, DurationCount>;
  /** Periodic filings (10-K, 10-Q, 20-F, 40-F and amendments) by accession number. */
  accessions: Map<string, AccessionScan>;
}

/** Scans every fact of every taxonomy once. */
export function scanFacts(company: CompanyFacts): FactScan {
  const scan: FactScan = { annual: new Map(), partial: new Map(), accessions: new Map() };
  for (const [taxonomy, concepts] of company.facts) {
    const cover = taxonomy === "dei";
    for (const units of concepts.values()) {
      for (const facts of units.values()) {
        for (const fact of facts) scanFact(scan, fact, cover);
      }
    }
  }
  return scan;
}

function scanFact(scan: FactScan, fact: XbrlFact, cover: boolean): void {
  const accession = isPeriodicForm(fact.form) ? accessionOf(scan, fact) : null;
  // Cover-page (dei) facts are dated by the cover, not by the reported period.
  if (cover || !isStatementForm(fact.form)) return;
  const end = dayOf(fact.end);
  const start = fact.start === null ? null : dayOf(fact.start);
  const quarters = start === null ? null : quartersSpanned(start, end);
  if (accession !== null && fact.end <= fact.filed) {
    accession.endCounts.set(end, (accession.endCounts.get(end) ?? 0) + 1);
    if (quarters !== null && matchesFiscalPeriod(quarters, fact.fp)) {
      accession.reportEnd = Math.max(accession.reportEnd ?? end, end);
    }
  }
  if (start === null || quarters === null) return;
  if (quarters === 4) {
    if (isAnnualForm(fact.form)) countDuration(scan.annual, start, end, quarters);
  } else {
    countDuration(scan.partial, start, end, quarters);
  }
}

function accessionOf(scan: FactScan, fact: XbrlFact): AccessionScan {
  let accession = scan.accessions.get(fact.accn);
  if (accession === undefined) {
    accession = {
      accn: fact.accn,
      form: fact.form,
      fy: fact.fy,
      fp: fact.fp,
      filed: fact.filed,
      reportEnd: null,
      endCounts: new Map(),
    };
    scan.accessions.set(fact.accn, accession);
  }
  return accession;
}

/** Whether a duration of `quarters` is a current-period figure of a filing labelled `fp`. */
function matchesFiscalPeriod(quarters: QuarterCount, fp: string | null): boolean {
  switch (fp) {
    case "FY":
      return quarters === 4;
    case "Q1":
      return quarters === 1;
    case "Q2":
      return quarters === 1 || quarters === 2;
    case "Q3":
      return quarters === 1 || quarters === 3;
    default:
      return false;
  }
}

function countDuration(
  map: Map<number, DurationCount>,
  start: number,
  end: number,
  quarters: QuarterCount,
): void {
  const key = periodKey(start, end);
  const entry = map.get(key);
  if (entry === undefined) map.set(key, { start, end, quarters, count: 1 });
  else entry.count += 1;
}
