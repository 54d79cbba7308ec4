import { describe, expect, test } from "bun:test";
import type { DividendRow, PriceBar, SharesObservation } from "../../../src/ingest/rules/inputs.ts";
import { computeValuationSnapshot } from "../../../src/ingest/rules/valuation.ts";
import { balance, cashFlow, income, statements } from "./builders.ts";

const prices: PriceBar[] = [
  { date: "2024-06-27", close: 19 },
  { date: "2024-06-28", close: 20 },
];
const shares: SharesObservation[] = [{ date: "2024-04-20", filed: "2024-05-01", value: 100 }];
const dividends: DividendRow[] = [
  { ex_date: "2023-05-01", pay_date: null, amount: 0.1 }, // before 2024-06-28 − 365 days = 2023-06-29
  { ex_date: "2023-08-01", pay_date: null, amount: 0.1 },
  { ex_date: "2023-11-01", pay_date: null, amount: 0.1 },
  { ex_date: "2024-02-01", pay_date: null, amount: 0.1 },
  { ex_date: "2024-05-01", pay_date: null, amount: 0.1 },
];

function company(over: { netIncome?: number; ebitda?: number; equity?: number } = {}) {
  const ttm = { type: "ttm" as const, first_filed: "2024-05-01" };
  return statements({
    income_statement: [
      income(
        "2024-03-31",
        { revenue: 1000, net_income: over.netIncome ?? 100, ebitda: over.ebitda ?? 200, diluted_eps: 1 },
        ttm,
      ),
      income("2023-03-31", { diluted_eps: 0.8 }, { type: "ttm", first_filed: "2023-05-01" }),
      // Filed after the price date: must not be used.
      income(
        "2024-06-30",
        { revenue: 9e9, net_income: 1000, diluted_eps: 10 },
        { type: "ttm", first_filed: "2024-08-01" },
      ),
    ],
    cash_flow_statement: [cashFlow("2024-03-31", { total_free_cash_flow: 80 }, ttm)],
    balance_sheet: [
      balance(
        "2024-03-31",
        {
          cash_and_cash_equivalents: 50,
          short_term_debt: 20,
          long_term_debt: 130,
          minority_interest: 10,
          total_stockholders_equity: over.equity ?? 500,
        },
        { first_filed: "2024-05-01" },
      ),
    ],
  });
}

describe("valuation snapshot", () => {
  const v = computeValuationSnapshot({
    statements: company(),
    prices,
    shares: [...shares, { date: "2024-07-15", filed: "2024-08-01", value: 50 }],
    dividends,
    estimates: { eps_est_next_fy: 1.25 },
  });

  test("is dated by the last price and uses last close × shares", () => {
    expect(v?.date).toBe("2024-06-28");
    expect(v?.market_cap).toBe(2000); // 20 × 100 (the 50-share value was filed 2024-08-01, too late)
    expect(v?.calculation_version).toBe("valuation-2026.11.25");
  });
  test("enterprise value and net debt", () => {
    expect(v?.net_debt).toBe(100); // 20 + 130 − 50
    expect(v?.enterprise_value).toBe(2110); // 2000 + 150 debt + 10 minority − 50 cash
  });
  test("multiples use the TTM period filed before the price date", () => {
    expect(v?.pe_ratio).toBeCloseTo(20, 12); // 2000 / 100 (not the later 1000)
    expect(v?.pb_ratio).toBeCloseTo(4, 12); // 2000 / 500
    expect(v?.ps_ratio).toBeCloseTo(2, 12); // 2000 / 1000
    expect(v?.peg_ratio).toBeCloseTo(0.8, 12); // EPS growth 1 / 0.8 − 1 = 25% → 20 / 25
    expect(v?.ev_to_revenue).toBeCloseTo(2.11, 12); // 2110 / 1000
    expect(v?.ev_to_ebitda).toBeCloseTo(10.55, 12); // 2110 / 200
    expect(v?.ev_to_fcf).toBeCloseTo(26.375, 12); // 2110 / 80
    expect(v?.earnings_yield).toBeCloseTo(0.05, 12); // 100 / 2000
    expect(v?.fcf_yield).toBeCloseTo(0.04, 12); // 80 / 2000
  });
  test("forward P/E and dividend yield are per share", () => {
    expect(v?.forward_pe).toBeCloseTo(16, 12); // 20 / 1.25
    expect(v?.dividend_yield).toBeCloseTo(0.02, 12); // 4 × 0.1 in (2023-06-29, 2024-06-28] / 20
  });
});

describe("valuation snapshot across a split after the last price", () => {
  test("market cap from the count on the closes' basis, PEG from the statements' EPS on their one basis", () => {
    // A 2-for-1 split on 2024-07-01 that the closes (to 2024-06-28) predate. Statements carry
    // EPS on the basis after it (statements.ts): the TTM EPS 1 and the prior TTM's 0.8 as 0.5
    // and 0.4. EPS growth 0.5 / 0.4 − 1 = 25% on that one basis, so PEG 20 / 25 = 0.8; the
    // share count (100, as of 2024-04-20) predates the split and stays: 20 × 100.
    const s = company();
    const afterSplit = {
      ...s,
      income_statement: s.income_statement.map((p) =>
        p.period_end <= "2024-03-31"
          ? { ...p, values: { ...p.values, diluted_eps: (p.values.diluted_eps as number) / 2 } }
          : p,
      ),
    };
    const basis = { splits: [{ date: "2024-07-01", ratio: 2 }], date: "2024-06-28" };
    const v = computeValuationSnapshot({ statements: afterSplit, prices, shares, basis });
    expect(v?.market_cap).toBe(2000); // 20 × 100: the count predates the split
    expect(v?.pe_ratio).toBeCloseTo(20, 12);
    expect(v?.peg_ratio).toBeCloseTo(0.8, 12);
  });
});

describe("valuation snapshot, null rules", () => {
  test("net income ≤ 0: P/E and PEG null, earnings yield negative", () => {
    const v = computeValuationSnapshot({ statements: company({ netIncome: -50 }), prices, shares });
    expect(v?.pe_ratio).toBeNull();
    expect(v?.peg_ratio).toBeNull();
    expect(v?.earnings_yield).toBeCloseTo(-0.025, 12); // −50 / 2000
  });
  test("EBITDA ≤ 0 and equity ≤ 0 give null EV/EBITDA and P/B", () => {
    const v = computeValuationSnapshot({ statements: company({ ebitda: 0, equity: -1 }), prices, shares });
    expect(v?.ev_to_ebitda).toBeNull();
    expect(v?.pb_ratio).toBeNull();
  });
  test("no dividend data, no estimate: dividend yield and forward P/E null", () => {
    const v = computeValuationSnapshot({ statements: company(), prices, shares });
    expect(v?.dividend_yield).toBeNull();
    expect(v?.forward_pe).toBeNull();
  });
  test("an empty dividend history is a zero yield", () => {
    const v = computeValuationSnapshot({ statements: company(), prices, shares, dividends: [] });
    expect(v?.dividend_yield).toBe(0);
  });
  test("without a shares observation the diluted average shares of the known period are used", () => {
    const s = company();
    const withShares = {
      ...s,
      income_statement: s.income_statement.map((p) =>
        p.period_end === "2024-03-31" ? { ...p, values: { ...p.values, diluted_average_shares: 125 } } : p,
      ),
    };
    const v = computeValuationSnapshot({ statements: withShares, prices, shares: [] });
    expect(v?.market_cap).toBe(2500); // 20 × 125
  });
  test("without any share count the market cap and every multiple are null", () => {
    const v = computeValuationSnapshot({ statements: company(), prices, shares: [] });
    expect(v?.market_cap).toBeNull();
    expect(v?.enterprise_value).toBeNull();
    expect(v?.pe_ratio).toBeNull();
  });
  test("no prices give no snapshot", () => {
    expect(computeValuationSnapshot({ statements: company(), prices: [], shares })).toBeNull();
  });
});

describe("valuation snapshot, currencies", () => {
  test("statements in another currency than the prices give no market cap and no multiples", () => {
    const v = computeValuationSnapshot({ statements: company(), prices, shares, price_currency: "EUR" });
    expect(v?.market_cap).toBeNull();
    expect(v?.enterprise_value).toBeNull();
    expect(v?.pe_ratio).toBeNull();
    expect(v?.net_debt).toBeNull();
  });
  test("the same currency changes nothing", () => {
    const v = computeValuationSnapshot({ statements: company(), prices, shares, price_currency: "USD" });
    expect(v?.market_cap).toBe(2000);
  });
});
