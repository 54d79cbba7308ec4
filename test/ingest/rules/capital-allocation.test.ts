import { describe, expect, test } from "bun:test";
import { computeCapitalAllocation } from "../../../src/ingest/rules/capital-allocation.ts";
import { cashFlow, income, statements } from "./builders.ts";

const fy2023Cash = {
  cash_flow_from_operations: 500,
  cash_flow_capital_expenditure: -120,
  stock_based_compensation: 30,
  repurchase_of_stock: -200,
  issuance_of_stock: 20,
  dividends_paid_direct: -100,
  purchase_of_business: -50,
  debt_issuance: 300,
  debt_payments: -250,
};

function company(netIncome = 400) {
  return statements({
    income_statement: [
      income("2023-12-31", { net_income: netIncome, diluted_average_shares: 1000 }),
      income("2022-12-31", { net_income: 1, diluted_average_shares: 1040 }),
      income("2024-03-31", { net_income: 9 }, { type: "ttm" }), // ignored: capital allocation is annual
    ],
    cash_flow_statement: [cashFlow("2023-12-31", fy2023Cash)],
  });
}

describe("capital allocation", () => {
  const result = computeCapitalAllocation({ statements: company(), market_cap: 9000 });
  const c = result?.capital_allocation;

  test("uses the latest annual period", () => {
    expect(result?.metadata.as_of_date).toBe("2023-12-31");
    expect(result?.metadata.fiscal_year).toBe(2023);
    expect(result?.metadata.calculation_version).toBe("capital-allocation-2026.11.25");
  });
  test("returns outflows as positive amounts", () => {
    expect(c?.operating_cash_flow).toBe(500);
    expect(c?.capex).toBe(120);
    expect(c?.free_cash_flow).toBe(380); // 500 − 120 (no reported FCF)
    expect(c?.stock_based_compensation).toBe(30);
    expect(c?.share_repurchases).toBe(200);
    expect(c?.share_issuance).toBe(20);
    expect(c?.dividends_paid).toBe(100);
    expect(c?.acquisition_spend).toBe(50);
    expect(c?.debt_issued).toBe(300);
    expect(c?.debt_repaid).toBe(250);
  });
  test("net amounts, share count change and ratios", () => {
    expect(c?.net_buyback_amount).toBe(180); // 200 − 20
    expect(c?.net_debt_change).toBe(50); // 300 − 250
    expect(c?.share_count_diluted).toBe(1000);
    expect(c?.share_count_change_1y).toBe(-40); // 1000 − 1040, absolute
    expect(c?.buyback_yield).toBeCloseTo(0.02, 12); // 180 / 9000
    expect(c?.dividend_payout_ratio).toBeCloseTo(0.25, 12); // 100 / 400
  });
  test("net income ≤ 0 makes the payout ratio null; no market cap makes the buyback yield null", () => {
    const n = computeCapitalAllocation({ statements: company(-5), market_cap: null })?.capital_allocation;
    expect(n?.dividend_payout_ratio).toBeNull();
    expect(n?.buyback_yield).toBeNull();
  });
  test("without a previous year the share count change is null", () => {
    const s = statements({ income_statement: [income("2023-12-31", { diluted_average_shares: 1000 })] });
    expect(
      computeCapitalAllocation({ statements: s, market_cap: 1 })?.capital_allocation.share_count_change_1y,
    ).toBeNull();
  });
  // FY2023: 1000 shares filed 2024-02-14; FY2022: 520 shares filed 2023-02-14; a 2-for-1
  // split on 2023-06-01, between the two filings. Statements carry counts on the basis after
  // every split (statements.ts): FY2022 as 1040.
  const split = () =>
    statements({
      income_statement: [
        income("2023-12-31", { diluted_average_shares: 1000 }, { first_filed: "2024-02-14" }),
        income("2022-12-31", { diluted_average_shares: 1040 }, { first_filed: "2023-02-14" }),
      ],
    });
  const splits = [{ date: "2023-06-01", ratio: 2 }];
  test("on a basis after the split, the statements' counts are taken as they are", () => {
    // Prices end after the split (or there are none): change 1000 − 1040 = −40
    for (const date of ["2024-03-08", null]) {
      const c = computeCapitalAllocation({ statements: split(), market_cap: 1, basis: { splits, date } });
      expect(c?.capital_allocation.share_count_diluted, `basis ${date}`).toBe(1000);
      expect(c?.capital_allocation.share_count_change_1y, `basis ${date}`).toBe(-40);
    }
  });
  test("share counts are put back on the basis of prices that predate a split", () => {
    // Prices end 2023-03-31: FY2023 1000 / 2 = 500; FY2022 1040 / 2 = 520; change 500 − 520 = −20
    const basis = { splits, date: "2023-03-31" };
    const c = computeCapitalAllocation({ statements: split(), market_cap: 1, basis });
    expect(c?.capital_allocation.share_count_diluted).toBe(500);
    expect(c?.capital_allocation.share_count_change_1y).toBe(-20);
  });
  test("no annual period gives no row", () => {
    expect(computeCapitalAllocation({ statements: statements({}), market_cap: 1 })).toBeNull();
  });
});
