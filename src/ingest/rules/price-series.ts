/** Selections over a daily price series (ascending by date, split-adjusted closes). */
import type { PriceBar } from "./inputs.ts";

/** Valid bars (finite close > 0), ascending by date. */
export function validPrices(prices: readonly PriceBar[]): PriceBar[] {
  return prices
    .filter((p) => Number.isFinite(p.close) && p.close > 0)
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

/**
 * The last trading day of each month present in the series (the final bar closes the last,
 * possibly partial, month). Expects ascending input.
 */
export function monthEndPrices(prices: readonly PriceBar[]): PriceBar[] {
  const ends: PriceBar[] = [];
  for (let i = 0; i < prices.length; i++) {
    const bar = prices[i];
    const next = prices[i + 1];
    if (bar !== undefined && (next === undefined || next.date.slice(0, 7) !== bar.date.slice(0, 7))) {
      ends.push(bar);
    }
  }
  return ends;
}

/** The last bar dated on or before `date` (binary search over ascending input). */
export function lastPriceOnOrBefore(prices: readonly PriceBar[], date: string): PriceBar | null {
  let [lo, hi] = [0, prices.length - 1];
  let found: PriceBar | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const bar = prices[mid];
    if (bar === undefined) break;
    if (bar.date <= date) {
      found = bar;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}
