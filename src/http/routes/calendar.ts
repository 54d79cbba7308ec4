import { t } from "elysia";
import { normalizeCik } from "../../domain/tickers.ts";
import { invalidParameter } from "../../errors.ts";
import { getEarningsCalendar } from "../../query/calendar.ts";
import type { LoadedSnapshot } from "../../query/snapshot.ts";
import type { Call } from "../context.ts";
import { CalendarRow } from "../models/documents.ts";
import { calendarDate, orderedRange, Params, queryParams, resolveSecurity } from "../params.ts";
import { defineRoute } from "../route.ts";

/** GET /calendar/earnings: filters combine; rows by date, a page at a time. */
const earningsCalendar = defineRoute({
  path: "/calendar/earnings",
  endpoint: "calendar",
  heavy: true,
  query: queryParams({
    ticker: t.Optional(Params.ticker("ticker")),
    cik: t.Optional(Params.cik("cik")),
    start: t.Optional(Params.date("start", "first earnings date, inclusive")),
    end: t.Optional(Params.date("end", "last earnings date, inclusive")),
    page: Params.positiveInt("page", "page number", 1, 100_000),
    per_page: Params.positiveInt("per_page", "rows per page", 1000, 10_000),
  }),
  response: t.Array(CalendarRow),
  csv: { row: CalendarRow, rows: (body) => body },
  summary: "Earnings calendar",
  description:
    "Imported earnings dates with EPS forecast, actual and surprise (actual − forecast), by date then ticker. " +
    "Without any filter, the upcoming dates: from the snapshot's data date (`data_as_of` of /health) on, so " +
    "that an answer pinned to a snapshot stays the same. The body is the page's rows; `X-Total-Count` says " +
    'how many match, and `Link` names the next and previous pages (rel="next", rel="prev").',
  async handler({ snapshot, query, call }) {
    const cik = query.cik === undefined ? null : normalizeCik(query.cik);
    if (query.cik !== undefined && cik === null)
      throw invalidParameter("query", "cik", "must be 1 to 10 digits");
    const start = query.start ? calendarDate(query.start, "start") : null;
    const end = query.end ? calendarDate(query.end, "end") : null;
    orderedRange(start, end, ["start", "end"]);
    const securityId =
      query.ticker === undefined ? null : resolveSecurity(snapshot, query.ticker).security_id;
    const unfiltered = query.ticker === undefined && query.cik === undefined && !start && !end;
    const filter = { securityId, cik, start: unfiltered ? dataDate(snapshot) : start, end };
    const { rows, total } = await getEarningsCalendar(snapshot, filter, query.page, query.per_page);
    pageHeaders(call, query.page, query.per_page, total);
    return rows;
  },
});

/** The snapshot's data date: its last price date, else the day it was made. */
function dataDate(snapshot: LoadedSnapshot): string {
  return snapshot.manifest.data_as_of ?? snapshot.manifest.created_at.slice(0, 10);
}

/** `X-Total-Count`, and a `Link` to the neighbouring pages (the request's own query, another page). */
function pageHeaders(call: Call, page: number, perPage: number, total: number): void {
  call.headers["x-total-count"] = String(total);
  const to = (n: number) => {
    const params = new URLSearchParams(call.url.search);
    params.set("page", String(n));
    return `<${call.url.pathname}?${params}>`;
  };
  const links = [
    ...(page * perPage < total ? [`${to(page + 1)}; rel="next"`] : []),
    ...(page > 1 ? [`${to(Math.min(page - 1, Math.max(1, Math.ceil(total / perPage))))}; rel="prev"`] : []),
  ];
  if (links.length > 0) call.headers.link = links.join(", ");
}

export const calendarRoutes = [earningsCalendar];
