import { describe, expect, test } from "bun:test";
import { percentileRank, trailingPercentiles } from "../../../src/ingest/rules/percentile.ts";

describe("percentile rank", () => {
  test("is the fraction of valid window values ≤ the value, itself included", () => {
    // window 1, 2, 3, 4 and value 3 → three values ≤ 3 out of four
    expect(percentileRank(3, [1, 2, 3, 4], 1)).toBe(0.75);
    expect(percentileRank(4, [4, 4], 1)).toBe(1); // ties count as ≤
  });
  test("is null with fewer than 12 valid values by default, or for a null value", () => {
    expect(
      percentileRank(
        5,
        Array.from({ length: 11 }, (_, i) => i),
      ),
    ).toBeNull();
    expect(percentileRank(5, [...Array.from({ length: 11 }, (_, i) => i), null, 5])).toBeCloseTo(7 / 12, 12);
    expect(percentileRank(null, [1, 2, 3], 1)).toBeNull();
  });
});

describe("trailing percentiles", () => {
  test("windows are calendar months, so a gap in the series shortens the window", () => {
    const dates = ["2024-01-31", "2024-02-29", "2024-03-29", "2024-04-30", "2024-08-30"];
    const values = [1, 4, 2, 3, 9];
    // 3-month windows, at least one value:
    // Jan [1] → 1; Feb [1,4] → 2/2; Mar [1,4,2] → 2/3; Apr [4,2,3] → 2/3; Aug [9] (Jun–Aug) → 1
    expect(trailingPercentiles(dates, values, 3, 1)).toEqual([1, 1, 2 / 3, 2 / 3, 1]);
  });
  test("null values are skipped and stay null", () => {
    expect(trailingPercentiles(["2024-01-31", "2024-02-29"], [null, 2], 3, 1)).toEqual([null, 1]);
  });
});
