import type { SharesObservation, SplitEvent } from "./inputs.ts";

/** Split ratios seen in practice, forward (n-for-1) and, inverted, reverse. */
const RATIOS = [2, 3, 4, 5, 6, 7, 8, 10, 15, 20, 25, 30, 40, 50, 100];
/** How close a share-count jump must be to a split ratio (buybacks and issuance blur it). */
const TOLERANCE = 0.06;

/**
 * Stock splits inferred from jumps in the reported shares outstanding, for sources (Yahoo
 * prices) whose closes are split-adjusted while SEC share counts are not. A jump between
 * consecutive observations to within 6% of n× (or 1/n×) is a split of that ratio, dated at
 * the later observation (the split happened in between; the earlier observation is the last
 * one known to be on the old basis). Explicit split events, where a source has them, should
 * be preferred.
 */
export function inferSplits(shares: readonly SharesObservation[]): SplitEvent[] {
  const sorted = [...shares].filter((s) => s.value > 0).sort((a, b) => a.date.localeCompare(b.date));
  const splits: SplitEvent[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const before = sorted[i - 1] as SharesObservation;
    const after = sorted[i] as SharesObservation;
    const ratio = splitRatio(after.value / before.value);
    if (ratio !== null) splits.push({ date: after.date, ratio });
  }
  return splits;
}

/** The split ratio a share-count change matches, or null. */
export function splitRatio(change: number): number | null {
  if (!Number.isFinite(change) || change <= 0) return null;
  const forward = change >= 1;
  const magnitude = forward ? change : 1 / change;
  const n = RATIOS.find((r) => Math.abs(magnitude / r - 1) <= TOLERANCE);
  if (n === undefined) return null;
  return forward ? n : 1 / n;
}
