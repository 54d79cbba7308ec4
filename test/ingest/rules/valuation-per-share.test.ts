/**
 * Issue 19, item 5 and the valuation parts of item 7: P/E on the per-share basis (close ÷
 * diluted EPS on the closes' share basis), a share count that stopped being reported, the
 * basis of the valuation percentiles, and why the market-based yields are null.
 */
import { describe, expect, test } from "bun:test";
import type { PriceBar, SharesObservation } from "../../../src/ingest/rules/inputs.ts";
import { yieldMarketCap, yieldNullReasons } from "../../../src/ingest/rules/market-yields.ts";
import { computeValuationSnapshot } from "../../../src/ingest/rules/valuation.ts";
import {
  computeValuationHistory,
  computeValuationPoints,
} from "../../../src/ingest/rules/valuation-history.ts";
import { balance, cashFlow, income, statements } from "./builders.ts";

const prices: PriceBar[] = [{ date: "2024-06-28", close: 50 }];

/**
 * A buyback-heavy company: TTM net income 1,000 over 100 average diluted shares (EPS 10),
 * while its latest cover count, after a year of buybacks, is 90.
 */
function buybacks() {
  return statements({
    income_statement: [
      income(
        "2024-03-31",
        { net_income: 1000, diluted_eps: 10, diluted_average_shares: 100, revenue: 5000 },
        { type: "ttm", first_filed: "2024-05-01" },
      ),
    ],
  });
}
const shares: SharesObservation[] = [{ date: "2024-04-20", filed: "2024-05-01", value: 90 }];

describe("P/E per share", () => {
  test("is close / diluted EPS, not market cap / net income, for a company buying back its shares", () => {
    const v = computeValuationSnapshot({ statements: buybacks(), prices, shares });
    expect(v?.market_cap).toBe(4500); // 50 × 90 shares outstanding today
    expect(v?.pe_ratio).toBeCloseTo(5, 12); // 50 / 10
    // The old basis would give 4500 / 1000 = 4.5: today's count over the year's earnings.
    expect(Math.abs((v?.pe_ratio as number) - 4.5)).toBeGreaterThan(0.4);
    // Earnings yield stays net income / market cap (documented so): 1000 / 4500.
    expect(v?.earnings_yield).toBeCloseTo(1000 / 4500, 12);
  });

  test("the statements' EPS (after every split) is put on the closes' basis", () => {
    // A 4-for-1 split on 2024-07-10, after the last close: the statements restated EPS to 2.5
    // and the closes are on the old basis, where EPS is 10.
    const s = buybacks();
    const restated = {
      ...s,
      income_statement: s.income_statement.map((p) => ({
        ...p,
        values: { ...p.values, diluted_eps: 2.5, diluted_average_shares: 400 },
      })),
    };
    const basis = { splits: [{ date: "2024-07-10", ratio: 4 }], date: "2024-06-28" };
    const v = computeValuationSnapshot({ statements: restated, prices, shares, basis });
    expect(v?.pe_ratio).toBeCloseTo(5, 12);
  });

  test("is null when EPS or net income is ≤ 0, and falls back to market cap / net income without an EPS", () => {
    const loss = buybacks();
    const withValues = (values: Record<string, number | null>) => ({
      ...loss,
      income_statement: loss.income_statement.map((p) => ({ ...p, values: { ...p.values, ...values } })),
    });
    const negative = computeValuationSnapshot({
      statements: withValues({ diluted_eps: -1 }),
      prices,
      shares,
    });
    expect(negative?.pe_ratio).toBeNull();
    const noEps = computeValuationSnapshot({ statements: withValues({ diluted_eps: null }), prices, shares });
    expect(noEps?.pe_ratio).toBeCloseTo(4.5, 12); // 4500 / 1000
  });

  test("the point-in-time history divides each month-end close by the EPS known then", () => {
    const monthly: PriceBar[] = [
      { date: "2024-05-31", close: 40 },
      { date: "2024-06-28", close: 50 },
    ];
    const rows = computeValuationHistory({ statements: buybacks(), prices: monthly, shares });
    expect(rows.map((r) => r.pe_ratio)).toEqual([4, 5]);
  });
});

describe("shares outstanding that stopped being reported", () => {
  test("a cover count over a year older than the statements gives way to their diluted average shares", () => {
    // A classless cover count of 2010 (the filer then reported its classes separately,
    // which companyfacts does not carry) against statements of 2024.
    const old: SharesObservation[] = [{ date: "2010-04-20", filed: "2010-05-01", value: 30 }];
    const v = computeValuationSnapshot({ statements: buybacks(), prices, shares: old });
    expect(v?.market_cap).toBe(5000); // 50 × 100 diluted average shares, not 50 × 30
    const current = computeValuationSnapshot({ statements: buybacks(), prices, shares });
    expect(current?.market_cap).toBe(4500); // a current count is used as before
  });
});

describe("valuation percentiles", () => {
  // 13 month ends; a company that has never been profitable: P/E null, EV/revenue exists.
  const closes = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 35, 65];
  const monthly: PriceBar[] = closes.map((close, i) => ({
    date: `${2023 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, "0")}-15`,
    close,
  }));
  const lossMaker = statements({
    income_statement: [
      income("2023-12-31", { net_income: -50, diluted_eps: -5, revenue: 100 }, { first_filed: "2024-01-05" }),
    ],
    cash_flow_statement: [
      cashFlow("2023-12-31", { total_free_cash_flow: -10 }, { first_filed: "2024-01-05" }),
    ],
    balance_sheet: [
      balance(
        "2023-12-31",
        { cash_and_cash_equivalents: 20, long_term_debt: 50 },
        { first_filed: "2024-01-05" },
      ),
    ],
  });
  const result = computeValuationPoints({
    statements: lossMaker,
    prices: monthly,
    shares: [{ date: "2024-01-02", filed: "2024-01-05", value: 10 }],
  });

  test("rank EV/revenue where there is no P/E, and say so", () => {
    expect(result.percentile_basis).toBe("ev_to_revenue");
    expect(result.points.every((p) => p.pe === null)).toBe(true);
    // EV = close × 10 + 50 − 20; EV/revenue = (10 × close + 30) / 100, in the order of the closes.
    expect(result.points[0]?.ev_to_revenue).toBeCloseTo(1.3, 12);
    const p3 = result.points.map((p) => p.valuation_percentile_3y);
    expect(p3.slice(0, 11)).toEqual(Array(11).fill(null));
    // month 12: 35 among 10..110 and 35 → 10, 20, 30, 35 → 4 / 12 (as for P/E, by price)
    expect(p3[11]).toBeCloseTo(4 / 12, 12);
    expect(p3[12]).toBeCloseTo(8 / 13, 12);
  });

  test("rank P/E where there is one", () => {
    const profitable = computeValuationPoints({ statements: buybacks(), prices, shares });
    expect(profitable.percentile_basis).toBe("pe");
  });

  test("have no basis when neither multiple exists", () => {
    const bare = statements({
      income_statement: [income("2023-12-31", { net_income: -1 }, { first_filed: "2024-01-05" })],
    });
    const r = computeValuationPoints({ statements: bare, prices: monthly, shares: [] });
    expect(r.percentile_basis).toBeNull();
    expect(r.points.every((p) => p.valuation_percentile_3y === null)).toBe(true);
  });
});

describe("why the market-based yields are null", () => {
  const s = buybacks();

  test("a market cap of the statements' moment is used", () => {
    expect(yieldMarketCap(s, "2024-06-28", 4500)).toEqual({ market_cap: 4500, null_reason: null });
  });
  test("no prices or share count: no_market_cap", () => {
    expect(yieldMarketCap(s, null, null).null_reason).toBe("no_market_cap");
    expect(yieldMarketCap(s, "2024-06-28", null).null_reason).toBe("no_market_cap");
  });
  test("statements first filed after the last price: statements_filed_after_last_price", () => {
    // The TTM was first filed on 2024-05-01; a price file ending 2024-04-30 is older.
    expect(yieldMarketCap(s, "2024-04-30", 4500)).toEqual({
      market_cap: null,
      null_reason: "statements_filed_after_last_price",
    });
  });
  test("statements no longer current at the last price: statements_not_current", () => {
    // The TTM ended 2024-03-31; 2025-04-30 is more than 365 days later.
    expect(yieldMarketCap(s, "2025-04-30", 4500).null_reason).toBe("statements_not_current");
  });
  test("null_reasons names the null yields with the reason, nothing when the market cap was there", () => {
    const values = { buyback_yield: null, dividend_yield_ttm: null, roe: null };
    const missing = yieldMarketCap(s, "2024-04-30", 4500);
    expect(yieldNullReasons(values, ["buyback_yield", "dividend_yield_ttm"], missing)).toEqual({
      buyback_yield: "statements_filed_after_last_price",
      dividend_yield_ttm: "statements_filed_after_last_price",
    });
    expect(yieldNullReasons(values, ["buyback_yield"], yieldMarketCap(s, "2024-06-28", 4500))).toEqual({});
  });
});
