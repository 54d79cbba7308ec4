import { daysBetween } from "../../domain/dates.ts";
import type { CompanyFacts } from "../sources/companyfacts.ts";
import type { SharesObservation, SplitEvent } from "./inputs.ts";
import { isPeriodicForm } from "./xbrl-scan.ts";

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

/** The statements' own weighted share counts, which a filing after a split restates for it. */
const WEIGHTED_COUNTS = [
  "WeightedAverageNumberOfDilutedSharesOutstanding",
  "WeightedAverageNumberOfSharesOutstandingBasic",
  "WeightedAverageNumberOfShareOutstandingBasicAndDiluted",
];

/** A split shown by one restated period: after the earlier filing, by the later one. */
interface Restated {
  ratio: number;
  after: string;
  by: string;
}

/**
 * Splits shown by restated comparatives: a periodic report that gives a period's weighted
 * share count n× (or 1/n×) what an earlier report gave for the same period restated it for an
 * n-for-1 split between the two filings. This finds splits from before cover pages carried
 * share counts, and splits whose cover-page counts are missing. All periods restated for one
 * split narrow it to after the latest old-basis filing and by the earliest new-basis one; the
 * split is dated at that filing (the first known to be on the new basis).
 */
export function splitsFromRestatements(company: CompanyFacts): SplitEvent[] {
  const evidence: Restated[] = [];
  for (const concept of WEIGHTED_COUNTS) {
    const facts = company.facts.get("us-gaap")?.get(concept)?.get("shares") ?? [];
    const byPeriod = new Map<string, { filed: string; value: number }[]>();
    for (const f of facts) {
      if (!isPeriodicForm(f.form) || f.start === null || f.val <= 0) continue;
      const key = `${f.start}|${f.end}`;
      const list = byPeriod.get(key) ?? [];
      list.push({ filed: f.filed, value: f.val });
      byPeriod.set(key, list);
    }
    for (const reports of byPeriod.values()) {
      reports.sort((a, b) => a.filed.localeCompare(b.filed));
      for (let i = 1; i < reports.length; i++) {
        const before = reports[i - 1] as { filed: string; value: number };
        const after = reports[i] as { filed: string; value: number };
        if (after.filed === before.filed) continue;
        const ratio = splitRatio(after.value / before.value);
        if (ratio !== null) evidence.push({ ratio, after: before.filed, by: after.filed });
      }
    }
  }
  evidence.sort((a, b) => a.by.localeCompare(b.by));
  const splits: (SplitEvent & { after: string })[] = [];
  for (const e of evidence) {
    // The same split seen in another period: the intervals of one split overlap.
    const same = splits.find((s) => s.ratio === e.ratio && e.after < s.date && s.after < e.by);
    if (same === undefined) splits.push({ date: e.by, ratio: e.ratio, after: e.after });
    else {
      if (e.after > same.after) same.after = e.after;
      if (e.by < same.date) same.date = e.by;
    }
  }
  return splits.map(({ date, ratio }) => ({ date, ratio }));
}

/** Days within which two signals of the same ratio are one split (a count reported a quarter late, a filing after it). */
const SAME_SPLIT_DAYS = 400;

/**
 * One list of a company's splits from several signals: events of the same ratio within
 * SAME_SPLIT_DAYS are one split, dated at the earliest signal (each signal is a date by which
 * the split had happened).
 */
export function mergeSplits(...signals: readonly (readonly SplitEvent[])[]): SplitEvent[] {
  const all = signals.flat().sort((a, b) => a.date.localeCompare(b.date));
  const out: SplitEvent[] = [];
  for (const event of all) {
    const same = out.find(
      (s) =>
        Math.abs(s.ratio / event.ratio - 1) < 1e-9 &&
        Math.abs(daysBetween(s.date, event.date)) <= SAME_SPLIT_DAYS,
    );
    if (same === undefined) out.push({ ...event });
  }
  return out;
}
