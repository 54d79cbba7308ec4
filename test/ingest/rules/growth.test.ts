import { describe, expect, test } from "bun:test";
import { computeGrowth, dividendCagr } from "../../../src/ingest/rules/growth.ts";
import type { DividendRow } from "../../../src/ingest/rules/inputs.ts";
import { balance, cashFlow, income, statements } from "./builders.ts";

// Fiscal years end Dec 31, except FY2022, which ends Dec 26 (a 52-week year): the
// "one year earlier" match accepts period ends within 20 days.
const END = {
  2018: "2018-12-31",
  2019: "2019-12-31",
  2020: "2020-12-31",
  2021: "2021-12-31",
  2022: "2022-12-26",
  2023: "2023-12-31",
};

// Revenue grows 20% a year: 100, 120, 144, 172.8, 207.36, 248.832.
// Diluted EPS: 2018 −1, 2020 2, 2022 4, 2023 5. Diluted shares: 2018 195.3125, 2020 125, 2022 80, 2023 64.
// Equity: 2020 625, 2022 640, 2023 640 (no 2018 balance sheet). FCF: 2020 50, 2022 −10, 2023 400 (no 2018 cash flow).
function company() {
  return statements({
    income_statement: [
      income(END[2018], { revenue: 100, diluted_eps: -1, diluted_average_shares: 195.3125 }),
      income(END[2019], { revenue: 120 }),
      income(END[2020], { revenue: 144, diluted_eps: 2, diluted_average_shares: 125 }),
      income(END[2021], { revenue: 172.8 }),
      income(END[2022], { revenue: 207.36, diluted_eps: 4, diluted_average_shares: 80 }),
      income(END[2023], { revenue: 248.832, diluted_eps: 5, diluted_average_shares: 64 }),
      income("2024-03-31", { revenue: 1e9 }, { type: "ttm" }), // growth ignores TTM periods
    ],
    cash_flow_statement: [
      cashFlow(END[2020], { total_free_cash_flow: 50 }),
      cashFlow(END[2022], { total_free_cash_flow: -10 }),
      cashFlow(END[2023], { total_free_cash_flow: 400 }),
    ],
    balance_sheet: [
      balance(END[2020], { total_stockholders_equity: 625 }),
      balance(END[2022], { total_stockholders_equity: 640 }),
      balance(END[2023], { total_stockholders_equity: 640 }),
    ],
  });
}

describe("growth from the annual history", () => {
  const result = computeGrowth({ statements: company() });
  const g = result?.growth;

  test("is dated by the latest annual period", () => {
    expect(result?.metadata.as_of_date).toBe("2023-12-31");
    expect(result?.metadata.period_type).toBe("annual");
    expect(result?.metadata.calculation_version).toBe("growth-2026.11.25");
  });
  test("revenue: 1y change and 3y/5y CAGR", () => {
    expect(g?.revenue_growth_1y).toBeCloseTo(0.2, 12); // 248.832 / 207.36 − 1
    expect(g?.revenue_cagr_3y).toBeCloseTo(0.2, 12); // (248.832 / 144)^(1/3) = 1.728^(1/3) = 1.2
    expect(g?.revenue_cagr_5y).toBeCloseTo(0.2, 12); // (248.832 / 100)^(1/5) = 1.2
  });
  test("EPS: a negative start makes the CAGR null", () => {
    expect(g?.eps_growth_1y).toBeCloseTo(0.25, 12); // 5 / 4 − 1
    expect(g?.eps_cagr_3y).toBeCloseTo(2.5 ** (1 / 3) - 1, 12); // (5 / 2)^(1/3) − 1 ≈ 0.357209
    expect(g?.eps_cagr_5y).toBeNull(); // start −1 ≤ 0
  });
  test("FCF: a negative base makes the 1y change null; a missing start makes the CAGR null", () => {
    expect(g?.fcf_growth_1y).toBeNull(); // base −10
    expect(g?.fcf_cagr_3y).toBeCloseTo(1, 12); // (400 / 50)^(1/3) = 8^(1/3) = 2 → 1.0
    expect(g?.fcf_cagr_5y).toBeNull(); // no 2018 cash flow
  });
  test("book value per share = equity / diluted average shares", () => {
    // BVPS 2023 640/64 = 10, 2022 640/80 = 8, 2020 625/125 = 5, 2018 no balance sheet
    expect(g?.book_value_per_share_growth_1y).toBeCloseTo(0.25, 12); // 10 / 8 − 1
    expect(g?.book_value_per_share_cagr_3y).toBeCloseTo(2 ** (1 / 3) - 1, 12); // (10/5)^(1/3) − 1 ≈ 0.259921
    expect(g?.book_value_per_share_cagr_5y).toBeNull();
  });
  test("share count: 1y change and annualized 3y/5y change of diluted shares", () => {
    expect(g?.share_count_growth_1y).toBeCloseTo(-0.2, 12); // 64 / 80 − 1
    expect(g?.share_count_growth_3y).toBeCloseTo(-0.2, 12); // (64/125)^(1/3) = 0.512^(1/3) = 0.8
    expect(g?.share_count_growth_5y).toBeCloseTo(-0.2, 12); // (64/195.3125)^(1/5) = 0.32768^(1/5) = 0.8
  });
  test("no dividend data gives null dividend growth", () => {
    expect(g?.dividend_growth_3y).toBeNull();
    expect(g?.dividend_growth_5y).toBeNull();
  });
  test("no annual period gives no growth row", () => {
    expect(computeGrowth({ statements: statements({}) })).toBeNull();
  });
});

describe("dividend growth", () => {
  // One payment a year; 2017 is the first (possibly partial) year; 2018 → 2023 grow 10% a year.
  const rows: DividendRow[] = [
    { ex_date: "2017-09-01", pay_date: null, amount: 0.5 },
    { ex_date: "2018-06-01", pay_date: null, amount: 1 },
    { ex_date: "2019-06-01", pay_date: null, amount: 1.1 },
    { ex_date: "2020-06-01", pay_date: null, amount: 1.21 },
    { ex_date: "2021-06-01", pay_date: null, amount: 1.331 },
    { ex_date: "2022-06-01", pay_date: null, amount: 1.4641 },
    { ex_date: "2023-03-01", pay_date: null, amount: 0.8 },
    { ex_date: "2023-09-01", pay_date: null, amount: 0.81051 },
    { ex_date: "2024-01-15", pay_date: null, amount: 2 },
  ];

  test("is the CAGR of calendar-year dividends per share over complete years", () => {
    // as of 2024-03-08 the last complete year is 2023: 0.8 + 0.81051 = 1.61051
    expect(dividendCagr(rows, 3, "2024-03-08")).toBeCloseTo(0.1, 10); // (1.61051 / 1.21)^(1/3) = 1.331^(1/3)
    expect(dividendCagr(rows, 5, "2024-03-08")).toBeCloseTo(0.1, 10); // (1.61051 / 1)^(1/5) = 1.1
  });
  test("never starts in the first recorded year, which may be partial", () => {
    expect(dividendCagr(rows, 6, "2024-03-08")).toBeNull(); // start 2017
  });
  test("is null when the end year lies beyond the recorded history", () => {
    expect(dividendCagr(rows, 3, "2026-01-01")).toBeNull(); // end 2025, last ex-date 2024
  });
  test("without a date the latest ex-date's year counts as incomplete", () => {
    expect(dividendCagr(rows, 3)).toBeCloseTo(0.1, 10); // end 2023 again
  });
  test("imported signals win field by field", () => {
    const signals = {
      owner_earnings: null,
      owner_earnings_growth_1y: null,
      owner_earnings_growth_3y: null,
      owner_earnings_growth_5y: null,
      dividend_growth_3y: 0.07,
      dividend_growth_5y: null,
    };
    const g = computeGrowth({ statements: company(), dividends: rows, signals, as_of: "2024-03-08" })?.growth;
    expect(g?.dividend_growth_3y).toBe(0.07);
    expect(g?.dividend_growth_5y).toBeCloseTo(0.1, 10);
  });
});
