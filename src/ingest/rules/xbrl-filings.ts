/**
 * Filing metadata and share counts derived from a companyfacts file: the periodic reports that
 * carried facts, with the period each reports on, and the shares outstanding for market
 * capitalisation.
 */

import { daysBetween, fromDayNumber } from "../../domain/dates.ts";
import type { CompanyFacts, DocumentInfo, XbrlFact } from "../sources/companyfacts.ts";
import type { FilingRecord } from "../sources/submissions.ts";
import type { SharesObservation } from "./inputs.ts";
import type { AccessionScan, FactScan } from "./xbrl-scan.ts";

/** One periodic report (10-K, 10-Q, 20-F, 40-F or an amendment) as its facts describe it. */
export interface FilingSummary {
  accession_number: string;
  form: string;
  /** Fiscal year and period as the filing labels them (dei:DocumentFiscalYearFocus/PeriodFocus). */
  fy: number | null;
  fp: string | null;
  filed: string;
  /** Report period end date; null for a filing carrying cover-page facts only. */
  period: string | null;
  amendment_flag: boolean;
}

/**
 * The periodic reports among the facts, newest filing first. `period` is
 * dei:DocumentPeriodEndDate when the file has it (the SEC API omits it), else the latest end
 * of the filing's current-period figures: durations of the length its fp names (a year for
 * FY; a quarter or the year to date for Q1–Q3) ending no later than the filing date — a plain
 * "latest end" would pick up subsequent-event and guidance facts. Failing that, the end most
 * of its facts share. `amendment_flag` is dei:AmendmentFlag when present, else whether the
 * form is an amendment (`/A`).
 */
export function listFilings(scan: FactScan, documents: ReadonlyMap<string, DocumentInfo>): FilingSummary[] {
  const filings: FilingSummary[] = [];
  for (const a of scan.accessions.values()) {
    const doc = documents.get(a.accn);
    const end = a.reportEnd ?? mostCommonEnd(a);
    filings.push({
      accession_number: a.accn,
      form: a.form,
      fy: a.fy,
      fp: a.fp,
      filed: a.filed,
      period: doc?.periodEndDate ?? (end === null ? null : fromDayNumber(end)),
      amendment_flag: doc?.amendmentFlag ?? a.form.endsWith("/A"),
    });
  }
  return filings.sort(
    (x, y) => y.filed.localeCompare(x.filed) || y.accession_number.localeCompare(x.accession_number),
  );
}

function mostCommonEnd(a: AccessionScan): number | null {
  let best: number | null = null;
  let bestCount = 0;
  for (const [end, count] of a.endCounts) {
    if (count > bestCount || (count === bestCount && best !== null && end > best)) {
      best = end;
      bestCount = count;
    }
  }
  return best;
}

/**
 * Shares outstanding, oldest first, one value per date and filing, each with its own filing
 * date. The source is the cover pages (dei:EntityCommonStockSharesOutstanding), else, for a
 * company that never tags them (Alphabet, a multi-class filer) or stopped tagging them more
 * than a year before its last balance sheet, the balance sheets
 * (us-gaap:CommonStockSharesOutstanding, all classes). Never both for one company: they count
 * on different dates and bases, so a mixed series would alternate between them and could
 * show split inference (splits.ts) false jumps.
 */
export function sharesOutstanding(company: CompanyFacts): SharesObservation[] {
  const cover = coverCounts(factsOf(company, "dei", "EntityCommonStockSharesOutstanding"));
  const balance = balanceSheetCounts(factsOf(company, "us-gaap", "CommonStockSharesOutstanding"));
  const last = (counts: readonly FiledCount[]) =>
    counts.reduce<string | null>((d, c) => (d === null || c.date > d ? c.date : d), null);
  const coverEnds = last(cover);
  const balanceEnds = last(balance);
  const coverStale =
    coverEnds !== null && balanceEnds !== null && daysBetween(coverEnds, balanceEnds) > STALE_COVER_DAYS;
  const counts = cover.length > 0 && !coverStale ? cover : balance;
  // One observation per filing: a count repeated by a later filing (a 10-K/A) must not hide
  // the original until the repeat was filed. Consumers take the latest filed on or before a date.
  return counts
    .sort(
      (a, b) =>
        a.date.localeCompare(b.date) || a.filed.localeCompare(b.filed) || a.accn.localeCompare(b.accn),
    )
    .map(({ date, filed, value }) => ({ date, filed, value }));
}

/** A cover count this much older than the latest balance-sheet count has stopped being filed. */
const STALE_COVER_DAYS = 365;

interface FiledCount {
  date: string;
  filed: string;
  accn: string;
  value: number;
}

/** Every fact of a concept, all units. */
function factsOf(company: CompanyFacts, taxonomy: string, concept: string): XbrlFact[] {
  return [...(company.facts.get(taxonomy)?.get(concept)?.values() ?? [])].flat();
}

/**
 * Cover-page counts: a filer with several share classes lists one fact per class for the
 * same date and filing; those are summed.
 */
function coverCounts(facts: readonly XbrlFact[]): FiledCount[] {
  const perFiling = new Map<string, FiledCount>();
  for (const f of facts) {
    const key = `${f.accn}|${f.end}`;
    const seen = perFiling.get(key);
    if (seen === undefined) perFiling.set(key, { date: f.end, filed: f.filed, accn: f.accn, value: f.val });
    else seen.value += f.val;
  }
  return [...perFiling.values()];
}

/**
 * Balance-sheet counts: of each filing, the count at its latest date only (its own balance
 * sheet). The earlier dates are comparatives, restated on the basis of any split before the
 * filing (Alphabet's 2021-12-31 count is 662 million in the 10-K of 2022-02 and 13.2 billion
 * in the 10-Q of 2022-07), which would look like splits at the wrong dates.
 */
function balanceSheetCounts(facts: readonly XbrlFact[]): FiledCount[] {
  const perFiling = new Map<string, FiledCount>();
  for (const f of facts) {
    const seen = perFiling.get(f.accn);
    if (seen === undefined || f.end > seen.date)
      perFiling.set(f.accn, { date: f.end, filed: f.filed, accn: f.accn, value: f.val });
  }
  return [...perFiling.values()];
}

/**
 * The submissions' filings completed by their XBRL facts (`summaries` by accession number):
 * fy, fp and report period from the facts, null for a filing without facts; the amendment flag
 * is the facts' (dei:AmendmentFlag), else the form type's (EDGAR names every amendment
 * `<form>/A`).
 */
export function withXbrlFacts<F extends Pick<FilingRecord, "accession_number" | "form" | "report_date">>(
  filings: readonly F[],
  summaries: ReadonlyMap<string, FilingSummary>,
) {
  return filings.map((f) => {
    const x = summaries.get(f.accession_number);
    return {
      ...f,
      fy: x?.fy ?? null,
      fp: x?.fp ?? null,
      // Facts with no report period (a 10-K/A of cover facts only): the submissions report date.
      period: x ? (x.period ?? f.report_date) : null,
      amendment_flag: x?.amendment_flag ?? f.form.endsWith("/A"),
    };
  });
}
