import type { CalendarRow } from "../snapshot/documents.ts";
import type { LoadedSnapshot } from "./snapshot.ts";

/** A calendar row as served: as stored. */
export type CalendarEntry = CalendarRow;

export interface CalendarFilter {
  securityId: string | null;
  cik: string | null;
  start: string | null;
  end: string | null;
}

const MATCHING = `FROM earnings_calendar
  WHERE ($security IS NULL OR security_id = $security)
    AND ($cik IS NULL OR cik = $cik)
    AND ($start IS NULL OR earning_date >= CAST($start AS DATE))
    AND ($end IS NULL OR earning_date <= CAST($end AS DATE))`;

// The count of every matching row rides on each row of the page (a window before the LIMIT).
const CALENDAR = `SELECT cik, ticker, earning_date, earning_time, eps_forecast, eps_actual, eps_surprise,
    no_of_estimates, fiscal_quarter_ending, currency, count(*) OVER ()::INTEGER AS total
  ${MATCHING}
  ORDER BY earning_date, ticker
  LIMIT $limit OFFSET $offset`;

const COUNT = `SELECT count(*)::INTEGER AS n ${MATCHING}`;

/** One page of the calendar rows matching every given filter, by date then ticker, and how many match. */
export async function getEarningsCalendar(
  snapshot: LoadedSnapshot,
  filter: CalendarFilter,
  page: number,
  perPage: number,
): Promise<{ rows: CalendarEntry[]; total: number }> {
  if (!snapshot.has("earnings_calendar")) return { rows: [], total: 0 };
  const params = { security: filter.securityId, cik: filter.cik, start: filter.start, end: filter.end };
  const found = await snapshot.all<CalendarEntry & { total: number }>(CALENDAR, {
    ...params,
    limit: perPage,
    offset: (page - 1) * perPage,
  });
  const first = found[0];
  const rows = found.map(({ total: _, ...row }) => row);
  if (first) return { rows, total: first.total };
  // A page past the end has no row to carry the count.
  const count = page > 1 ? await snapshot.all<{ n: number }>(COUNT, params) : [];
  return { rows, total: count[0]?.n ?? 0 };
}
