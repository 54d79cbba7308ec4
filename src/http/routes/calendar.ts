import { t } from "elysia";
import { normalizeCik } from "../../domain/tickers.ts";
import { invalidParameter } from "../../errors.ts";
import { getEarningsCalendar } from "../../query/calendar.ts";
import { CalendarRow } from "../models/documents.ts";
import { calendarDate, orderedRange, Params, queryParams, resolveSecurity } from "../params.ts";
import { defineRoute } from "../route.ts";

/** GET /calendar/earnings: filters combine; rows by date. */
const earningsCalendar = defineRoute({
  path: "/calendar/earnings",
  endpoint: "calendar",
  heavy: true,
  query: queryParams({
    ticker: t.Optional(Params.ticker("ticker")),
    cik: t.Optional(Params.cik("cik")),
    start: t.Optional(Params.date("start", "first earnings date, inclusive")),
    end: t.Optional(Params.date("end", "last earnings date, inclusive")),
    limit: Params.positiveInt("limit", "number of rows", 1000, 10_000),
  }),
  response: t.Array(CalendarRow),
  csv: { row: CalendarRow, rows: (body) => body },
  summary: "Earnings calendar",
  description:
    "Imported earnings dates with EPS forecast, actual and surprise (actual − forecast), sorted by date.",
  handler({ snapshot, query }) {
    const cik = query.cik === undefined ? null : normalizeCik(query.cik);
    if (query.cik !== undefined && cik === null)
      throw invalidParameter("query", "cik", "must be 1 to 10 digits");
    const start = query.start ? calendarDate(query.start, "start") : null;
    const end = query.end ? calendarDate(query.end, "end") : null;
    orderedRange(start, end, ["start", "end"]);
    const securityId =
      query.ticker === undefined ? null : resolveSecurity(snapshot, query.ticker).security_id;
    return getEarningsCalendar(snapshot, { securityId, cik, start, end }, query.limit);
  },
});

export const calendarRoutes = [earningsCalendar];
