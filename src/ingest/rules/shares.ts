/**
 * Share-count basis. Prices (Yahoo/Stooq `Close`) and dividend amounts are adjusted to the
 * share basis of the day the price file was made (its last row), while share counts and
 * per-share figures are reported on the basis of their own date, which may be before or
 * after that day. Converting every value to the one basis of the closes keeps
 * price × shares = market cap true at every date (docs/methodology.md, "Prices and share
 * basis").
 */
import { finiteOrNull } from "../../domain/ratios.ts";
import type { SplitEvent } from "./inputs.ts";

/**
 * The share basis values are converted to: the one in effect on `date`, given every split of
 * the company. A value dated on a split's date is on the post-split basis.
 */
export interface ShareBasis {
  splits: readonly SplitEvent[];
  /** The last price date (the closes' basis); null without prices: the basis after every split. */
  date: string | null;
}

/**
 * The date to convert statement per-share amounts and average share counts from: the
 * statements carry them on the basis after every split of the company (statements.ts).
 */
export const AFTER_EVERY_SPLIT = "9999-12-31";

/** No known split: every value is taken as already on the target basis. */
export const NO_SPLITS: ShareBasis = { splits: [], date: null };

/**
 * Factor that puts a share count on the basis of `from` onto `basis`: the product of the
 * ratios of the splits in (from, basis.date] when `from` is earlier, its inverse over the
 * splits in (basis.date, from] when `from` is later (a count filed after a split the closes
 * do not reflect yet); 1 when no split lies between.
 */
export function splitFactor(basis: ShareBasis, from: string): number {
  const to = basis.date;
  let factor = 1;
  for (const split of basis.splits) {
    if (!Number.isFinite(split.ratio) || split.ratio <= 0) continue;
    if (split.date > from && (to === null || split.date <= to)) factor *= split.ratio;
    else if (to !== null && split.date > to && split.date <= from) factor /= split.ratio;
  }
  return factor;
}

/** A share count reported on the basis of `from`, on `basis`. */
export function sharesOnBasis(shares: number | null, from: string, basis: ShareBasis): number | null {
  return shares === null ? null : finiteOrNull(shares * splitFactor(basis, from));
}

/** A per-share amount reported on the basis of `from`, on `basis`. */
export function perShareOnBasis(amount: number | null, from: string, basis: ShareBasis): number | null {
  return amount === null ? null : finiteOrNull(amount / splitFactor(basis, from));
}
