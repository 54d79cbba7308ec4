/**
 * Dates of the demo universe: fiscal quarters and years, the 10-Q/10-K filings that report
 * them, and small date helpers. Everything is a pure function of the company and a cut-off
 * date, so the history never changes with the day the demo is built.
 */
import { addDays } from "../domain/dates.ts";
import type { DemoCompany } from "./universe.ts";

/** First year of demo history (prices, filings). */
export const FIRST_YEAR = 2013;

/** YYYY-MM-DD of a UTC timestamp. */
export const iso = (t: number): string => new Date(t).toISOString().slice(0, 10);

/** The last day of the month `months` after the month of `date` (YYYY-MM-DD). */
export function monthEnd(date: string, months: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  return iso(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months + 1, 0));
}

/** `date` itself on a weekday, else the Monday after. */
export function weekdayOnOrAfter(date: string): string {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return day === 6 ? addDays(date, 2) : day === 0 ? addDays(date, 1) : date;
}

/** One fiscal quarter: `fy` is named by the calendar year the fiscal year ends in. */
export interface FiscalQuarter {
  fy: number;
  q: 1 | 2 | 3 | 4;
  start: string;
  end: string;
}

/** Fiscal quarters from fiscal year `fromFy` on, up to the last one ending on or before `until`. */
export function fiscalQuarters(company: DemoCompany, fromFy: number, until: string): FiscalQuarter[] {
  const mm = company.fiscalYearEnd.slice(0, 2);
  const quarters: FiscalQuarter[] = [];
  for (let fy = fromFy; ; fy++) {
    const previousEnd = monthEnd(`${fy - 1}-${mm}-01`, 0);
    for (const q of [1, 2, 3, 4] as const) {
      const end = monthEnd(previousEnd, 3 * q);
      if (end > until) return quarters;
      quarters.push({ fy, q, start: addDays(monthEnd(previousEnd, 3 * q - 3), 1), end });
    }
  }
}

/** One fiscal period of a demo company and the filing that reports it. */
export interface DemoPeriod {
  fy: number;
  fp: "Q1" | "Q2" | "Q3" | "FY";
  start: string;
  end: string;
  filed: string;
  form: "10-Q" | "10-K";
  accession: string;
}

/**
 * Fiscal quarters and years whose filing date is on or before `until`. A fiscal year is
 * named by the calendar year it ends in (a January year end makes FY2024 end 2024-01-31).
 * A 10-Q is filed 40 days after its quarter, a 10-K 60 days after its year; accession
 * numbers count the company's periodic reports (`<CIK>-<YY>-<NNNNNN>`).
 */
export function demoPeriods(company: DemoCompany, until: string): DemoPeriod[] {
  const periods: DemoPeriod[] = [];
  const mm = company.fiscalYearEnd.slice(0, 2);
  let seq = 1;
  const accession = (year: string) => `${company.cik}-${year.slice(2, 4)}-${String(seq++).padStart(6, "0")}`;
  for (let fy = FIRST_YEAR; ; fy++) {
    const yearEnd = monthEnd(`${fy}-${mm}-01`, 0);
    const previousEnd = monthEnd(`${fy - 1}-${mm}-01`, 0);
    const start = addDays(previousEnd, 1);
    if (start > until) break;
    const quarters: [DemoPeriod["fp"], string][] = [
      ["Q1", monthEnd(previousEnd, 3)],
      ["Q2", monthEnd(previousEnd, 6)],
      ["Q3", monthEnd(previousEnd, 9)],
      ["FY", yearEnd],
    ];
    for (const [fp, end] of quarters) {
      const filed = addDays(end, fp === "FY" ? 60 : 40);
      if (filed > until) return periods;
      const qStart = fp === "Q1" || fp === "FY" ? start : addDays(monthEnd(end, -3), 1);
      periods.push({
        fy,
        fp,
        start: qStart,
        end,
        filed,
        form: fp === "FY" ? "10-K" : "10-Q",
        accession: accession(filed),
      });
    }
  }
  return periods;
}
