/**
 * Safe arithmetic for derived figures. Every helper returns `null` instead of 0, NaN or
 * Infinity when a value cannot be computed (spec: a value that cannot be computed is null),
 * so formulas can be written without guarding each division.
 */

/** Floating-point noise of sums and differences removed (0.1 + 0.2 → 0.3, 3.072000…05 → 3.072). */
export function tidy(x: number): number {
  return Number.isInteger(x) ? x : Number(x.toPrecision(15));
}

/** The decimals a number is written with (170.729996 → 6), at most 12. */
function decimalsOf(x: number): number {
  const text = String(x);
  if (text.includes("e")) return 12;
  const point = text.indexOf(".");
  return point < 0 ? 0 : Math.min(12, text.length - point - 1);
}

/**
 * The sum of decimal amounts (negate one for a difference) with the decimals they are written
 * with, so no binary noise: 170.729996 − 169 = 1.729996, not 1.7299959999999999.
 */
export function decimalSum(values: readonly number[]): number {
  let sum = 0;
  let decimals = 0;
  for (const v of values) {
    sum += v;
    decimals = Math.max(decimals, decimalsOf(v));
  }
  return Number(sum.toFixed(decimals));
}

/** `x` when it is a finite number, else null. */
export function finiteOrNull(x: number | null | undefined): number | null {
  return typeof x === "number" && Number.isFinite(x) ? x : null;
}

/** n / d; null when either is missing, d is 0, or the result is not finite. */
export function ratio(n: number | null | undefined, d: number | null | undefined): number | null {
  const num = finiteOrNull(n);
  const den = finiteOrNull(d);
  if (num === null || den === null || den === 0) return null;
  return finiteOrNull(num / den);
}

/** n / d where only a strictly positive denominator is meaningful (equity, revenue, EBITDA, ...). */
export function ratioOverPositive(n: number | null | undefined, d: number | null | undefined): number | null {
  const den = finiteOrNull(d);
  return den === null || den <= 0 ? null : ratio(n, den);
}

/** One-period change end / start − 1; null when the base is missing or ≤ 0. */
export function growthRate(start: number | null | undefined, end: number | null | undefined): number | null {
  const s = finiteOrNull(start);
  const e = finiteOrNull(end);
  if (s === null || e === null || s <= 0) return null;
  return finiteOrNull(e / s - 1);
}

/**
 * Compound annual growth rate (end / start)^(1 / years) − 1. Null when the start is missing
 * or ≤ 0, the end is missing or < 0 (no real root), or years ≤ 0.
 */
export function cagr(
  start: number | null | undefined,
  end: number | null | undefined,
  years: number,
): number | null {
  const s = finiteOrNull(start);
  const e = finiteOrNull(end);
  if (s === null || e === null || s <= 0 || e < 0 || !(years > 0)) return null;
  return finiteOrNull((e / s) ** (1 / years) - 1);
}

/**
 * Average of a balance at period end and one year earlier; the ending balance alone when
 * the earlier one is missing; null when the ending balance is missing.
 */
export function averageBalance(
  ending: number | null | undefined,
  earlier: number | null | undefined,
): number | null {
  const e = finiteOrNull(ending);
  if (e === null) return null;
  const b = finiteOrNull(earlier);
  return b === null ? e : (e + b) / 2;
}

/** Magnitude of a cash-flow amount (outflows are stored negative); null stays null. */
export function magnitude(x: number | null | undefined): number | null {
  const v = finiteOrNull(x);
  return v === null ? null : Math.abs(v);
}

/** Sum of the present values, missing ones counting as 0; null when all are missing. */
export function sumPresent(...values: Array<number | null | undefined>): number | null {
  let total: number | null = null;
  for (const value of values) {
    const v = finiteOrNull(value);
    if (v !== null) total = (total ?? 0) + v;
  }
  return total;
}

/** a − b where a missing side counts as 0; null when both are missing. */
export function differencePresent(a: number | null | undefined, b: number | null | undefined): number | null {
  const x = finiteOrNull(a);
  const y = finiteOrNull(b);
  if (x === null && y === null) return null;
  return (x ?? 0) - (y ?? 0);
}

/** a − b; null when either side is missing. */
export function difference(a: number | null | undefined, b: number | null | undefined): number | null {
  const x = finiteOrNull(a);
  const y = finiteOrNull(b);
  return x === null || y === null ? null : finiteOrNull(x - y);
}
