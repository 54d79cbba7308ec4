import { t } from "elysia";
import { ApiError, invalidParameter } from "../../errors.ts";
import { type FilingRow, filingUrl, hasFilings, listFilings } from "../../query/filings.ts";
import { NumOrNull, StrOrNull } from "../models/common.ts";
import { Profile, profileOf } from "../models/profile.ts";
import { calendarDate, orderedRange, Params, queryParams, resolveSecurity, todayUtc } from "../params.ts";
import { defineRoute } from "../route.ts";

const PriceRow = t.Object({
  date: t.String(),
  open: NumOrNull,
  close: t.Number(),
  high: NumOrNull,
  low: NumOrNull,
  volume: NumOrNull,
});

const SymbolFiling = t.Object({
  accession_number: t.String(),
  cik: t.String(),
  form_type: t.String(),
  filing_date: t.String(),
  report_date: StrOrNull,
  acceptance_date_time: StrOrNull,
  primary_document: StrOrNull,
  description: StrOrNull,
  filing_url: t.String(),
});

const symbolParam = t.Object({ symbol: Params.ticker("symbol") });

/** Built once per security and snapshot, then served as stored. */
const profile = defineRoute({
  path: "/stocks/:symbol/profile",
  endpoint: "profile",
  fastPath: true,
  params: symbolParam,
  response: Profile,
  summary: "Company profile",
  description: "Identity and general profile from SEC submissions and listings.",
  handler({ snapshot, params }) {
    const security = resolveSecurity(snapshot, params.symbol);
    return snapshot.body("profile", security.security_id, () => {
      const company = security.cik ? (snapshot.companies.get(security.cik) ?? null) : null;
      return JSON.stringify(profileOf(security, company));
    });
  },
});

/** A window of the memory-mapped daily rows. */
const price = defineRoute({
  path: "/stocks/:symbol/price",
  endpoint: "price",
  fastPath: true,
  params: symbolParam,
  query: queryParams({
    start_date: Params.date("start_date", "first date, inclusive"),
    end_date: Params.date("end_date", "last date, inclusive; not later than today"),
  }),
  response: t.Array(PriceRow),
  csv: { row: PriceRow, rows: (body) => body },
  summary: "Daily prices",
  description:
    "Daily OHLCV rows in [start_date, end_date], ascending by date. Prices as imported (split-adjusted for Yahoo sources).",
  handler({ snapshot, params, query }) {
    const security = resolveSecurity(snapshot, params.symbol);
    const start = calendarDate(query.start_date, "start_date");
    const end = calendarDate(query.end_date, "end_date");
    if (end > todayUtc()) throw invalidParameter("query", "end_date", "must not be later than today");
    orderedRange(start, end, ["start_date", "end_date"]);
    if (!snapshot.prices.has(security.security_id)) {
      throw new ApiError("not_found", `no price data for ${security.ticker}`);
    }
    return snapshot.prices.window(security.security_id, start, end);
  },
});

const secfiling = defineRoute({
  path: "/stocks/:symbol/secfiling",
  endpoint: "secfiling",
  heavy: true,
  params: symbolParam,
  query: queryParams({
    form_type: Params.text("form_type", "form type, e.g. 10-K, 10-Q, 8-K, 4", 20, "10-K"),
    limit: Params.positiveInt("limit", "number of filings", 20, 1000),
  }),
  response: t.Object({ symbol: t.String(), form_type: t.String(), filings: t.Array(SymbolFiling) }),
  csv: { row: SymbolFiling, rows: (body) => body.filings },
  summary: "Filings of one company",
  description: "Filing metadata of one form type, newest first.",
  async handler({ snapshot, params, query }) {
    const security = resolveSecurity(snapshot, params.symbol);
    const filter = {
      cik: security.cik,
      form: query.form_type,
      accessionNumber: null,
      start: null,
      end: null,
    };
    const { rows } = security.cik ? await listFilings(snapshot, filter, 1, query.limit) : { rows: [] };
    // No filing of this form is an empty list; no filing at all is no data of the kind.
    if (rows.length === 0 && !(security.cik && (await hasFilings(snapshot, security.cik)))) {
      throw new ApiError("not_found", `no SEC filings for ${security.ticker}`);
    }
    // Forms match in any case; EDGAR writes them in capitals.
    return {
      symbol: security.ticker,
      form_type: query.form_type.toUpperCase(),
      filings: rows.map(symbolFiling),
    };
  },
});

function symbolFiling(f: FilingRow) {
  return {
    accession_number: f.accession_number,
    cik: f.cik,
    form_type: f.form,
    filing_date: f.filing_date,
    report_date: f.report_date,
    acceptance_date_time: f.acceptance_date_time,
    primary_document: f.primary_document,
    description: f.primary_doc_description,
    filing_url: filingUrl(f),
  };
}

/** /stocks/{symbol}/profile, /price and /secfiling. */
export const stocksRoutes = [profile, price, secfiling];
