/** How earnings calendar rows are tied to the securities of the snapshot. */
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
