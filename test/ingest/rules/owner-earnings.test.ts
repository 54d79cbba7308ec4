import { describe, expect, test } from "bun:test";
import type { GrowthSignals } from "../../../src/ingest/rules/inputs.ts";
import { computeOwnerEarnings } from "../../../src/ingest/rules/owner-earnings.ts";
import { cashFlow, statements } from "./builders.ts";

// Annual owner earnings (CFO − capex): 2018 −50, 2020 200, 2022 320, 2023 400.
function company() {
  return statements({
    cash_flow_statement: [
      cashFlow(
        "2024-03-31",
        { cash_flow_from_operations: 600, cash_flow_capital_expenditure: -150 },
        { type: "ttm" },
      ),
      cashFlow("2023-12-31", { cash_flow_from_operations: 500, cash_flow_capital_expenditure: -100 }),
      cashFlow("2022-12-31", { cash_flow_from_operations: 400, cash_flow_capital_expenditure: -80 }),
      cashFlow("2020-12-31", { cash_flow_from_operations: 260, cash_flow_capital_expenditure: -60 }),
      cashFlow("2018-12-31", { cash_flow_from_operations: 10, cash_flow_capital_expenditure: -60 }),
    ],
  });
}

const noSignals: GrowthSignals = {
  owner_earnings: null,
  owner_earnings_growth_1y: null,
  owner_earnings_growth_3y: null,
  owner_earnings_growth_5y: null,
  dividend_growth_3y: null,
  dividend_growth_5y: null,
};

describe("owner earnings", () => {
  test("estimate = CFO − reported capex of the latest TTM period; yield on market cap", () => {
    const r = computeOwnerEarnings({ statements: company(), market_cap: 9000 });
    expect(r?.metadata.period_type).toBe("ttm");
    expect(r?.owner_earnings.maintenance_capex_estimate).toBe(150);
    expect(r?.owner_earnings.owner_earnings_estimated).toBe(450); // 600 − 150
    expect(r?.owner_earnings.owner_earnings_source).toBeNull();
    expect(r?.owner_earnings.owner_earnings_yield).toBeCloseTo(0.05, 12); // 450 / 9000
  });
  test("growth from the annual estimates, null from a non-positive start", () => {
    const o = computeOwnerEarnings({ statements: company(), market_cap: 9000 })?.owner_earnings;
    expect(o?.owner_earnings_growth_1y).toBeCloseTo(0.25, 12); // 400 / 320 − 1
    expect(o?.owner_earnings_growth_3y).toBeCloseTo(2 ** (1 / 3) - 1, 12); // (400 / 200)^(1/3) − 1 ≈ 0.259921
    expect(o?.owner_earnings_growth_5y).toBeNull(); // 2018: 10 − 60 = −50
  });
  test("a source value wins for the yield; signal growth wins field by field", () => {
    const signals = { ...noSignals, owner_earnings: 500, owner_earnings_growth_1y: 0.12 };
    const o = computeOwnerEarnings({ statements: company(), market_cap: 9000, signals })?.owner_earnings;
    expect(o?.owner_earnings_source).toBe(500);
    expect(o?.owner_earnings_yield).toBeCloseTo(500 / 9000, 12); // 0.055556
    expect(o?.owner_earnings_growth_1y).toBe(0.12);
    expect(o?.owner_earnings_growth_3y).toBeCloseTo(2 ** (1 / 3) - 1, 12);
  });
  test("no market cap makes the yield null", () => {
    const o = computeOwnerEarnings({ statements: company(), market_cap: null })?.owner_earnings;
    expect(o?.owner_earnings_yield).toBeNull();
  });
  test("no full-year period gives no row", () => {
    expect(computeOwnerEarnings({ statements: statements({}), market_cap: 1 })).toBeNull();
  });
});
