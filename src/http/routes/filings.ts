import { Elysia, t } from "elysia";
import type { Billing } from "../../accounts/billing.ts";
import { normalizeCik } from "../../domain/tickers.ts";
import { invalidParameter } from "../../errors.ts";
import { filingUrl, listFilings } from "../../query/filings.ts";
import { errorResponses, Nullable, Pagination, pagination, StrOrNull } from "../models/common.ts";
import { calendarDate, orderedRange, Params, queryParams, resolveSecurity, snapshotOf } from "../params.ts";
import { billingPlugin } from "../plugins/billing.ts";
import { operation } from "./operation.ts";

/** Spec §2.14. */
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

const ACCESSION = /^\d{10}-\d{2}-\d{6}$/;

/** GET /sec_filings: every filter combines (AND). */
export function filingsRoutes(billing: Billing) {
  return new Elysia({ name: "routes.filings" }).use(billingPlugin(billing)).get(
    "/sec_filings",
    async ({ query, request }) => {
      const snapshot = snapshotOf(request);
      const start = query.start ? calendarDate(query.start, "start") : null;
      const end = query.end ? calendarDate(query.end, "end") : null;
      orderedRange(start, end, ["start", "end"]);
      let cik = query.cik === undefined ? null : normalizeCik(query.cik);
      if (query.cik !== undefined && cik === null)
        throw invalidParameter("query", "cik", "must be 1 to 10 digits");
      if (query.accession_number !== undefined && !ACCESSION.test(query.accession_number)) {
        throw invalidParameter("query", "accession_number", "must look like 0000320193-24-000123");
      }
      let matchesNothing = false;
      if (query.ticker !== undefined) {
        const tickerCik = resolveSecurity(snapshot, query.ticker).cik;
        // A ticker with no filer, or a ticker and a cik naming different filers, match nothing.
        matchesNothing = tickerCik === null || (cik !== null && cik !== tickerCik);
        cik = tickerCik;
      }
      const filter = {
        cik,
        form: query.form ?? null,
        accessionNumber: query.accession_number ?? null,
        start,
        end,
      };
      const { rows, total } = matchesNothing
        ? { rows: [], total: 0 }
        : await listFilings(snapshot, filter, query.page, query.per_page);
      return {
        data: rows.map((f) => ({
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
        })),
        pagination: pagination(query.page, query.per_page, total),
      };
    },
    {
      billed: "sec_filings",
      query: queryParams({
        ticker: t.Optional(Params.ticker("ticker")),
        cik: t.Optional(Params.cik("cik")),
        start: t.Optional(Params.date("start", "first filing date, inclusive")),
        end: t.Optional(Params.date("end", "last filing date, inclusive")),
        form: t.Optional(Params.text("form", "exact form, e.g. 10-K or 10-Q", 20)),
        accession_number: t.Optional(Params.text("accession_number", "exact accession number", 20)),
        page: Params.positiveInt("page", "page number", 1, 100_000),
        per_page: Params.positiveInt("per_page", "rows per page", 100, 1000),
      }),
      response: { 200: t.Object({ data: t.Array(FilingRecord), pagination: Pagination }), ...errorResponses },
      detail: operation(
        "sec_filings",
        "SEC filing metadata",
        "Filings matching every given filter, newest first, paginated.",
      ),
    },
  );
}
