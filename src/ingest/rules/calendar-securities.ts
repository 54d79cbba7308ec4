/** Which earnings calendar rows the snapshot keeps, and how they are tied to its securities. */
import { tickerKey } from "../../domain/tickers.ts";
import type { CalendarRow } from "../../snapshot/documents.ts";
import type { SecurityRow } from "../../snapshot/rows.ts";

/**
 * Each calendar row keyed to the security of its ticker (by ticker key): that security's id,
 * else the ticker key itself (a calendar may name a ticker no listing has); its CIK is the
 * row's own when the source gave one, else the security's (from EDGAR), else null. Rows keep
 * their order; none is dropped.
 */
export function calendarRowsOfSecurities(
  rows: readonly CalendarRow[],
  securities: ReadonlyMap<string, Pick<SecurityRow, "security_id" | "cik">>,
): (CalendarRow & { security_id: string })[] {
  return rows.map((row) => {
    const security = securities.get(tickerKey(row.ticker));
    return {
      ...row,
      security_id: security?.security_id ?? tickerKey(row.ticker),
      cik: row.cik ?? security?.cik ?? null,
    };
  });
}

/**
 * One row per ticker (by ticker key) and date: of rows naming the same ticker and date, the
 * last one read (a later file, a newer calendar) is kept, where the first stood.
 */
export function latestCalendarRows(rows: readonly CalendarRow[]): CalendarRow[] {
  const byKey = new Map<string, CalendarRow>();
  for (const row of rows) byKey.set(`${tickerKey(row.ticker)}|${row.earning_date}`, row);
  return [...byKey.values()];
}
