import type { LoadedSnapshot } from "./snapshot.ts";

/** One daily row as served (spec §2.17). */
export interface DailyPrice {
  date: string;
  open: number | null;
  close: number;
  high: number | null;
  low: number | null;
  volume: number | null;
}

const DAILY_PRICES = `SELECT date, open, close, high, low, volume FROM prices
  WHERE security_id = $security AND date BETWEEN CAST($start AS DATE) AND CAST($end AS DATE)
  ORDER BY date`;

/** Daily rows of one security in [start, end], ascending by date. */
export function getDailyPrices(snapshot: LoadedSnapshot, securityId: string, start: string, end: string) {
  if (!snapshot.has("prices")) return Promise.resolve([] as DailyPrice[]);
  return snapshot.all<DailyPrice>(DAILY_PRICES, { security: securityId, start, end });
}
