/**
 * How the submissions files of a source directory become one list of companies and one of
 * filings: which copy of a filing listed more than once is kept, and each company's first
 * filing date.
 */
import type { CompanyRecord, FilingRecord } from "../sources/submissions.ts";

/** A company with the date of its first filing (null when no file tells it). */
export type CompanyWithFilings = CompanyRecord & { first_filing_date: string | null };

/** What one parsed submissions file brings to the merge. */
export interface SubmissionsPart {
  /** Null for a paged file. */
  company: CompanyRecord | null;
  filings: readonly FilingRecord[];
  /** A main file's earliest listed page date, else null. */
  listedFrom: string | null;
}

/** A paged submissions file (`CIK##########-submissions-NNN.json`): `-submissions-` in its path. */
const isPagedFile = (file: string) => file.includes("-submissions-");

/**
 * The submissions files in the order they are merged: main files before paged ones, so the
 * recent list's copy of a filing is the one kept. Otherwise the given order (a stable sort).
 */
export function mainSubmissionFilesFirst(files: readonly string[]): string[] {
  return files.toSorted((a, b) => Number(isPagedFile(a)) - Number(isPagedFile(b)));
}

/**
 * Merges parsed submissions files, taken in order (`mainSubmissionFilesFirst`). A filing is
 * listed under each of its filers (an insider's Form 4 under the issuer and under the owner):
 * one row per filer (CIK and accession number); a filer's own repeat of it is dropped, the
 * first copy kept. A company's first filing date is the earliest of its kept filings, or the
 * earliest a main file lists in paged files that are not at hand, whichever is earlier.
 * Companies keep the order of their files.
 */
export function mergeSubmissions(parts: readonly SubmissionsPart[]): {
  companies: CompanyWithFilings[];
  filings: FilingRecord[];
} {
  const companies: CompanyWithFilings[] = [];
  const byFiling = new Map<string, FilingRecord>();
  for (const part of parts) {
    if (part.company) companies.push({ ...part.company, first_filing_date: part.listedFrom });
    for (const f of part.filings) {
      const key = `${f.cik}|${f.accession_number}`;
      if (!byFiling.has(key)) byFiling.set(key, f);
    }
  }
  const first = new Map<string, string>();
  for (const f of byFiling.values()) {
    const seen = first.get(f.cik);
    if (seen === undefined || f.filing_date < seen) first.set(f.cik, f.filing_date);
  }
  for (const c of companies) {
    const dates = [first.get(c.cik), c.first_filing_date].filter((d): d is string => d != null);
    c.first_filing_date = dates.sort()[0] ?? null;
  }
  return { companies, filings: [...byFiling.values()] };
}

/**
 * The companies of the filer-metadata table whose own submissions file was not imported (a
 * submissions file's company wins), with no first filing date, in the table's order.
 */
export function filersWithoutSubmissions(
  companies: readonly CompanyRecord[],
  filers: readonly CompanyRecord[],
): CompanyWithFilings[] {
  const known = new Set(companies.map((c) => c.cik));
  return filers.filter((c) => !known.has(c.cik)).map((c) => ({ ...c, first_filing_date: null }));
}
