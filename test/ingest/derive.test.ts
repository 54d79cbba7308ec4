/**
 * deriveSecurity (src/ingest/pipeline/derive.ts) on small hand-built inputs: which documents exist,
 * the rule that market-based yields need a price no older than the statements, the share
 * basis of the last price across inferred splits, and the split inference itself. Every expected number is
 * computed by hand in the comments.
 */

import { describe, expect, test } from "bun:test";
import { type DerivedRow, deriveSecurity, type SecurityInputs } from "../../src/ingest/pipeline/derive.ts";
import type { CompanyStatements, SharesObservation } from "../../src/ingest/rules/inputs.ts";
import { inferSplits, splitRatio } from "../../src/ingest/rules/splits.ts";
import type { PriceRow } from "../../src/ingest/sources/price-rows.ts";
import type { DerivedDocuments } from "../../src/snapshot/documents.ts";
import { balance, cashFlow, income, securityInputs } from "./rules/builders.ts";

const bar = (date: string, close: number): PriceRow => ({
  date,
  open: null,
  high: null,
  low: null,
  close,
  adj_close: null,
  volume: null,
});

/** Last price: 2024-06-28 at 20 (a month-end close of 21 on 2024-05-31 before it). */
const PRICES: PriceRow[] = [
  bar("2024-05-30", 19),
  bar("2024-05-31", 21),
  bar("2024-06-27", 19),
  bar("2024-06-28", 20),
];

/** One cover-page count: 100 shares as of 2024-04-20, filed 2024-05-01 (before the last price). */
const SHARES: SharesObservation[] = [{ date: "2024-04-20", filed: "2024-05-01", value: 100 }];

/**
 * A company whose latest periods (TTM to 2024-03-31, FY 2023) were filed by 2024-05-01:
 * - TTM: revenue 1000, net income 100; cash flow: operations 150, capex −30, repurchases −40,
 *   issuance 10, dividends −20. Net buybacks = 40 − 10 = 30; dividends paid = 20.
 * - FY 2023 (annual): repurchases −36, issuance 6, dividends −18 → net buybacks 30.
 * - Balance at 2024-03-31: cash 50, equity 500, current assets 300, current liabilities 200.
 */
interface Extra {
  income?: CompanyStatements["income_statement"];
  cash?: CompanyStatements["cash_flow_statement"];
  balance?: CompanyStatements["balance_sheet"];
}

/**
 * The statements above and `extra`. Statements carry EPS and share counts on the basis after
 * every split (statements.ts): with a later n-for-1 split (`splitAfter` n), the rows above are
 * n × the shares and 1/n the EPS.
 */
function statements(extra: Extra = {}, splitAfter = 1): CompanyStatements & { currency: string } {
  const ttm = { type: "ttm" as const, first_filed: "2024-05-01" };
  const fy = { type: "annual" as const, first_filed: "2024-02-15" };
  const n = splitAfter;
  return {
    currency: "USD",
    income_statement: [
      income(
        "2024-03-31",
        { revenue: 1000, net_income: 100, diluted_eps: 1 / n, diluted_average_shares: 100 * n },
        ttm,
      ),
      income(
        "2023-12-31",
        { revenue: 950, net_income: 90, diluted_eps: 0.9 / n, diluted_average_shares: 100 * n },
        fy,
      ),
      ...(extra.income ?? []),
    ],
    cash_flow_statement: [
      cashFlow(
        "2024-03-31",
        {
          cash_flow_from_operations: 150,
          cash_flow_capital_expenditure: -30,
          repurchase_of_stock: -40,
          issuance_of_stock: 10,
          dividends_paid_direct: -20,
        },
        ttm,
      ),
      cashFlow(
        "2023-12-31",
        {
          cash_flow_from_operations: 140,
          cash_flow_capital_expenditure: -25,
          repurchase_of_stock: -36,
          issuance_of_stock: 6,
          dividends_paid_direct: -18,
        },
        fy,
      ),
      ...(extra.cash ?? []),
    ],
    balance_sheet: [
      balance(
        "2024-03-31",
        {
          cash_and_cash_equivalents: 50,
          total_stockholders_equity: 500,
          total_current_assets: 300,
          total_current_liabilities: 200,
        },
        { first_filed: "2024-05-01" },
      ),
      ...(extra.balance ?? []),
    ],
  };
}

function inputs(over: Partial<SecurityInputs> = {}): SecurityInputs {
  return securityInputs({ statements: statements(), shares: SHARES, prices: PRICES, ...over });
}

function doc<K extends keyof DerivedDocuments>(rows: DerivedRow[], kind: K): DerivedDocuments[K] {
  const row = rows.find((r) => r.kind === kind);
  if (!row) throw new Error(`no ${kind} document`);
  return JSON.parse(row.body) as DerivedDocuments[K];
}

/** A later TTM (to 2024-06-30) first filed 2024-08-01, after the last price of 2024-06-28. */
const LATER = {
  income: [
    income(
      "2024-06-30",
      { revenue: 1100, net_income: 110, diluted_eps: 1.1, diluted_average_shares: 100 },
      { type: "ttm", first_filed: "2024-08-01" },
    ),
  ],
  cash: [
    cashFlow(
      "2024-06-30",
      { cash_flow_from_operations: 160, repurchase_of_stock: -80, dividends_paid_direct: -24 },
      { type: "ttm", first_filed: "2024-08-01" },
    ),
  ],
  balance: [
    balance(
      "2024-06-30",
      { cash_and_cash_equivalents: 60, total_stockholders_equity: 520 },
      { first_filed: "2024-08-01" },
    ),
  ],
};

describe("deriveSecurity: market-based yields", () => {
  test("statements filed before the last price: yields on close × shares", () => {
    const rows = deriveSecurity(inputs());
    // Market cap = 20 (close 2024-06-28) × 100 shares = 2000.
    const valuation = doc(rows, "valuation").valuation;
    expect(valuation.date).toBe("2024-06-28");
    expect(valuation.market_cap).toBe(2000);
    const m = doc(rows, "metrics");
    expect(m.metadata).toMatchObject({ symbol: "TEST", as_of_date: "2024-03-31", period_type: "ttm" });
    const metrics = m.metrics;
    // shareholder_yield = (dividends 20 + net buybacks 30) / 2000 = 0.025
    expect(metrics.shareholder_yield).toBeCloseTo(0.025, 15);
    // buyback_yield = 30 / 2000 = 0.015
    expect(metrics.buyback_yield).toBeCloseTo(0.015, 15);
    // dividend_yield_ttm = 20 / 2000 = 0.01
    expect(metrics.dividend_yield_ttm).toBeCloseTo(0.01, 15);
    // Capital allocation (FY 2023): buyback_yield = (36 − 6) / 2000 = 0.015
    const capital = doc(rows, "capital_allocation").capital_allocation;
    expect(capital.buyback_yield).toBeCloseTo(0.015, 15);
    // Owner earnings (TTM): (150 − 30) / 2000 = 0.06
    const owner = doc(rows, "owner_earnings").owner_earnings;
    expect(owner.owner_earnings_estimated).toBe(120);
    expect(owner.owner_earnings_yield).toBeCloseTo(0.06, 15);
  });

  test("latest statements filed after the last price: the market-based yields are null", () => {
    const rows = deriveSecurity(inputs({ statements: statements(LATER) }));
    // The valuation is point in time: on 2024-06-28 only the TTM to 2024-03-31 was filed,
    // so it still exists with market cap 20 × 100 = 2000 and P/E 2000 / 100 = 20.
    const valuation = doc(rows, "valuation").valuation;
    expect(valuation.market_cap).toBe(2000);
    expect(valuation.pe_ratio).toBe(20);
    // Metrics use the latest TTM (to 2024-06-30, filed 2024-08-01): dividing its buybacks
    // by a market cap of 2024-06-28 would mix dates, so the yields are null ...
    const m = doc(rows, "metrics");
    expect(m.metadata).toMatchObject({ as_of_date: "2024-06-30", period_type: "ttm" });
    const metrics = m.metrics;
    expect(metrics.shareholder_yield).toBeNull();
    expect(metrics.buyback_yield).toBeNull();
    expect(metrics.dividend_yield_ttm).toBeNull();
    // ... while the other metrics are computed: net margin 110 / 1100 = 0.1.
    expect(metrics.net_margin).toBeCloseTo(0.1, 15);
    // Capital allocation and owner earnings share the rule.
    expect(doc(rows, "capital_allocation").capital_allocation.buyback_yield).toBeNull();
    expect(doc(rows, "owner_earnings").owner_earnings.owner_earnings_yield).toBeNull();
  });

  test("without prices there is no valuation and no yield, but the fundamentals (and earnings dates) exist", () => {
    const rows = deriveSecurity(inputs({ prices: [] }));
    const kinds = rows.map((r) => r.kind).sort();
    // Earnings are dated by the statements' own filing dates when there is no price.
    expect(kinds).toEqual(["capital_allocation", "earnings", "growth", "metrics", "owner_earnings"]);
    expect(doc(rows, "metrics").metrics.buyback_yield).toBeNull();
  });
});

describe("deriveSecurity: inferred splits and the last price", () => {
  test("a split inferred after the last price date: earlier counts stay, later ones are divided back", () => {
    // 100 shares as of 2024-04-20, then 400 as of 2024-07-20 (filed 2024-08-01): a 4-for-1
    // split inferred on 2024-07-20, after the last price (2024-06-28). The closes predate it,
    // so the 100 shares are not multiplied: 20 × 100 = 2000, not 20 × 400 = 8000.
    const shares = [...SHARES, { date: "2024-07-20", filed: "2024-08-01", value: 400 }];
    // FY 2024, filed 2025-02-15 on the post-split basis: 420 diluted shares, EPS 0.25.
    const fy2024 = income(
      "2024-12-31",
      { revenue: 1200, net_income: 105, diluted_eps: 0.25, diluted_average_shares: 420 },
      { first_filed: "2025-02-15" },
    );
    const rows = deriveSecurity(inputs({ shares, statements: statements({ income: [fy2024] }, 4) }));
    expect(doc(rows, "valuation").valuation.market_cap).toBe(2000);
    const history = doc(rows, "valuation_history").valuation_history;
    // Month ends: 2024-05-31 (close 21 × 100 = 2100) and 2024-06-28 (20 × 100 = 2000).
    expect(history.map((r) => [r.date, r.market_cap])).toEqual([
      ["2024-05-31", 2100],
      ["2024-06-28", 2000],
    ]);
    const points = doc(rows, "valuation_points").points;
    expect(points.map((p) => p.market_cap)).toEqual([2100, 2000]);
    // On the closes' basis FY 2024 has 420 / 4 = 105 shares and EPS 0.25 × 4 = 1; FY 2023
    // (100 shares, EPS 0.9 as filed on 2024-02-15; 400 and 0.225 on today's basis) is back at
    // 100 and 0.9: share count growth 105 / 100 − 1 = 0.05,
    // EPS growth 1 / 0.9 − 1 = 0.111…, not 420 / 100 − 1 = 3.2 and 0.25 / 0.9 − 1 = −0.72.
    const growth = doc(rows, "growth").growth;
    expect(growth.share_count_growth_1y).toBeCloseTo(0.05, 12);
    expect(growth.eps_growth_1y).toBeCloseTo(1 / 0.9 - 1, 12);
    const capital = doc(rows, "capital_allocation").capital_allocation;
    expect(capital.share_count_diluted).toBe(105);
    expect(capital.share_count_change_1y).toBe(5);
  });

  test("a split inferred before the last price converts older counts to the closes' basis", () => {
    // 100 shares as of 2024-04-20 (filed 2024-05-01), 400 as of 2024-05-20 (filed 2024-06-01):
    // a 4-for-1 split on 2024-05-20, before the last price, so the closes are post-split.
    const shares = [...SHARES, { date: "2024-05-20", filed: "2024-06-01", value: 400 }];
    const rows = deriveSecurity(inputs({ shares }));
    // 2024-06-28: the 400 count is filed → 20 × 400 = 8000.
    expect(doc(rows, "valuation").valuation.market_cap).toBe(8000);
    // 2024-05-31: only the 100 count (as of 2024-04-20) is filed; × 4 for the later split
    // → 21 × 400 = 8400. The 400 count itself (filed 2024-06-01) is not used yet.
    const history = doc(rows, "valuation_history").valuation_history;
    expect(history.map((r) => [r.date, r.market_cap])).toEqual([
      ["2024-05-31", 8400],
      ["2024-06-28", 8000],
    ]);
  });
});

describe("splitRatio and inferSplits", () => {
  test("splitRatio: the nearest listed ratio within 6%, forward or reverse", () => {
    expect(splitRatio(5.09)).toBe(5); // |5.09 / 5 − 1| = 1.8% → 5-for-1
    expect(splitRatio(0.101)).toBe(1 / 10); // 1 / 0.101 = 9.90, |9.90 / 10 − 1| = 1% → 1-for-10
    expect(splitRatio(1.3)).toBeNull(); // 30% more shares: issuance, not a split (2 is 35% away)
    expect(splitRatio(2.5)).toBeNull(); // 25% from 2 and 17% from 3
    expect(splitRatio(3.95)).toBe(4); // 1.25% from 4
    expect(splitRatio(1)).toBeNull();
    expect(splitRatio(1.04)).toBeNull();
    expect(splitRatio(0)).toBeNull();
    expect(splitRatio(-4)).toBeNull();
    expect(splitRatio(Number.NaN)).toBeNull();
    expect(splitRatio(Number.POSITIVE_INFINITY)).toBeNull();
  });

  test("inferSplits: one split per qualifying jump, dated at the later observation", () => {
    const obs = (date: string, value: number): SharesObservation => ({ date, filed: date, value });
    // TSLA-like: 186,362,000 → 948,582,000 is ×5.09 → 5-for-1 dated 2020-10-19; then
    // ×1.30 (1,233,156,600) → none; 0 is skipped; ×0.405 (500,000,000: 1/2.47, 23% from 1/2
    // and 18% from 1/3) → none; ×0.101 (50,500,000) → 1-for-10 dated 2023-05-01. Out of order
    // on purpose: observations are sorted by date first.
    const splits = inferSplits([
      obs("2023-05-01", 50_500_000),
      obs("2020-07-13", 186_362_000),
      obs("2020-10-19", 948_582_000),
      obs("2021-01-25", 1_233_156_600),
      obs("2022-01-01", 0),
      obs("2023-02-01", 500_000_000),
    ]);
    expect(splits).toEqual([
      { date: "2020-10-19", ratio: 5 },
      { date: "2023-05-01", ratio: 1 / 10 },
    ]);
  });

  test("inferSplits: no observations or a steady count gives no split", () => {
    expect(inferSplits([])).toEqual([]);
    const steady = ["2021-01-01", "2021-04-01", "2021-07-01"].map((date, i) => ({
      date,
      filed: date,
      value: 1_000_000 * (1 - 0.01 * i),
    }));
    expect(inferSplits(steady)).toEqual([]);
  });
});
