/**
 * Share-count basis. Prices (Yahoo/Stooq `Close`) and dividend amounts are adjusted to the
 * current share basis, while share counts and per-share figures are reported on the basis of
 * their own date. Converting them with the splits that happened later keeps
 * price × shares = market cap true at every date. Without split events every value is taken
 * as already on the current basis (docs/methodology.md, "Prices and share basis").
 */
import { finiteOrNull } from "../../domain/ratios.ts";
import type { SplitEvent } from "./inputs.ts";

/** Product of the ratios of the splits effective after `date` (1 when none). */
export function splitFactorAfter(splits: readonly SplitEvent[], date: string): number {
  let factor = 1;
  for (const split of splits) {
    if (split.date > date && Number.isFinite(split.ratio) && split.ratio > 0) factor *= split.ratio;
  }
  return factor;
}

/** A share count reported on the basis of `basisDate`, on today's basis. */
export function sharesOnCurrentBasis(
  shares: number | null,
  basisDate: string,
  splits: readonly SplitEvent[],
): number | null {
  return shares === null ? null : finiteOrNull(shares * splitFactorAfter(splits, basisDate));
}

/** A per-share amount reported on the basis of `basisDate`, on today's basis. */
export function perShareOnCurrentBasis(
  amount: number | null,
  basisDate: string,
  splits: readonly SplitEvent[],
): number | null {
  return amount === null ? null : finiteOrNull(amount / splitFactorAfter(splits, basisDate));
}
