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

const CALENDAR = `SELECT cik, ticker, earning_date, earning_time, eps_forecast, eps_actual, eps_surprise,
    no_of_estimates, fiscal_quarter_ending, currency
  FROM earnings_calendar
  WHERE ($security IS NULL OR security_id = $security)
    AND ($cik IS NULL OR cik = $cik)
    AND ($start IS NULL OR earning_date >= CAST($start AS DATE))
    AND ($end IS NULL OR earning_date <= CAST($end AS DATE))
  ORDER BY earning_date, ticker
  LIMIT $limit`;

/** Calendar rows matching every given filter, by date. */
export function getEarningsCalendar(snapshot: LoadedSnapshot, filter: CalendarFilter, limit: number) {
  if (!snapshot.has("earnings_calendar")) return Promise.resolve([] as CalendarEntry[]);
  const { securityId, cik, start, end } = filter;
  return snapshot.all<CalendarEntry>(CALENDAR, { security: securityId, cik, start, end, limit });
}
