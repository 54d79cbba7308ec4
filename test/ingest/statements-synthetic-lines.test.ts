/**
 * Statement lines on small synthetic companyfacts files: banks' revenue, insurers' EBIT, REITs'
 * FFO, equity, IFRS and short-term debt, D&A, fallback concepts, currency, and facts that make
 * no period. Each test builds its own facts.
 */
import { describe, expect, test } from "bun:test";
import { computeStatements } from "../../src/ingest/rules/statements.ts";
import { periodAt } from "../helpers/statement-rows.ts";
import { type Fact, filing, flow, instant, syntheticCompany } from "../helpers/synthetic-companyfacts.ts";

describe("values, restatements and labels", () => {
  test("a bank's revenue: its net revenue total, else net interest income + noninterest income, never its fees alone", () => {
    const d = (c: string, v: number, year = 2022) => flow(c, `${year}-01-01`, `${year}-12-31`, v);
    const out = computeStatements(
      syntheticCompany([
        // Every year tags the fees within ASC 606 as contract revenue (a part of noninterest
        // income); 2022 tags the net revenue total and its two parts, 2023 only the parts.
        d("RevenueFromContractWithCustomerExcludingAssessedTax", 21_000),
        d("RevenuesNetOfInterestExpense", 128_695),
        d("InterestIncomeExpenseNet", 66_710),
        d("NoninterestIncome", 61_985),
        d("RevenueFromContractWithCustomerExcludingAssessedTax", 22_000, 2023),
        d("InterestIncomeExpenseNet", 89_267, 2023),
        d("NoninterestIncome", 69_837, 2023),
        d(
          "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
          46_166,
          2023,
        ),
        d("InterestExpense", 81_321, 2023),
        instant("Assets", "2023-12-31", 3_875_393),
      ]),
    );
    const revenue = (end: string) => periodAt(out.income_statement, "annual", end).values.revenue;
    expect(revenue("2022-12-31")).toBe(66_710 + 61_985);
    expect(revenue("2023-12-31")).toBe(89_267 + 69_837);
    // A year without both parts: the total, not the fees; without a total, no revenue.
    const bankWith = (facts: Fact[]) =>
      computeStatements(
        syntheticCompany([
          d("InterestIncomeExpenseNet", 89_267, 2023),
          d("NoninterestIncome", 69_837, 2023),
          d(
            "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
            46_166,
            2023,
          ),
          instant("Assets", "2023-12-31", 3_875_393),
          ...facts,
        ]),
      );
    const fees = d("RevenueFromContractWithCustomerExcludingAssessedTax", 21_000);
    const parts = d("InterestIncomeExpenseNet", 60_000);
    const total = bankWith([fees, parts, d("Revenues", 121_649)]).income_statement;
    expect(periodAt(total, "annual", "2022-12-31").values.revenue).toBe(121_649);
    const feesOnly = bankWith([fees, parts, d("NetIncomeLoss", 29_131)]).income_statement;
    expect(periodAt(feesOnly, "annual", "2022-12-31").values).toMatchObject({
      revenue: null,
      net_income: 29_131,
    });
    // Without an operating income line, a bank's EBIT is its pretax income: its revenue is
    // already net of interest expense (adding it back gave margins over 100%).
    expect(periodAt(out.income_statement, "annual", "2023-12-31").values.ebit).toBe(46_166);
  });

  test("a bank's period without a bank line keeps its reported revenue", () => {
    const d = (c: string, v: number, year: number) => flow(c, `${year}-01-01`, `${year}-12-31`, v);
    const out = computeStatements(
      syntheticCompany([
        d("SalesRevenueNet", 5_000, 2023),
        d("NetIncomeLoss", 400, 2023),
        d("CostOfRevenue", 3_000, 2023),
        d("SalesRevenueNet", 5_400, 2022),
        d("InterestIncomeExpenseNet", 300, 2022),
        d("NoninterestIncome", 100, 2022),
        instant("Assets", "2023-12-31", 9_000),
      ]),
    );
    const revenue = (end: string) => periodAt(out.income_statement, "annual", end).values.revenue;
    expect(revenue("2022-12-31")).toBe(400);
    expect(revenue("2023-12-31")).toBe(5_000);
  });

  test("no bank without noninterest income: the reported total revenue stays, EBIT = pretax income + interest expense (insurers)", () => {
    const d = (c: string, v: number) => flow(c, "2023-01-01", "2023-12-31", v);
    const out = computeStatements(
      syntheticCompany([
        // Net interest income alone is no bank: other companies tag net interest expense so.
        d("RevenueFromContractWithCustomerExcludingAssessedTax", 46_802),
        d("Revenues", 47_000),
        d("InterestIncomeExpenseNet", -1_030),
        d(
          "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
          4_560,
        ),
        d("InterestExpense", 1_030),
        instant("Assets", "2023-12-31", 539_306),
      ]),
    );
    const income = periodAt(out.income_statement, "annual", "2023-12-31").values;
    // Revenues, the total line, not the contract revenue that is a part of it.
    expect([income.revenue, income.ebit]).toEqual([47_000, 4_560 + 1_030]);
  });

  test("a REIT's funds from operations: net income + D&A + real estate impairment − property sale gains (NAREIT); null for other companies", () => {
    const d = (c: string, v: number, year = 2023) => flow(c, `${year}-01-01`, `${year}-12-31`, v);
    const facts = [
      d("NetIncomeLoss", 872_000),
      d("DepreciationDepletionAndAmortization", 1_895_000),
      d("ImpairmentOfRealEstate", 88_000),
      d("AssetImpairmentCharges", 95_000),
      d("GainsLossesOnSalesOfInvestmentRealEstate", 26_000),
      // 2022: a loss on sales (negative gain) adds back; impairment only as AssetImpairmentCharges.
      d("NetIncomeLoss", 869_000, 2022),
      d("DepreciationDepletionAndAmortization", 1_670_000, 2022),
      d("AssetImpairmentCharges", 25_000, 2022),
      d("GainLossOnSaleOfProperties", -4_000, 2022),
      // 2021: neither impairment nor gains; 2020: no D&A, so no FFO.
      d("NetIncomeLoss", 359_000, 2021),
      d("DepreciationDepletionAndAmortization", 898_000, 2021),
      d("Revenues", 2_080_000, 2021),
      d("NetIncomeLoss", 395_000, 2020),
      d("Revenues", 1_651_000, 2020),
      d("OperatingIncomeLoss", 700_000, 2020),
      instant("Assets", "2023-12-31", 57_779_000),
    ];
    const ffo = (sic: string | null) => {
      const cash = computeStatements(syntheticCompany(facts), { sic }).cash_flow_statement;
      return ["2023", "2022", "2021", "2020"].map(
        (y) => cash.find((p) => p.period_type === "annual" && p.period_end === `${y}-12-31`)?.values.ffo,
      );
    };
    expect(ffo("6798")).toEqual([
      872_000 + 1_895_000 + 88_000 - 26_000,
      869_000 + 1_670_000 + 25_000 + 4_000,
      359_000 + 898_000,
      null,
    ]);
    // A software company (SIC 7372) or one with no SIC is no REIT, whatever it tags.
    expect(ffo("7372")).toEqual([null, null, null, null]);
    expect(ffo(null)).toEqual([null, null, null, null]);
  });

  test("stockholders' equity = total equity − minority interest; a missing minority interest is 0 only for a company that never reports one", () => {
    const year = (y: number, facts: Fact[]) =>
      filing(`0000000123-${y % 100}-000001`, "10-K", y, "FY", `${y + 1}-02-15`, [
        flow("Revenues", `${y}-01-01`, `${y}-12-31`, 1000),
        instant("StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest", `${y}-12-31`, 500),
        ...facts,
      ]);
    const equityOf = (company: ReturnType<typeof syntheticCompany>, end: string) =>
      periodAt(computeStatements(company).balance_sheet, "annual", end).values.total_stockholders_equity;
    // A minority interest in 2022 and none reported for 2021: 2021's total may include one.
    const mixed = syntheticCompany([
      ...year(2021, []),
      ...year(2022, [instant("MinorityInterest", "2022-12-31", 30)]),
    ]);
    expect(equityOf(mixed, "2022-12-31")).toBe(470);
    expect(equityOf(mixed, "2021-12-31")).toBeNull();
    // No minority interest in any period: total equity is the stockholders'.
    const none = syntheticCompany([...year(2021, []), ...year(2022, [])]);
    expect(equityOf(none, "2021-12-31")).toBe(500);
    expect(equityOf(none, "2022-12-31")).toBe(500);
    // A minority interest reported as 0 is none.
    const zero = syntheticCompany([
      ...year(2021, []),
      ...year(2022, [instant("MinorityInterest", "2022-12-31", 0)]),
    ]);
    expect(equityOf(zero, "2021-12-31")).toBe(500);
  });

  test("IFRS debt: long-term borrowings + non-current bonds; the current portion comes out when the borrowings include it", () => {
    const ifrs = (facts: Fact[]) =>
      periodAt(
        computeStatements(
          syntheticCompany(
            [
              flow("Revenue", "2024-01-01", "2024-12-31", 2_894_000),
              instant("Assets", "2024-12-31", 6_691_000),
              instant("Equity", "2024-12-31", 3_950_000),
              ...facts,
            ].map((f) => ({ ...f, unit: "TWD", taxonomy: "ifrs-full" })),
          ),
        ).balance_sheet,
        "annual",
        "2024-12-31",
      ).values;
    // Bank loans and bonds on lines of their own: the non-current debt is both.
    const apart = ifrs([
      instant("LongtermBorrowings", "2024-12-31", 31_824),
      instant("NoncurrentPortionOfNoncurrentBondsIssued", "2024-12-31", 926_604),
      instant("CurrentPortionOfLongtermBorrowings", "2024-12-31", 59_858),
    ]);
    expect([apart.long_term_debt, apart.short_term_debt]).toEqual([31_824 + 926_604, 59_858]);
    // Long-term borrowings that include their current portion: with it they exceed all
    // borrowings (265,886 + 12,637 > 267,217), so it comes out of the non-current debt.
    const including = ifrs([
      instant("LongtermBorrowings", "2024-12-31", 265_886),
      instant("CurrentPortionOfLongtermBorrowings", "2024-12-31", 12_637),
      instant("Borrowings", "2024-12-31", 267_217),
    ]);
    expect([including.long_term_debt, including.short_term_debt]).toEqual([265_886 - 12_637, 12_637]);
    // Borrowings that hold both (296,000 ≥ 265,886 + 12,637): the long-term line is non-current.
    const separate = ifrs([
      instant("LongtermBorrowings", "2024-12-31", 265_886),
      instant("CurrentPortionOfLongtermBorrowings", "2024-12-31", 12_637),
      instant("Borrowings", "2024-12-31", 296_000),
    ]);
    expect(separate.long_term_debt).toBe(265_886);
  });

  test("a D&A line smaller than the amortization of intangibles does not include it: both count", () => {
    const da = (reported: number, amortization: number) => {
      const out = computeStatements(
        syntheticCompany([
          flow("Revenues", "2022-01-30", "2023-01-28", 5_920),
          flow("OperatingIncomeLoss", "2022-01-30", "2023-01-28", 238),
          flow("DepreciationAndAmortization", "2022-01-30", "2023-01-28", reported),
          flow("AmortizationOfIntangibleAssets", "2022-01-30", "2023-01-28", amortization),
        ]),
      );
      const income = periodAt(out.income_statement, "annual", "2023-01-28").values;
      const cash = periodAt(out.cash_flow_statement, "annual", "2023-01-28").values;
      return [
        cash.cash_flow_depreciation_depletion_amortization,
        income.depreciation_and_amortization,
        income.ebitda,
      ];
    };
    // Property depreciation 304.9 beside 1,087.4 of acquired-intangible amortization.
    expect(da(304.9, 1_087.4)).toEqual([1_392.3, 1_392.3, 238 + 1_392.3]);
    // A D&A line at least as large as the amortization may include it: as reported.
    expect(da(1_392.3, 1_087.4)).toEqual([1_392.3, 1_392.3, 238 + 1_392.3]);
  });

  test("a fallback concept (~) fills a period only when no other concept has it, not even from year-to-date figures", () => {
    // The cash-flow add-back is year-to-date in the 10-Qs; the notes' expense, another
    // measure, is reported for the quarter itself.
    const sbc = (withCashFlow: boolean) => {
      const q = (start: string, end: string, fp: string, filed: string, ytd: number, note: number) =>
        filing(`0000000123-25-00000${fp.slice(1)}`, "10-Q", 2025, fp, filed, [
          flow("Revenues", start, end, 90_000),
          flow("NetIncomeLoss", start, end, 28_000),
          flow("AllocatedShareBasedCompensationExpense", start, end, note),
          ...(withCashFlow ? [flow("ShareBasedCompensation", "2025-01-01", end, ytd)] : []),
        ]);
      const out = computeStatements(
        syntheticCompany([
          ...q("2025-01-01", "2025-03-31", "Q1", "2025-04-25", 5_516, 5_500),
          ...q("2025-04-01", "2025-06-30", "Q2", "2025-07-24", 11_514, 6_000),
        ]),
      );
      return periodAt(out.cash_flow_statement, "quarterly", "2025-06-30").values.stock_based_compensation;
    };
    expect(sbc(true)).toBe(11_514 - 5_516);
    expect(sbc(false)).toBe(6_000);
  });

  test("the year decides whether D&A leaves amortization out: one quarter's larger amortization (a mistag) adds nothing", () => {
    const q1 = (concept: string, val: number) => flow(concept, "2021-01-01", "2021-03-31", val);
    const fy = (concept: string, val: number) => flow(concept, "2021-01-01", "2021-12-31", val);
    const out = computeStatements(
      syntheticCompany([
        ...filing("0000000123-21-000001", "10-Q", 2021, "Q1", "2021-05-01", [
          q1("Revenues", 5_000),
          q1("NetIncomeLoss", 900),
          q1("DepreciationDepletionAndAmortization", 298),
          q1("AmortizationOfIntangibleAssets", 518),
        ]),
        ...filing("0000000123-22-000001", "10-K", 2021, "FY", "2022-02-15", [
          fy("Revenues", 21_000),
          fy("NetIncomeLoss", 4_000),
          fy("DepreciationDepletionAndAmortization", 1_174),
          fy("AmortizationOfIntangibleAssets", 563),
        ]),
      ]),
    );
    const da = (type: string) =>
      periodAt(out.cash_flow_statement, type, type === "annual" ? "2021-12-31" : "2021-03-31").values
        .cash_flow_depreciation_depletion_amortization;
    expect([da("annual"), da("quarterly")]).toEqual([1_174, 298]);
  });

  test("short-term debt: borrowings + current portion of long-term debt, once when one line carries both tags", () => {
    const shortTerm = (borrowings: number, current: number) =>
      periodAt(
        computeStatements(
          syntheticCompany([
            flow("Revenues", "2025-02-02", "2026-01-31", 8_200),
            instant("Assets", "2026-01-31", 20_500),
            instant("ShortTermBorrowings", "2026-01-31", borrowings),
            instant("LongTermDebtCurrent", "2026-01-31", current),
          ]),
        ).balance_sheet,
        "annual",
        "2026-01-31",
      ).values.short_term_debt;
    expect(shortTerm(499.8, 499.8)).toBe(499.8);
    expect(shortTerm(300, 499.8)).toBe(799.8);
  });

  test("the currency is the revenue/assets unit; other currencies are ignored", () => {
    const company = syntheticCompany(
      [
        flow("Revenue", "2022-01-01", "2022-12-31", 3000, "TWD"),
        { ...instant("Assets", "2022-12-31", 9000), unit: "TWD", taxonomy: "ifrs-full" },
        flow("Revenue", "2022-01-01", "2022-12-31", 100, "USD"),
      ].map((f) => ({ ...f, taxonomy: "ifrs-full" })),
    );
    const row = periodAt(computeStatements(company).income_statement, "annual", "2022-12-31");
    expect([row.currency, row.values.revenue]).toEqual(["TWD", 3000]);
  });

  test("facts of absurd duration make no period; a period without values is not emitted", () => {
    const company = syntheticCompany([
      flow("Revenues", "2022-01-01", "2022-01-31", 5),
      flow("Revenues", "2020-01-01", "2022-12-31", 900),
      flow("SomeUnmappedConcept", "2022-01-01", "2022-12-31", 1),
    ]);
    const out = computeStatements(company);
    expect([out.income_statement, out.balance_sheet, out.cash_flow_statement]).toEqual([[], [], []]);
  });
});
