import { describe, expect, test } from "bun:test";
import {
  averageBalance,
  cagr,
  difference,
  differencePresent,
  growthRate,
  magnitude,
  ratio,
  ratioOverPositive,
  sumPresent,
} from "../../../src/domain/ratios.ts";

describe("ratio", () => {
  test("divides finite numbers", () => {
    expect(ratio(6, 3)).toBe(2); // 6 / 3 = 2
  });
  test("is null for a missing side, a zero denominator or a non-finite result", () => {
    expect(ratio(null, 2)).toBeNull();
    expect(ratio(2, null)).toBeNull();
    expect(ratio(1, 0)).toBeNull();
    expect(ratio(1e308, 1e-308)).toBeNull(); // 1e616 overflows to Infinity
    expect(ratio(Number.NaN, 1)).toBeNull();
  });
  test("ratioOverPositive rejects a denominator ≤ 0", () => {
    expect(ratioOverPositive(5, 2)).toBe(2.5); // 5 / 2
    expect(ratioOverPositive(5, -2)).toBeNull();
    expect(ratioOverPositive(-5, 2)).toBe(-2.5); // a negative numerator is allowed
  });
});

describe("growthRate", () => {
  test("is end / start − 1", () => {
    expect(growthRate(100, 110)).toBeCloseTo(0.1, 12); // 110 / 100 − 1 = 0.10
    expect(growthRate(100, -50)).toBeCloseTo(-1.5, 12); // −50 / 100 − 1 = −1.5
  });
  test("is null when the base is ≤ 0 or missing", () => {
    expect(growthRate(0, 5)).toBeNull();
    expect(growthRate(-5, 5)).toBeNull();
    expect(growthRate(null, 5)).toBeNull();
  });
});

describe("cagr", () => {
  test("annualizes the growth", () => {
    expect(cagr(100, 121, 2)).toBeCloseTo(0.1, 12); // √(121/100) = 1.1 → 0.10
    expect(cagr(100, 0, 2)).toBe(-1); // (0/100)^(1/2) − 1 = −1 (a total loss)
  });
  test("is null for a non-positive start, a negative end or no years", () => {
    expect(cagr(0, 100, 3)).toBeNull();
    expect(cagr(-1, 100, 3)).toBeNull();
    expect(cagr(100, -1, 3)).toBeNull();
    expect(cagr(100, 200, 0)).toBeNull();
    expect(cagr(null, 200, 3)).toBeNull();
  });
});

describe("balance and sum helpers", () => {
  test("averageBalance averages two balances, else keeps the ending one", () => {
    expect(averageBalance(100, 50)).toBe(75); // (100 + 50) / 2
    expect(averageBalance(100, null)).toBe(100);
    expect(averageBalance(null, 50)).toBeNull();
  });
  test("magnitude, sums and differences treat null explicitly", () => {
    expect(magnitude(-3)).toBe(3);
    expect(magnitude(null)).toBeNull();
    expect(sumPresent(null, 2, 3)).toBe(5); // 2 + 3
    expect(sumPresent(null, undefined)).toBeNull();
    expect(differencePresent(null, 4)).toBe(-4); // 0 − 4
    expect(differencePresent(null, null)).toBeNull();
    expect(difference(10, null)).toBeNull();
    expect(difference(10, 4)).toBe(6);
  });
});
