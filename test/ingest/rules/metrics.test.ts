import { describe, expect, test } from "bun:test";
import { computeMetrics } from "../../../src/ingest/rules/metrics.ts";
import { balance, cashFlow, income, statements } from "./builders.ts";

const TTM_END = "2024-06-30";

const ttmIncome = {
  revenue: 1000,
  cost_of_revenue: 600,
  gross_profit: 400,
  operating_income: 200,
  ebit: 210,
  ebitda: 260,
  interest_expense: 10,
  pretax_income: 200,
  tax_provision: 50,
  net_income: 150,
};
const ttmCash = {
  cash_flow_from_operations: 180,
  cash_flow_capital_expenditure: -30,
  total_free_cash_flow: 150,
  repurchase_of_stock: -40,
  issuance_of_stock: 10,
  dividends_paid_direct: -20,
};
const endBalance = {
  total_assets: 2000,
  total_current_assets: 500,
  total_current_liabilities: 250,
  cash_and_cash_equivalents: 100,
  marketable_securities: 50,
  accounts_receivable: 100,
  inventory: 80,
  short_term_debt: 50,
  long_term_debt: 350,
  total_stockholders_equity: 900,
};
const priorBalance = {
  total_assets: 1800,
  total_current_liabilities: 200,
  cash_and_cash_equivalents: 80,
  accounts_receivable: 90,
  inventory: 70,
  short_term_debt: 50,
  long_term_debt: 250,
  total_stockholders_equity: 800,
};

function company(overrides: { income?: object; end?: object; prior?: object | null } = {}) {
  return statements({
    income_statement: [
      income(TTM_END, { ...ttmIncome, ...overrides.income }, { type: "ttm" }),
      income("2023-12-31", { revenue: 1, net_income: 1 }),
    ],
    cash_flow_statement: [cashFlow(TTM_END, ttmCash, { type: "ttm" })],
    balance_sheet: [
      balance(TTM_END, { ...endBalance, ...overrides.end }, { type: "quarterly" }),
      ...(overrides.prior === null ? [] : [balance("2023-06-30", { ...priorBalance, ...overrides.prior })]),
    ],
  });
}

describe("fundamental metrics, happy path", () => {
  const result = computeMetrics({ statements: company(), market_cap: 3000 });
  const m = result?.metrics;

  test("uses the latest TTM period", () => {
    expect(result?.metadata).toEqual({
      as_of_date: TTM_END,
      period_type: "ttm",
      currency: "USD",
      calculation_version: "metrics-2026.11.25",
    });
  });
  test("margins divide by revenue", () => {
    expect(m?.gross_margin).toBeCloseTo(0.4, 12); // 400 / 1000
    expect(m?.operating_margin).toBeCloseTo(0.2, 12); // 200 / 1000
    expect(m?.net_margin).toBeCloseTo(0.15, 12); // 150 / 1000
    expect(m?.fcf_margin).toBeCloseTo(0.15, 12); // 150 / 1000
    expect(m?.ebit_margin).toBeCloseTo(0.21, 12); // 210 / 1000
    expect(m?.ebitda_margin).toBeCloseTo(0.26, 12); // 260 / 1000
  });
  test("returns use average balances of period end and a year earlier", () => {
    // tax rate 50 / 200 = 0.25; NOPAT = 210 × 0.75 = 157.5
    // invested capital (net of cash and short-term investments): end 400 + 900 − (100 + 50)
    // = 1150, prior 300 + 800 − 80 = 1020, average 1085
    expect(m?.roic).toBeCloseTo(157.5 / 1085, 12); // 0.145161
    // capital employed: end 2000 − 250 = 1750, prior 1800 − 200 = 1600, average 1675
    expect(m?.roce).toBeCloseTo(210 / 1675, 12); // 0.125373
    expect(m?.roe).toBeCloseTo(150 / 850, 12); // equity average (900 + 800) / 2 = 850 → 0.176471
    expect(m?.roa).toBeCloseTo(150 / 1900, 12); // assets average (2000 + 1800) / 2 = 1900 → 0.078947
  });
  test("turnovers use average balances", () => {
    expect(m?.asset_turnover).toBeCloseTo(1000 / 1900, 12); // 0.526316
    expect(m?.inventory_turnover).toBeCloseTo(8, 12); // 600 / ((80 + 70) / 2 = 75)
    expect(m?.receivables_turnover).toBeCloseTo(1000 / 95, 12); // (100 + 90) / 2 = 95 → 10.526316
  });
  test("leverage and liquidity use the ending balance", () => {
    expect(m?.debt_to_equity).toBeCloseTo(400 / 900, 12); // (50 + 350) / 900 = 0.444444
    expect(m?.net_debt_to_ebitda).toBeCloseTo(250 / 260, 12); // (400 − (100 + 50)) / 260 = 0.961538
    expect(m?.interest_coverage).toBeCloseTo(21, 12); // 210 / 10
    expect(m?.current_ratio).toBeCloseTo(2, 12); // 500 / 250
    expect(m?.quick_ratio).toBeCloseTo(1, 12); // (100 + 50 + 100) / 250
    expect(m?.cash_conversion_ratio).toBeCloseTo(1.2, 12); // 180 / 150
  });
  test("yields divide cash returned by the market cap", () => {
    // net buybacks 40 − 10 = 30, dividends 20
    expect(m?.shareholder_yield).toBeCloseTo(50 / 3000, 12); // 0.016667
    expect(m?.buyback_yield).toBeCloseTo(0.01, 12); // 30 / 3000
    expect(m?.dividend_yield_ttm).toBeCloseTo(20 / 3000, 12); // 0.006667
  });
});

describe("fundamental metrics, null rules", () => {
  test("negative equity makes ROE and debt-to-equity null", () => {
    const m = computeMetrics({
      statements: company({ end: { total_stockholders_equity: -100 } }),
      market_cap: 1,
    });
    expect(m?.metrics.roe).toBeNull();
    expect(m?.metrics.debt_to_equity).toBeNull();
  });
  test("a non-positive equity a year earlier also makes ROE null", () => {
    const m = computeMetrics({
      statements: company({ prior: { total_stockholders_equity: -5 } }),
      market_cap: 1,
    });
    expect(m?.metrics.roe).toBeNull();
  });
  test("EBITDA ≤ 0 makes net debt / EBITDA null but keeps the (negative) margin", () => {
    const m = computeMetrics({ statements: company({ income: { ebitda: -5 } }), market_cap: 1 });
    expect(m?.metrics.net_debt_to_ebitda).toBeNull();
    expect(m?.metrics.ebitda_margin).toBeCloseTo(-0.005, 12); // −5 / 1000
  });
  test("net income ≤ 0 makes the cash conversion ratio null", () => {
    const m = computeMetrics({ statements: company({ income: { net_income: 0 } }), market_cap: 1 });
    expect(m?.metrics.cash_conversion_ratio).toBeNull();
  });
  test("negative invested capital makes ROIC null", () => {
    // 400 debt + 900 equity − 2000 cash = −700
    const m = computeMetrics({
      statements: company({ end: { cash_and_cash_equivalents: 2000 } }),
      market_cap: 1,
    });
    expect(m?.metrics.roic).toBeNull();
  });
  test("zero revenue makes every margin null", () => {
    const m = computeMetrics({ statements: company({ income: { revenue: 0 } }), market_cap: 1 });
    expect(m?.metrics.gross_margin).toBeNull();
    expect(m?.metrics.ebitda_margin).toBeNull();
    expect(m?.metrics.asset_turnover).toBe(0); // 0 / 1900: revenue is a numerator here, so 0 is real
  });
  test("zero interest expense makes interest coverage null", () => {
    const m = computeMetrics({ statements: company({ income: { interest_expense: 0 } }), market_cap: 1 });
    expect(m?.metrics.interest_coverage).toBeNull();
  });
  test("without a market cap the yields are null", () => {
    const m = computeMetrics({ statements: company(), market_cap: null });
    expect(m?.metrics.shareholder_yield).toBeNull();
    expect(m?.metrics.buyback_yield).toBeNull();
    expect(m?.metrics.dividend_yield_ttm).toBeNull();
  });
  test("without the balance a year earlier the ending balance is used", () => {
    const m = computeMetrics({ statements: company({ prior: null }), market_cap: 1 });
    expect(m?.metrics.roe).toBeCloseTo(150 / 900, 12); // 0.166667
    expect(m?.metrics.inventory_turnover).toBeCloseTo(7.5, 12); // 600 / 80
  });
});

describe("fundamental metrics, period choice", () => {
  test("falls back to the latest annual period when no TTM exists (e.g. a quarter is missing)", () => {
    const s = statements({
      income_statement: [
        income("2023-12-31", { revenue: 500, net_income: 50 }),
        income("2022-12-31", { revenue: 1 }),
      ],
    });
    const m = computeMetrics({ statements: s, market_cap: null });
    expect(m?.metadata.period_type).toBe("annual");
    expect(m?.metadata.as_of_date).toBe("2023-12-31");
    expect(m?.metrics.net_margin).toBeCloseTo(0.1, 12); // 50 / 500
    expect(m?.metrics.roe).toBeNull(); // no balance sheet at all
  });
  test("a TTM period older than the latest annual period is not used", () => {
    const s = statements({
      income_statement: [
        income("2023-09-30", { revenue: 100, net_income: 1 }, { type: "ttm" }),
        income("2023-12-31", { revenue: 500, net_income: 50 }),
      ],
    });
    expect(computeMetrics({ statements: s, market_cap: null })?.metadata.period_type).toBe("annual");
  });
  test("no full-year period gives no metrics row", () => {
    const s = statements({ income_statement: [income("2024-03-31", { revenue: 5 }, { type: "quarterly" })] });
    expect(computeMetrics({ statements: s, market_cap: 1 })).toBeNull();
  });
});
