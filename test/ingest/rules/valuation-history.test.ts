import { describe, expect, test } from "bun:test";
import type { PriceBar } from "../../../src/ingest/rules/inputs.ts";
import {
  computeValuationHistory,
  computeValuationPoints,
} from "../../../src/ingest/rules/valuation-history.ts";
import { balance, cashFlow, income, statements } from "./builders.ts";

const prices: PriceBar[] = [
  { date: "2024-01-30", close: 10 },
  { date: "2024-01-31", close: 11 },
  { date: "2024-02-29", close: 12 },
  { date: "2024-03-28", close: 13 },
  { date: "2024-04-29", close: 14 },
  { date: "2024-04-30", close: 15 },
];

// FY2023 (net income 100) filed 2024-02-15; the TTM to 2024-03-31 (net income 200) filed 2024-04-25.
function company() {
  return statements({
    income_statement: [
      income("2024-03-31", { net_income: 200 }, { type: "ttm", first_filed: "2024-04-25" }),
      income("2023-12-31", { net_income: 100 }, { first_filed: "2024-02-15" }),
    ],
  });
}
const shares = [{ date: "2024-01-20", filed: "2024-02-15", value: 10 }];

describe("point-in-time valuation history", () => {
  const rows = computeValuationHistory({ statements: company(), prices, shares });

  test("one row per month end, starting when a market cap is known", () => {
    // January's month end (01-31) precedes every filing, so it has no market cap and no row.
    expect(rows.map((r) => r.date)).toEqual(["2024-02-29", "2024-03-28", "2024-04-30"]);
    expect(rows.map((r) => r.market_cap)).toEqual([120, 130, 150]); // close × 10 shares
  });
  test("a row never uses a period first filed after its date", () => {
    // 03-28: the TTM ending 03-31 was filed 04-25, so FY2023 applies: 130 / 100 = 1.3
    expect(rows[1]?.pe_ratio).toBeCloseTo(1.3, 12);
    expect(rows[0]?.pe_ratio).toBeCloseTo(1.2, 12); // 120 / 100
    expect(rows[2]?.pe_ratio).toBeCloseTo(0.75, 12); // 150 / 200 once the TTM is filed
  });
  test("the result does not depend on the input order of periods", () => {
    const s = company();
    const reversed = { ...s, income_statement: [...s.income_statement].reverse() };
    expect(computeValuationHistory({ statements: reversed, prices, shares })).toEqual(rows);
  });
  test("shares reported before a split are put on the split-adjusted price basis", () => {
    // 10 shares as of 2024-01-20, 2-for-1 split 2024-03-15 → 20 shares; Feb close (adjusted) 12 → 240
    const split = computeValuationHistory({
      statements: company(),
      prices,
      shares,
      basis: { splits: [{ date: "2024-03-15", ratio: 2 }], date: "2024-04-30" },
    });
    expect(split[0]?.market_cap).toBe(240);
  });
});

describe("stocks-family valuation points", () => {
  // 13 month ends (2023-01 … 2024-01), closes 10..110 then 35 and 65; 10 shares; net income 100
  // → P/E = close × 10 / 100 = close / 10. Everything is filed on 2024-01-05, before the last close.
  const closes = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 35, 65];
  const monthly: PriceBar[] = closes.map((close, i) => ({
    date: `${2023 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, "0")}-15`,
    close,
  }));
  const fundamentals = statements({
    income_statement: [
      income("2023-12-31", { net_income: 100, revenue: 260, ebitda: 65 }, { first_filed: "2024-01-05" }),
    ],
    cash_flow_statement: [
      cashFlow("2023-12-31", { total_free_cash_flow: 25 }, { first_filed: "2024-01-05" }),
    ],
    balance_sheet: [
      balance(
        "2023-12-31",
        { cash_and_cash_equivalents: 20, long_term_debt: 50, total_stockholders_equity: 200 },
        { first_filed: "2024-01-05" },
      ),
    ],
  });
  const result = computeValuationPoints({
    statements: fundamentals,
    prices: monthly,
    shares: [{ date: "2024-01-02", filed: "2024-01-05", value: 10 }],
    estimates: { eps_est_next_fy: 2 },
  });
  const first = result.points[0];

  test("applies today's fundamentals to every past close", () => {
    expect(result.points).toHaveLength(13);
    expect(result.calculation_version).toBe("valuation-points-2026.11.25");
    expect(first?.price).toBe(10);
    expect(first?.market_cap).toBe(100); // 10 × 10 shares, although the shares were filed later
    expect(first?.enterprise_value).toBe(130); // 100 + 50 debt − 20 cash
    expect(first?.pe).toBeCloseTo(1, 12); // 100 / 100
    expect(first?.forward_pe).toBeCloseTo(5, 12); // 10 / 2
    expect(first?.pb).toBeCloseTo(0.5, 12); // 100 / 200
    expect(first?.price_to_fcf).toBeCloseTo(4, 12); // 100 / 25
    expect(first?.ev_to_revenue).toBeCloseTo(0.5, 12); // 130 / 260
    expect(first?.ev_to_ebitda).toBeCloseTo(2, 12); // 130 / 65
    expect(first?.fcf_yield).toBeCloseTo(0.25, 12); // 25 / 100
    expect(first?.earnings_yield).toBeCloseTo(1, 12); // 100 / 100
  });
  test("percentiles are null below 12 valid values and in [0, 1] after", () => {
    const p3 = result.points.map((p) => p.valuation_percentile_3y);
    expect(p3.slice(0, 11)).toEqual(Array(11).fill(null));
    // month 12: P/E 3.5 among 1..11 and 3.5 → values ≤ 3.5 are 1, 2, 3, 3.5 → 4 / 12
    expect(p3[11]).toBeCloseTo(4 / 12, 12);
    // month 13: P/E 6.5 among 1..11, 3.5, 6.5 → 1..6, 3.5, 6.5 → 8 / 13
    expect(p3[12]).toBeCloseTo(8 / 13, 12);
    expect(result.points[12]?.valuation_percentile_10y).toBeCloseTo(8 / 13, 12);
  });
  test("non-positive earnings make P/E and its percentiles null", () => {
    const loss = statements({
      income_statement: [income("2023-12-31", { net_income: -1 }, { first_filed: "2024-01-05" })],
    });
    const r = computeValuationPoints({
      statements: loss,
      prices: monthly,
      shares: [{ date: "2024-01-02", filed: "2024-01-05", value: 10 }],
    });
    expect(r.points.every((p) => p.pe === null && p.valuation_percentile_3y === null)).toBe(true);
  });
  test("no prices give no points", () => {
    expect(computeValuationPoints({ statements: fundamentals, prices: [], shares: [] }).points).toEqual([]);
  });
});
