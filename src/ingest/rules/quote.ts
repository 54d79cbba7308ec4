import { addDays } from "../../domain/dates.ts";
import type { QuoteRow } from "../../domain/quote.ts";
import { decimalSum } from "../../domain/ratios.ts";
import type { PriceRow } from "../sources/price-rows.ts";

/**
 * The quote as of the last row of an ascending price series: change against the previous
 * session's close (change_percent as a fraction), and the 52-week range over sessions in
 * the 365 days up to and including the last date (highs and lows, closes where a source has
 * only closes). Null for an empty series.
 */
export function computeQuote(securityId: string, rows: readonly PriceRow[]): QuoteRow | null {
  const last = rows.at(-1);
  if (!last) return null;
  const previous = rows.at(-2) ?? null;
  const since = addDays(last.date, -365);
  let high = Number.NEGATIVE_INFINITY;
  let low = Number.POSITIVE_INFINITY;
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i] as PriceRow;
    if (row.date <= since) break;
    high = Math.max(high, row.high ?? row.close);
    low = Math.min(low, row.low ?? row.close);
  }
  const change = previous ? decimalSum([last.close, -previous.close]) : null;
  return {
    security_id: securityId,
    date: last.date,
    open: last.open,
    high: last.high,
    low: last.low,
    close: last.close,
    volume: last.volume,
    previous_close: previous?.close ?? null,
    change,
    change_percent: previous && change !== null ? change / previous.close : null,
    fifty_two_week_high: high,
    fifty_two_week_low: low,
  };
}
