import type { FilingRow } from "../snapshot/rows.ts";
import type { LoadedSnapshot } from "./snapshot.ts";

export type { FilingRow };

export interface FilingFilter {
  cik: string | null;
  form: string | null;
  accessionNumber: string | null;
  start: string | null;
  end: string | null;
}

const COLUMNS = `cik, accession_number, form, filing_date, report_date, acceptance_date_time,
  primary_document, primary_doc_description, fy, fp, period, amendment_flag`;

const FILTER = `($cik IS NULL OR cik = $cik)
  AND ($form IS NULL OR upper(form) = upper($form))
  AND ($accession IS NULL OR accession_number = $accession)
  AND ($start IS NULL OR filing_date >= CAST($start AS DATE))
  AND ($end IS NULL OR filing_date <= CAST($end AS DATE))`;

const LIST_FILINGS = `SELECT ${COLUMNS} FROM filings WHERE ${FILTER}
  ORDER BY filing_date DESC, accession_number DESC, cik LIMIT $limit OFFSET $offset`;
const COUNT_FILINGS = `SELECT count(*) AS n FROM filings WHERE ${FILTER}`;

/** Filings matching every given filter, newest first, one page of them, with the total. */
export async function listFilings(
  snapshot: LoadedSnapshot,
  filter: FilingFilter,
  page: number,
  perPage: number,
) {
  if (!snapshot.has("filings")) return { rows: [] as FilingRow[], total: 0 };
  const params = {
    cik: filter.cik,
    form: filter.form,
    accession: filter.accessionNumber,
    start: filter.start,
    end: filter.end,
  };
  const [rows, count] = await Promise.all([
    snapshot.all<FilingRow>(LIST_FILINGS, { ...params, limit: perPage, offset: (page - 1) * perPage }),
    snapshot.all<{ n: number }>(COUNT_FILINGS, params),
  ]);
  return { rows, total: count[0]?.n ?? 0 };
}

/** Whether the snapshot lists any filing of a filer. */
export async function hasFilings(snapshot: LoadedSnapshot, cik: string): Promise<boolean> {
  if (!snapshot.has("filings")) return false;
  const params = { cik, form: null, accession: null, start: null, end: null };
  const count = await snapshot.all<{ n: number }>(COUNT_FILINGS, params);
  return (count[0]?.n ?? 0) > 0;
}

/** The document's address on the SEC site (the filing index when no primary document is known). */
export function filingUrl(row: Pick<FilingRow, "cik" | "accession_number" | "primary_document">): string {
  const folder = `https://www.sec.gov/Archives/edgar/data/${Number(row.cik)}/${row.accession_number.replaceAll("-", "")}`;
  return row.primary_document
    ? `${folder}/${row.primary_document}`
    : `${folder}/${row.accession_number}-index.htm`;
}
