/**
 * A company's fiscal calendar, established from its facts rather than from the labels of the
 * filings that carried them (a 10-K repeats earlier years under its own fy):
 *
 * 1. Fiscal years are the full-year durations the annual reports carry (52/53-week years
 *    included); when candidates overlap, the one reported by more facts wins.
 * 2. Each fiscal year is labelled as the company labels it: the `fy` of the annual report
 *    whose own report period ends on that year's end. Where annual reports disagree with one
 *    another (NVIDIA tagged its FY2011–FY2014 10-Ks with the previous year), the labelling used
 *    by most reports wins (ties: the latest) and is applied to every year by its distance from
 *    the latest one, which also labels years seen only as comparatives. Without any annual
 *    report, a year is labelled by the calendar year it ends in (a year ending in the first
 *    week of January belongs to the year before).
 * 3. Quarter ends inside a fiscal year are voted by the quarter-length and year-to-date
 *    durations ending there; the quarter number is the position of the end within the year.
 *    Quarters after the last (or before the first) known fiscal year fall into years
 *    extrapolated from it, so the current, not yet complete, fiscal year has its quarters.
 */
import {
  DAYS_PER_YEAR,
  type FiscalYear,
  labelFromCalendarYear,
  nominalYearFromQuarter,
  voteQuarters,
} from "./fiscal-quarters.ts";
import { type FactScan, isAnnualForm } from "./xbrl-scan.ts";

/** One fiscal quarter of the calendar. */
export interface QuarterSlot {
  year: FiscalYear;
  quarter: 1 | 2 | 3 | 4;
  start: number | null;
  end: number;
}

export interface FiscalCalendar {
  /** Known and extrapolated fiscal years, by end. */
  years: FiscalYear[];
  /** Every quarter of every year, by end. */
  quarters: QuarterSlot[];
}

/** Builds the fiscal calendar from a fact scan. */
export function buildFiscalCalendar(scan: FactScan): FiscalCalendar {
  const known = chooseFiscalYears(scan);
  if (known.length > 0) labelFiscalYears(known, annualReportLabels(scan));
  // Without any full year, a nominal year around the latest quarterly report anchors the rest.
  const reference = known.length > 0 ? null : nominalYearFromQuarter(scan);
  const base = reference === null ? known : [reference];
  if (base.length === 0) return { years: [], quarters: [] };
  const extrapolated = voteQuarters(scan, base);
  const years = [...base, ...extrapolated].sort((a, b) => a.end - b.end);
  const quarters: QuarterSlot[] = [];
  for (const year of years) {
    for (let i = 0; i < 4; i++) {
      const end = year.quarterEnds[i];
      if (end === null || end === undefined) continue;
      quarters.push({ year, quarter: (i + 1) as 1 | 2 | 3 | 4, start: year.quarterStarts[i] ?? null, end });
    }
  }
  return { years, quarters };
}

/** Full-year periods of the annual reports, non-overlapping, by end. */
function chooseFiscalYears(scan: FactScan): FiscalYear[] {
  const reportEnds = new Set<number>();
  for (const a of scan.accessions.values()) {
    if (isAnnualForm(a.form) && a.reportEnd !== null) reportEnds.add(a.reportEnd);
  }
  // A stray full-year figure (a trailing-twelve-months disclosure) is reported by few facts.
  const candidates = [...scan.annual.values()]
    .filter((c) => c.count >= 3 || reportEnds.has(c.end))
    .sort((a, b) => b.count - a.count || b.end - a.end);
  const chosen: FiscalYear[] = [];
  for (const c of candidates) {
    const overlaps = chosen.some((y) => Math.min(y.end, c.end) - Math.max(y.start, c.start) > 14);
    if (overlaps) continue;
    chosen.push({
      label: 0,
      start: c.start,
      end: c.end,
      known: true,
      startExact: true,
      quarterEnds: [null, null, null, null],
      quarterStarts: [null, null, null, null],
    });
  }
  return chosen.sort((a, b) => a.end - b.end);
}

/** fy of each annual report by the end of the period it reports (originals before amendments). */
function annualReportLabels(scan: FactScan): Map<number, number> {
  const reports = [...scan.accessions.values()]
    .filter((a) => isAnnualForm(a.form) && a.fp === "FY" && a.fy !== null && a.reportEnd !== null)
    .sort(
      (a, b) =>
        Number(a.form.endsWith("/A")) - Number(b.form.endsWith("/A")) || a.filed.localeCompare(b.filed),
    );
  const labels = new Map<number, number>();
  for (const r of reports) {
    if (r.reportEnd !== null && r.fy !== null && !labels.has(r.reportEnd)) labels.set(r.reportEnd, r.fy);
  }
  return labels;
}

/** Sets `label` on every year (see the file comment, step 2). `years` is sorted by end. */
function labelFiscalYears(years: FiscalYear[], reported: Map<number, number>): void {
  const latest = years[years.length - 1] as FiscalYear;
  const distance = (y: FiscalYear): number => Math.round((y.end - latest.end) / DAYS_PER_YEAR);
  const votes = new Map<number, number>();
  let latestOffset: number | null = null;
  for (const year of years) {
    const label = reported.get(year.end);
    if (label === undefined) continue;
    const offset = label - distance(year);
    votes.set(offset, (votes.get(offset) ?? 0) + 1);
    latestOffset = offset;
  }
  let best = latestOffset;
  for (const [offset, count] of votes) {
    if (best === null || count > (votes.get(best) ?? 0)) best = offset;
  }
  const offset = best ?? labelFromCalendarYear(latest.end);
  for (const year of years) year.label = offset + distance(year);
}
