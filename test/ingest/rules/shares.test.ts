/**
 * Share-basis conversion (src/ingest/rules/shares.ts): values reported on the basis of
 * their own date are put on one target basis, forward across splits up to the target date
 * and backward across splits after it.
 */
import { describe, expect, test } from "bun:test";
import {
  NO_SPLITS,
  perShareOnBasis,
  type ShareBasis,
  sharesOnBasis,
  splitFactor,
} from "../../../src/ingest/rules/shares.ts";

/** A 4-for-1 split on 2021-07-20 and a 10-for-1 on 2024-06-10; the closes end 2024-03-08. */
const SPLITS = [
  { date: "2021-07-20", ratio: 4 },
  { date: "2024-06-10", ratio: 10 },
];
const PRICE_BASIS: ShareBasis = { splits: SPLITS, date: "2024-03-08" };

describe("splitFactor", () => {
  test("a date before the target: the splits in (date, target] multiply", () => {
    expect(splitFactor(PRICE_BASIS, "2021-02-26")).toBe(4); // only the 4-for-1
    expect(splitFactor(PRICE_BASIS, "2021-07-19")).toBe(4);
    expect(splitFactor(PRICE_BASIS, "2021-07-20")).toBe(1); // on the split date: new basis
    expect(splitFactor(PRICE_BASIS, "2023-02-24")).toBe(1);
  });
  test("a date after the target: the splits in (target, date] divide", () => {
    expect(splitFactor(PRICE_BASIS, "2024-06-09")).toBe(1);
    expect(splitFactor(PRICE_BASIS, "2024-06-10")).toBe(1 / 10);
    expect(splitFactor(PRICE_BASIS, "2026-02-25")).toBe(1 / 10);
  });
  test("a target on a split date is on its post-split basis", () => {
    const basis = { splits: SPLITS, date: "2024-06-10" };
    expect(splitFactor(basis, "2024-06-09")).toBe(10);
    expect(splitFactor(basis, "2024-06-10")).toBe(1);
    expect(splitFactor(basis, "2024-06-11")).toBe(1);
  });
  test("no target date: the basis after every split", () => {
    const latest = { splits: SPLITS, date: null };
    expect(splitFactor(latest, "2021-02-26")).toBe(40);
    expect(splitFactor(latest, "2023-02-24")).toBe(10);
    expect(splitFactor(latest, "2026-02-25")).toBe(1);
  });
  test("reverse splits, unusable ratios and no splits", () => {
    const reverse = { splits: [{ date: "2023-05-01", ratio: 1 / 10 }], date: "2023-01-31" };
    expect(splitFactor(reverse, "2023-06-30")).toBeCloseTo(10, 12); // 1-for-10 undone
    const broken = { splits: [{ date: "2023-05-01", ratio: 0 }], date: null };
    expect(splitFactor(broken, "2023-01-31")).toBe(1);
    expect(splitFactor(NO_SPLITS, "2023-01-31")).toBe(1);
  });
});

describe("sharesOnBasis and perShareOnBasis", () => {
  test("share counts multiply by the factor, per-share amounts divide by it", () => {
    // Filed 2021-02-26 (before the 4-for-1): 628 shares, EPS 6.90 → 2512 shares, EPS 1.725.
    expect(sharesOnBasis(628, "2021-02-26", PRICE_BASIS)).toBe(2512);
    expect(perShareOnBasis(6.9, "2021-02-26", PRICE_BASIS)).toBeCloseTo(1.725, 12);
    // Filed 2026-02-25 (after the 10-for-1 the closes predate): 24,514 shares, EPS 4.90 → 2451.4, 49.
    expect(sharesOnBasis(24_514, "2026-02-25", PRICE_BASIS)).toBeCloseTo(2451.4, 9);
    expect(perShareOnBasis(4.9, "2026-02-25", PRICE_BASIS)).toBeCloseTo(49, 12);
  });
  test("null stays null", () => {
    expect(sharesOnBasis(null, "2026-02-25", PRICE_BASIS)).toBeNull();
    expect(perShareOnBasis(null, "2026-02-25", PRICE_BASIS)).toBeNull();
  });
});
