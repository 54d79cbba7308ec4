/**
 * EDGAR's daily master index (`/Archives/edgar/daily-index/YYYY/QTRn/master.YYYYMMDD.idx`):
 * a few header lines, then `CIK|Company Name|Form Type|Date Filed|Filename` rows, one per
 * filer of each filing (a Form 4 is listed under its issuer and each reporting owner). It is
 * final for day D from 06:00 New York time on D+1; weekends and holidays have none.
 */
import { addDays } from "../domain/dates.ts";

/** One row of a master index. */
export interface IndexRow {
  cik: string;
  form: string;
  /** YYYY-MM-DD. */
  filed: string;
  /** The accession number from the file name (`edgar/data/320193/0000320193-24-000123.txt`). */
  accession: string;
}

/** Forms whose filers' submissions and companyfacts are fetched again. */
const PERIODIC = new Set(["10-K", "10-Q", "20-F", "40-F", "8-K", "6-K", "10-KT", "10-QT"]);
/** Ownership forms whose documents are fetched. */
const OWNERSHIP = new Set(["3", "4", "5"]);

/** A 10-K, 10-Q, 20-F, 40-F, 8-K, 6-K or an amendment of one. */
export function isPeriodicForm(form: string): boolean {
  return PERIODIC.has(form.toUpperCase().replace(/\/A$/, ""));
}

/** A Form 3, 4 or 5 or an amendment (exactly: "4" is no prefix of "424B2"). */
export function isOwnershipForm(form: string): boolean {
  return OWNERSHIP.has(form.toUpperCase().replace(/\/A$/, ""));
}

const ROW = /^(\d{1,10})\|[^|]*\|([^|]+)\|(\d{4}-?\d{2}-?\d{2})\|(\S+)$/;
const ACCESSION = /(\d{10}-\d{2}-\d{6})\.txt$/;

/** Parses a master index; throws when the text is not one (an HTML page served in its place). */
export function parseMasterIndex(text: string, file: string): IndexRow[] {
  const lines = text.split(/\r?\n/);
  const header = lines.findIndex((line) =>
    /^CIK\|Company Name\|Form Type\|Date Filed\|File ?name/i.test(line),
  );
  if (header < 0) throw new Error(`${file}: not an EDGAR master index (no CIK|Company Name|... header)`);
  const rows: IndexRow[] = [];
  for (const line of lines.slice(header + 1)) {
    const m = ROW.exec(line.trim());
    const accession = m ? ACCESSION.exec(m[4] as string)?.[1] : undefined;
    if (!m || !accession) continue;
    const date = (m[3] as string).replaceAll("-", "");
    rows.push({
      cik: (m[1] as string).padStart(10, "0"),
      form: (m[2] as string).trim(),
      filed: `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6)}`,
      accession,
    });
  }
  return rows;
}

/**
 * The latest day whose index is final at `now`: the day before the New York date of
 * `now - 6 h` (an index is complete from 06:00 New York time on the next day).
 */
export function latestFinalDay(now: Date): string {
  const newYork = new Intl.DateTimeFormat("en-CA", {
    timeZone: "America/New_York",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(new Date(now.getTime() - 6 * 3_600_000));
  return addDays(newYork, -1);
}

/** The days after `from` up to `to`, oldest first. */
export function daysAfter(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = addDays(from, 1); day <= to; day = addDays(day, 1)) days.push(day);
  return days;
}

/**
 * Whether a file fetched at `fetchedAt` already holds the filings of `day`: it was fetched after
 * that day's index was final (06:00 New York time on the next day, at most 11:00 UTC).
 */
export function coversDay(fetchedAt: string, day: string): boolean {
  return fetchedAt >= `${addDays(day, 1)}T11:00:00.000Z`;
}
