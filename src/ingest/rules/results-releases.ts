/**
 * Which filings date a company's periodic reports and the results announcements that released
 * them: the inputs of the earnings document's release dates (pipeline/derive.ts).
 */
import { daysBetween } from "../../domain/dates.ts";
import type { FilingRecord } from "../sources/submissions.ts";
import { REPORT_AFTER_ANNOUNCEMENT_DAYS } from "./earnings.ts";

/** The filing dates of one company's periodic reports and of their results releases, both ascending. */
export interface ReleaseFilings {
  reports: string[];
  results: string[];
}

/** An announcement this many days or fewer after another is its follow-up. */
export const FOLLOW_UP_DAYS = 3;

/** A periodic report: 10-K, 10-Q, 20-F or 40-F; amendments (`/A`) are not. */
export function isPeriodicReport(form: string): boolean {
  return /^(10-K|10-Q|20-F|40-F)$/.test(form);
}

/** An 8-K that lists item 2.02 ("Results of Operations and Financial Condition"). */
export function isResultsItemEightK(filing: Pick<FilingRecord, "form" | "items">): boolean {
  return filing.form === "8-K" && (filing.items ?? "").split(",").includes("2.02");
}

/**
 * By CIK, the dates of its periodic reports (`isPeriodicReport`) and of the results
 * announcements that released them: of the 8-Ks with item 2.02 filed up to
 * REPORT_AFTER_ANNOUNCEMENT_DAYS (45) days before a report, the latest. Other 8-Ks under that
 * item are no earnings release (Tesla's quarterly deliveries, two days after the quarter; its
 * results come three weeks later, a day before the 10-Q), and one filed within
 * FOLLOW_UP_DAYS after another is its follow-up (Expedia's post-earnings 8-K of 2020-07-31, a
 * day after its results): the first of such a run is the release. A CIK with no periodic
 * report has no entry. Both lists ascending, without repeats among the results.
 */
export function reportAndReleaseDatesByCik(
  filings: readonly Pick<FilingRecord, "cik" | "form" | "items" | "filing_date">[],
): Map<string, ReleaseFilings> {
  const reports = new Map<string, string[]>();
  const announcements = new Map<string, string[]>();
  for (const f of filings) {
    const into = isPeriodicReport(f.form) ? reports : isResultsItemEightK(f) ? announcements : null;
    if (into === null) continue;
    const dates = into.get(f.cik) ?? [];
    dates.push(f.filing_date);
    into.set(f.cik, dates);
  }
  const out = new Map<string, ReleaseFilings>();
  for (const [cik, dates] of reports) {
    dates.sort();
    const candidates = firstOfRuns(announcements.get(cik) ?? [], FOLLOW_UP_DAYS);
    // `candidates` ascend: the last one in the window is the latest.
    const results = dates
      .map((d) =>
        candidates.filter((a) => a <= d && daysBetween(a, d) <= REPORT_AFTER_ANNOUNCEMENT_DAYS).at(-1),
      )
      .filter((a): a is string => a !== undefined);
    out.set(cik, { reports: dates, results: [...new Set(results)].sort() });
  }
  return out;
}

/**
 * Of dates that follow each other by `days` or fewer, the first of each run; ascending. A run
 * is chained: each date is measured from the one before it, not from the run's first.
 */
export function firstOfRuns(dates: readonly string[], days: number): string[] {
  const out: string[] = [];
  let previous: string | null = null;
  for (const d of [...dates].sort()) {
    if (previous === null || daysBetween(previous, d) > days) out.push(d);
    previous = d;
  }
  return out;
}
