import { describe, expect, test } from "bun:test";
import {
  ebitdaOf,
  effectiveTaxRateOf,
  freeCashFlowOf,
  investedCapitalOf,
  netClaimsOf,
  netDebtOf,
  totalDebtOf,
} from "../../../src/ingest/rules/line-items.ts";

describe("effective tax rate", () => {
  test("is tax / pretax income, clamped to [0, 1]", () => {
    expect(effectiveTaxRateOf({ tax_provision: 21, pretax_income: 100 })).toBeCloseTo(0.21, 12); // 21 / 100
    expect(effectiveTaxRateOf({ tax_provision: 50, pretax_income: 40 })).toBe(1); // 1.25 → 1
    expect(effectiveTaxRateOf({ tax_provision: -10, pretax_income: 100 })).toBe(0); // −0.1 → 0
  });
  test("falls back to 21% when pretax income is ≤ 0 or a figure is missing", () => {
    expect(effectiveTaxRateOf({ tax_provision: 5, pretax_income: -5 })).toBe(0.21);
    expect(effectiveTaxRateOf({ pretax_income: 100 })).toBe(0.21);
    expect(effectiveTaxRateOf(null)).toBe(0.21);
  });
});

describe("fallback chains", () => {
  test("EBITDA = reported, else EBIT (or operating income) + D&A", () => {
    expect(ebitdaOf({ ebitda: 7, ebit: 100 }, null)).toBe(7);
    expect(ebitdaOf({ ebit: 100, depreciation_and_amortization: 20 }, null)).toBe(120); // 100 + 20
    // operating income 90 + cash-flow D&A 10 = 100
    expect(ebitdaOf({ operating_income: 90 }, { cash_flow_depreciation_depletion_amortization: 10 })).toBe(
      100,
    );
    expect(ebitdaOf({ ebit: 100 }, null)).toBeNull();
  });
  test("free cash flow = reported, else CFO − |capex|", () => {
    expect(freeCashFlowOf({ total_free_cash_flow: 7, cash_flow_from_operations: 50 })).toBe(7);
    expect(freeCashFlowOf({ cash_flow_from_operations: 50, cash_flow_capital_expenditure: -10 })).toBe(40);
    expect(freeCashFlowOf({ cash_flow_from_operations: 50 })).toBeNull();
  });
});

describe("debt and capital", () => {
  test("total debt prefers the lease-inclusive figures and counts missing parts as 0", () => {
    // short 10 (the combined figure wins over short_term_debt 8) + long 30 = 40
    expect(
      totalDebtOf({
        short_term_debt_and_capital_lease_obligation: 10,
        short_term_debt: 8,
        long_term_debt: 30,
      }),
    ).toBe(40);
    expect(totalDebtOf({ total_assets: 5 })).toBe(0);
    expect(totalDebtOf(null)).toBeNull();
  });
  test("net claims = debt − cash + minority interest + preferred", () => {
    // 40 − 15 + 5 + 0 = 30
    expect(netClaimsOf({ long_term_debt: 40, cash_and_cash_equivalents: 15, minority_interest: 5 })).toBe(30);
    expect(netClaimsOf({ long_term_debt: 40 })).toBeNull(); // no cash reported
  });
  test("net debt is net of short-term investments: the reported total, else cash + marketable securities", () => {
    // 40 − (15 + 25) = 0
    expect(netDebtOf({ long_term_debt: 40, cash_and_cash_equivalents: 15, marketable_securities: 25 })).toBe(
      0,
    );
    // The reported cash-and-short-term-investments total wins: 40 − 50 = −10
    expect(
      netDebtOf({
        long_term_debt: 40,
        cash_and_cash_equivalents: 15,
        marketable_securities: 25,
        cash_equivalents_marketable_securities: 50,
      }),
    ).toBe(-10);
    expect(netDebtOf({ long_term_debt: 40, marketable_securities: 25 })).toBeNull(); // no cash reported
  });
  test("invested capital = debt + equity − cash", () => {
    // 40 + 100 − 15 = 125
    expect(
      investedCapitalOf({
        long_term_debt: 40,
        total_stockholders_equity: 100,
        cash_and_cash_equivalents: 15,
      }),
    ).toBe(125);
  });
});
