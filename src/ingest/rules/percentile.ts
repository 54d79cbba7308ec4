/**
 * Trailing percentile ranks over a monthly series. The rank of a value is the fraction of
 * the valid (non-null) values in its window that are ≤ it, the value itself included, so it
 * lies in (0, 1]; 1 means the highest in the window.
 */
import { monthIndex } from "../../domain/dates.ts";

/** Fewest valid values in a window for a rank to be given. */
const MIN_PERCENTILE_VALUES = 12;

/** Fraction of the non-null `window` values that are ≤ `value`; null when too few or value is null. */
export function percentileRank(
  value: number | null,
  window: readonly (number | null)[],
  minCount: number = MIN_PERCENTILE_VALUES,
): number | null {
  if (value === null) return null;
  let valid = 0;
  let atOrBelow = 0;
  for (const v of window) {
    if (v === null) continue;
    valid++;
    if (v <= value) atOrBelow++;
  }
  return valid < minCount || valid === 0 ? null : atOrBelow / valid;
}

/**
 * For each point, its percentile rank within the points of the trailing `months` calendar
 * months ending with its own month (dates ascending, one point per month). The window start
 * only moves forward, so the cost is O(points × window).
 */
export function trailingPercentiles(
  dates: readonly string[],
  values: readonly (number | null)[],
  months: number,
  minCount: number = MIN_PERCENTILE_VALUES,
): (number | null)[] {
  const ranks: (number | null)[] = [];
  let start = 0;
  for (let i = 0; i < dates.length; i++) {
    const current = monthIndex(dates[i] ?? "");
    while (start < i && monthIndex(dates[start] ?? "") <= current - months) start++;
    ranks.push(percentileRank(values[i] ?? null, values.slice(start, i + 1), minCount));
  }
  return ranks;
}
