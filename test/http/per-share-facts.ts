/**
 * Per-share figures rebuilt from raw companyfacts for the valuation tests (issue 19: P/E per
 * share), by the rules of docs/methodology.md, never by calling the code under test.
 */
import { daysBetween } from "../../src/domain/dates.ts";
import type { SecFact as Fact } from "../helpers/raw-companyfacts.ts";
import type { Split } from "../helpers/raw-sources.ts";
import { NET_INCOME, type RawFacts, splitFactorAfter } from "./derived-facts.ts";

/** Inclusive length of a duration fact in days. */
const daysOf = (f: Fact) => (f.start === undefined ? 0 : daysBetween(f.start, f.end) + 1);

/**
 * How many of the closes' shares one share reported on the basis of `from` is: × the splits
 * in (from, last price], ÷ the splits in (last price, from].
 */
export function sharesFactor(splits: readonly Split[], lastPrice: string, from: string): number {
  return from <= lastPrice
    ? splitFactorAfter(splits, from, lastPrice)
    : 1 / splitFactorAfter(splits, lastPrice, from);
}

/**
 * Diluted EPS of the TTM ending `end` on the basis of closes ending `lastPrice` (`splits`: every
 * split on record), by the statements' TTM rule: at a fiscal-year end the annual
 * EarningsPerShareDiluted fact (latest filed, on the basis of its filing date); else the TTM
 * net income available to common stockholders (else NetIncomeLoss: Tesla's 2020 is 690M
 * against 721M) over the mean of the quarters' three-month diluted average counts (at least
 * three of the four; a 10-K reports no fourth-quarter count), each count on the closes' basis.
 * Null when neither can be rebuilt.
 */
export function ttmDilutedEps(
  raw: RawFacts,
  splits: readonly Split[],
  lastPrice: string,
  end: string,
): number | null {
  const annual = raw.annual("EarningsPerShareDiluted", end, 0, "USD/shares");
  if (annual !== null) return annual.val / sharesFactor(splits, lastPrice, annual.filed);
  const common = "NetIncomeLossAvailableToCommonStockholdersBasic";
  const tagged = raw.all(common).some((f) => f.end <= end && daysBetween(f.end, end) < 365);
  // Where the filer tags the common figure in the window but not in a way the raw TTM rebuild
  // reads (Tesla's 2020 quarters have no first-half fact), no expected value is given.
  const ttm = raw.ttm([common], end) ?? (tagged ? null : raw.ttm(NET_INCOME, end));
  if (ttm === null) return null;
  const ends = [...new Set(ttm.parts.map((f) => f.end))].sort().slice(-4);
  const counts = ends.flatMap((e) => {
    const count = raw
      .all("WeightedAverageNumberOfDilutedSharesOutstanding", "shares")
      .filter((f) => f.end === e && daysOf(f) >= 80 && daysOf(f) <= 100)
      .sort((a, b) => a.filed.localeCompare(b.filed))
      .at(-1);
    return count ? [count.val * sharesFactor(splits, lastPrice, count.filed)] : [];
  });
  if (counts.length < 3) return null;
  return ttm.value / (counts.reduce((sum, c) => sum + c, 0) / counts.length);
}
