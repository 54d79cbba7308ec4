import { t } from "elysia";
import { isAccessionNumber, normalizeCik } from "../../domain/tickers.ts";
import { invalidParameter } from "../../errors.ts";
import { type FilingRow, filingUrl, listFilings } from "../../query/filings.ts";
import type { LoadedSnapshot } from "../../query/snapshot.ts";
import { Nullable, Pagination, pagination, StrOrNull } from "../models/common.ts";
import { calendarDate, orderedRange, Params, queryParams, resolveSecurity } from "../params.ts";
import { defineRoute } from "../route.ts";

const FilingRecord = t.Object({
  cik: t.String(),
  accession_number: t.String(),
  form: t.String(),
  filing_date: t.String(),
  report_date: StrOrNull,
  acceptance_date_time: StrOrNull,
  fy: Nullable(t.Integer()),
  fp: StrOrNull,
  period: StrOrNull,
  amendment_flag: Nullable(t.Boolean()),
  filing_url: t.String(),
});

const FilingsQuery = queryParams({
  ticker: t.Optional(Params.ticker("ticker")),
  cik: t.Optional(Params.cik("cik")),
  start: t.Optional(Params.date("start", "first filing date, inclusive")),
  end: t.Optional(Params.date("end", "last filing date, inclusive")),
  form: t.Optional(Params.text("form", "exact form, e.g. 10-K or 10-Q", 20)),
  accession_number: t.Optional(Params.text("accession_number", "exact accession number", 20)),
  page: Params.positiveInt("page", "page number", 1, 100_000),
  per_page: Params.positiveInt("per_page", "rows per page", 100, 1000),
});

/** GET /sec_filings: every filter combines (AND). */
const secFilings = defineRoute({
  path: "/sec_filings",
  endpoint: "sec_filings",
  heavy: true,
  query: FilingsQuery,
  response: t.Object({ data: t.Array(FilingRecord), pagination: Pagination }),
  csv: { row: FilingRecord, rows: (body) => body.data },
  summary: "SEC filing metadata",
  description: "Filings matching every given filter, newest first, paginated.",
  async handler({ snapshot, query }) {
    const filter = filterOf(snapshot, query);
    const { rows, total } = filter ? await listFilings(snapshot, filter, query.page, query.per_page) : NONE;
    return { data: rows.map(filingRecord), pagination: pagination(query.page, query.per_page, total) };
  },
});

const NONE = { rows: [], total: 0 };

/** The query's filter; null when it matches nothing (its ticker has no filer, or another than its cik). */
function filterOf(snapshot: LoadedSnapshot, query: typeof FilingsQuery.static) {
  const start = query.start ? calendarDate(query.start, "start") : null;
  const end = query.end ? calendarDate(query.end, "end") : null;
  orderedRange(start, end, ["start", "end"]);
  let cik = query.cik === undefined ? null : normalizeCik(query.cik);
  if (query.cik !== undefined && cik === null)
    throw invalidParameter("query", "cik", "must be 1 to 10 digits");
  if (query.accession_number !== undefined && !isAccessionNumber(query.accession_number)) {
    throw invalidParameter("query", "accession_number", "must look like 0000320193-24-000123");
  }
  let matchesNothing = false;
  if (query.ticker !== undefined) {
    const tickerCik = resolveSecurity(snapshot, query.ticker).cik;
    matchesNothing = tickerCik === null || (cik !== null && cik !== tickerCik);
    cik = tickerCik;
  }
  if (matchesNothing) return null;
  return { cik, form: query.form ?? null, accessionNumber: query.accession_number ?? null, start, end };
}

function filingRecord(f: FilingRow) {
  return {
    cik: f.cik,
    accession_number: f.accession_number,
    form: f.form,
    filing_date: f.filing_date,
    report_date: f.report_date,
    acceptance_date_time: f.acceptance_date_time,
    fy: f.fy,
    fp: f.fp,
    period: f.period,
    amendment_flag: f.amendment_flag,
    filing_url: filingUrl(f),
  };
}

export const filingsRoutes = [secFilings];
