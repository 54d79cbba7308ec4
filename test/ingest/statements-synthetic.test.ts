/**
 * Statement computation on small synthetic companyfacts files: year-to-date differencing,
 * missing quarters, 52/53-week years, restatements, fiscal labels, per-share rules, derived
 * fields, currency and filing metadata. Each test builds its own facts.
 */
import { describe, expect, test } from "bun:test";
import { inferSplits } from "../../src/ingest/compute/splits.ts";
import { computeStatements } from "../../src/ingest/compute/statements.ts";
import { filing, periodAt, type SyntheticFact, syntheticCompany } from "./companyfacts-helpers.ts";

type Fact = Omit<SyntheticFact, "accn" | "form" | "fy" | "fp" | "filed">;

const flow = (concept: string, start: string, end: string, val: number, unit = "USD"): Fact => ({
  concept,
  start,
  end,
  val,
  unit,
});
const instant = (concept: string, end: string, val: number): Fact => ({ concept, end, val });

/**
 * A calendar-year company's filings for `year`: 10-Qs with three-month revenue, net income
 * (half the revenue), diluted shares (10) and EPS, year-to-date operating cash flow (a tenth
 * of revenue), and a 10-K with the full year (no fourth-quarter figures, as in current
 * 10-Ks). `revenue[i]` is quarter i+1's revenue; `skip` leaves a quarter's filing out.
 */
function calendarYear(year: number, revenue: number[], skip: number | null = null): SyntheticFact[] {
  const quarterEnds = [`${year}-03-31`, `${year}-06-30`, `${year}-09-30`, `${year}-12-31`];
  const starts = [`${year}-01-01`, `${year}-04-01`, `${year}-07-01`, `${year}-10-01`];
  const out: SyntheticFact[] = [];
  quarterEnds.forEach((end, i) => {
    if (i === skip) return;
    const toDate = revenue.slice(0, i + 1).reduce((a, b) => a + b, 0);
    const own = i < 3 ? (revenue[i] ?? 0) : toDate;
    const start = i < 3 ? (starts[i] as string) : `${year}-01-01`;
    const facts: Fact[] = [
      instant("Assets", end, 1000 * (year - 2000) + i),
      flow("NetCashProvidedByUsedInOperatingActivities", `${year}-01-01`, end, toDate / 10),
      flow("Revenues", `${year}-01-01`, end, toDate),
      flow("NetIncomeLoss", start, end, own / 2),
      flow("WeightedAverageNumberOfDilutedSharesOutstanding", start, end, 10, "shares"),
      flow("EarningsPerShareDiluted", start, end, own / 20, "USD/shares"),
    ];
    if (i > 0 && i < 3) facts.push(flow("Revenues", start, end, own));
    const filed = i < 3 ? `${year}-${["05", "08", "11"][i]}-01` : `${year + 1}-02-15`;
    const form = i < 3 ? "10-Q" : "10-K";
    out.push(
      ...filing(`0000000123-${year % 100}-00000${i}`, form, year, i < 3 ? `Q${i + 1}` : "FY", filed, facts),
    );
  });
  return out;
}

const ends = (rows: { period_type: string; period_end: string }[], type: string) =>
  rows
    .filter((r) => r.period_type === type)
    .map((r) => r.period_end)
    .sort();

describe("quarters and TTM from synthetic facts", () => {
  test("year-to-date figures are differenced into quarters; Q4 = FY − 9M", () => {
    const out = computeStatements(syntheticCompany(calendarYear(2022, [100, 110, 120, 130])));
    const cfo = (end: string) =>
      periodAt(out.cash_flow_statement, "quarterly", end).values.cash_flow_from_operations;
    expect([cfo("2022-03-31"), cfo("2022-06-30"), cfo("2022-09-30"), cfo("2022-12-31")]).toEqual([
      10, 11, 12, 13,
    ]);
    const q4 = periodAt(out.income_statement, "quarterly", "2022-12-31");
    expect([q4.fiscal_year, q4.fiscal_quarter, q4.period_start, q4.values.revenue]).toEqual([
      2022,
      4,
      "2022-10-01",
      130,
    ]);
    expect(q4.first_filed).toBe("2023-02-15");
    expect(periodAt(out.income_statement, "annual", "2022-12-31").values.revenue).toBe(460);
  });

  test("without a 9-month figure, Q4 = FY − Q1 − Q2 − Q3", () => {
    const facts = calendarYear(2022, [100, 110, 120, 130]).filter(
      (f) => !(f.concept === "Revenues" && f.start === "2022-01-01" && f.end === "2022-09-30"),
    );
    const out = computeStatements(syntheticCompany(facts));
    expect(periodAt(out.income_statement, "quarterly", "2022-12-31").values.revenue).toBe(130);
  });

  test("a TTM row per quarter end closing four consecutive quarters, equal to their sum", () => {
    const out = computeStatements(
      syntheticCompany([
        ...calendarYear(2022, [100, 110, 120, 130]),
        ...calendarYear(2023, [200, 210, 220, 230]),
      ]),
    );
    expect(ends(out.income_statement, "ttm")).toEqual([
      "2022-12-31",
      "2023-03-31",
      "2023-06-30",
      "2023-09-30",
      "2023-12-31",
    ]);
    const ttm = periodAt(out.income_statement, "ttm", "2023-06-30");
    expect([ttm.fiscal_year, ttm.fiscal_quarter, ttm.period_start, ttm.values.revenue]).toEqual([
      2023,
      2,
      "2022-07-01",
      660,
    ]);
    expect(periodAt(out.cash_flow_statement, "ttm", "2023-06-30").values.cash_flow_from_operations).toBe(66);
    // Balances are never summed: the TTM balance sheet is the latest instant.
    expect(periodAt(out.balance_sheet, "ttm", "2023-06-30").values.total_assets).toBe(23001);
  });

  test("a missing quarter leaves no TTM across it, and no value that needs it", () => {
    const out = computeStatements(
      syntheticCompany([
        ...calendarYear(2022, [100, 110, 120, 130], 2),
        ...calendarYear(2023, [200, 210, 220, 230]),
      ]),
    );
    expect(ends(out.income_statement, "quarterly")).not.toContain("2022-09-30");
    // Q4 2022 needs the 9-month figure: no income row, while its balance sheet stands.
    expect(ends(out.income_statement, "quarterly")).not.toContain("2022-12-31");
    expect(periodAt(out.balance_sheet, "quarterly", "2022-12-31").values.total_assets).toBe(22003);
    expect(ends(out.income_statement, "ttm")).toEqual(["2023-12-31"]);
    expect(ends(out.balance_sheet, "ttm")).toEqual(["2023-12-31"]);
  });

  test("a 53-week year with a 14-week first quarter, labelled as its 10-K labels it", () => {
    const fy = (fp: string, filed: string, facts: Fact[]) =>
      filing(`0000000123-23-${fp}`, fp === "FY" ? "10-K" : "10-Q", 2023, fp, filed, facts);
    const ni = "NetIncomeLoss";
    const company = syntheticCompany([
      ...fy("Q1", "2023-02-01", [flow(ni, "2022-09-25", "2022-12-31", 98)]),
      ...fy("Q2", "2023-05-01", [
        flow(ni, "2023-01-01", "2023-04-01", 91),
        flow(ni, "2022-09-25", "2023-04-01", 189),
      ]),
      ...fy("Q3", "2023-08-01", [
        flow(ni, "2023-04-02", "2023-07-01", 92),
        flow(ni, "2022-09-25", "2023-07-01", 281),
      ]),
      ...fy("FY", "2023-11-01", [
        flow(ni, "2022-09-25", "2023-09-30", 371),
        ...["Revenues", "CostOfRevenue", ni].map((c) => flow(c, "2021-09-26", "2022-09-24", 364)),
      ]),
    ]);
    const out = computeStatements(company);
    const fy2023 = periodAt(out.income_statement, "annual", "2023-09-30");
    expect([fy2023.fiscal_year, fy2023.period_start]).toEqual([2023, "2022-09-25"]);
    // FY2022 appears only as a comparative in the FY2023 10-K: labelled by offset.
    expect(periodAt(out.income_statement, "annual", "2022-09-24").fiscal_year).toBe(2022);
    const q1 = periodAt(out.income_statement, "quarterly", "2022-12-31");
    expect([q1.fiscal_year, q1.fiscal_quarter, q1.values.net_income]).toEqual([2023, 1, 98]);
    const q4 = periodAt(out.income_statement, "quarterly", "2023-09-30");
    expect([q4.fiscal_quarter, q4.period_start, q4.values.net_income]).toEqual([4, "2023-07-02", 90]);
  });

  test("quarters after the last 10-K fall into the next fiscal year; 10-Q-only companies use the 10-Q labels", () => {
    const out = computeStatements(syntheticCompany(calendarYear(2023, [1, 2, 3, 4], 3)));
    const q3 = periodAt(out.income_statement, "quarterly", "2023-09-30");
    expect([q3.fiscal_year, q3.fiscal_quarter]).toEqual([2023, 3]);
    expect(out.income_statement.filter((p) => p.period_type === "annual")).toHaveLength(0);
  });
});

describe("values, restatements and labels", () => {
  test("the latest filing's value wins; the period keeps its own fiscal label and filing dates", () => {
    const rev = (val: number) => [flow("Revenues", "2022-01-01", "2022-12-31", val)];
    const company = syntheticCompany([
      ...filing("0000000123-23-000001", "10-K", 2022, "FY", "2023-02-15", rev(460)),
      ...filing("0000000123-24-000001", "10-K", 2023, "FY", "2024-02-15", [
        ...rev(470),
        flow("Revenues", "2023-01-01", "2023-12-31", 500),
      ]),
      // Same filing date: the higher accession number wins.
      ...filing("0000000123-24-000002", "10-K/A", 2023, "FY", "2024-02-15", rev(475)),
    ]);
    const fy2022 = periodAt(computeStatements(company).income_statement, "annual", "2022-12-31");
    expect([fy2022.fiscal_year, fy2022.values.revenue]).toEqual([2022, 475]);
    expect([fy2022.first_filed, fy2022.last_filed]).toEqual(["2023-02-15", "2024-02-15"]);
  });

  test("per-share amounts: reported quarters only; TTM = TTM net income / mean diluted shares, FY window = reported", () => {
    const out = computeStatements(
      syntheticCompany([
        ...calendarYear(2022, [100, 110, 120, 130]),
        ...calendarYear(2023, [200, 210, 220, 230]),
      ]),
    );
    const q4 = periodAt(out.income_statement, "quarterly", "2022-12-31").values;
    expect([q4.net_income, q4.diluted_eps, q4.diluted_average_shares]).toEqual([65, null, null]);
    // Q3 2022 .. Q2 2023: net income 60 + 65 + 100 + 105; shares: the mean of the three reported quarters.
    const ttm = periodAt(out.income_statement, "ttm", "2023-06-30").values;
    expect([ttm.net_income, ttm.diluted_average_shares, ttm.diluted_eps]).toEqual([330, 10, 33]);
    // A window that is exactly the fiscal year takes the 10-K's full-year figures.
    const year = periodAt(out.income_statement, "ttm", "2023-12-31").values;
    expect([year.diluted_eps, year.diluted_average_shares]).toEqual([43, 10]);
  });

  test("derived fields and the cash-flow sign convention", () => {
    const d = (c: string, v: number) => flow(c, "2022-01-01", "2022-12-31", v);
    const company = syntheticCompany([
      d("Revenues", 1000),
      d("CostOfRevenue", 600),
      d("OperatingIncomeLoss", 150),
      d("DepreciationDepletionAndAmortization", 50),
      d("NetCashProvidedByUsedInOperatingActivities", 300),
      d("PaymentsToAcquirePropertyPlantAndEquipment", 80),
      d("PaymentsOfDividends", 20),
      instant("StockholdersEquity", "2022-12-31", 500),
      instant("MinorityInterest", "2022-12-31", 20),
      instant("Assets", "2022-12-31", 2000),
      instant("LongTermDebtNoncurrent", "2022-12-31", 250),
      instant("DebtCurrent", "2022-12-31", 50),
    ]);
    const out = computeStatements(company);
    const income = periodAt(out.income_statement, "annual", "2022-12-31").values;
    expect([income.gross_profit, income.operating_expense, income.ebit, income.ebitda]).toEqual([
      400, 250, 150, 200,
    ]);
    const cash = periodAt(out.cash_flow_statement, "annual", "2022-12-31").values;
    expect([
      cash.cash_flow_capital_expenditure,
      cash.dividends_paid_direct,
      cash.total_free_cash_flow,
    ]).toEqual([-80, -20, 220]);
    const balance = periodAt(out.balance_sheet, "annual", "2022-12-31").values;
    expect([balance.total_equity, balance.debt_to_equity, balance.equity_to_asset]).toEqual([520, 0.6, 0.25]);
    expect(balance.good_will).toBeNull();
  });

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

describe("filings and cover share counts", () => {
  /** One cover-page count (one share class) of a filing. */
  const coverCount = (end: string, val: number, accn: string, filed: string) => ({
    concept: "EntityCommonStockSharesOutstanding",
    taxonomy: "dei",
    unit: "shares",
    end,
    val,
    accn,
    filed,
  });

  test("report period from the filing's own durations, DocumentPeriodEndDate when present; amendments flagged", () => {
    const company = syntheticCompany([
      ...filing("0000000123-23-000001", "10-Q", 2023, "Q2", "2023-08-01", [
        flow("Revenues", "2023-04-01", "2023-06-30", 1),
        flow("Revenues", "2023-07-01", "2023-09-30", 2), // guidance for the next quarter
      ]),
      ...filing("0000000123-23-000002", "10-K/A", 2022, "FY", "2023-04-01", [
        flow("Revenues", "2022-01-01", "2022-12-31", 9),
      ]),
      ...filing("0000000123-23-000003", "8-K", 2023, "Q2", "2023-08-01", [
        flow("Revenues", "2023-04-01", "2023-06-30", 1),
      ]),
    ]);
    company.documents.set("0000000123-23-000002", { periodEndDate: "2022-12-30", amendmentFlag: null });
    const filings = computeStatements(company).filings;
    expect(filings.map((f) => [f.accession_number, f.period, f.amendment_flag])).toEqual([
      ["0000000123-23-000001", "2023-06-30", false],
      ["0000000123-23-000002", "2022-12-30", true],
    ]);
  });

  test("share classes of one cover page are summed; each filing of a date is kept with its own filing date", () => {
    const cover = (accn: string, filed: string, vals: number[]) =>
      vals.map((val) => coverCount("2024-01-20", val, accn, filed));
    const company = syntheticCompany([
      ...cover("0000000123-24-000001", "2024-02-01", [300, 50]),
      ...cover("0000000123-24-000009", "2024-03-01", [360]),
    ]);
    expect(computeStatements(company).shares_outstanding).toEqual([
      { date: "2024-01-20", filed: "2024-02-01", value: 350 },
      { date: "2024-01-20", filed: "2024-03-01", value: 360 },
    ]);
    const single = syntheticCompany(cover("0000000123-24-000001", "2024-02-01", [300, 50]));
    expect(computeStatements(single).shares_outstanding).toEqual([
      { date: "2024-01-20", filed: "2024-02-01", value: 350 },
    ]);
  });

  // Alphabet-like: no cover count; balance-sheet counts, with a 20-for-1 split in July 2022
  // that the 10-Q of 2022-07-27 applies to its 2021-12-31 comparative too.
  const balanceCount = (end: string, val: number) => ({
    concept: "CommonStockSharesOutstanding",
    unit: "shares",
    end,
    val,
  });
  const balanceCounts = [
    ...filing("0000000123-22-000019", "10-K", 2021, "FY", "2022-02-02", [
      balanceCount("2020-12-31", 675),
      balanceCount("2021-12-31", 662),
    ]),
    ...filing("0000000123-22-000071", "10-Q", 2022, "Q2", "2022-07-27", [
      balanceCount("2021-12-31", 13_240),
      balanceCount("2022-06-30", 13_078),
    ]),
  ];

  test("without a cover count, each filing's balance-sheet count at its own date, not its comparatives", () => {
    const shares = computeStatements(syntheticCompany(balanceCounts)).shares_outstanding;
    expect(shares).toEqual([
      { date: "2021-12-31", filed: "2022-02-02", value: 662 },
      { date: "2022-06-30", filed: "2022-07-27", value: 13_078 },
    ]);
    // The restated comparative (13,240 at 2021-12-31) would read as a split at 2021-12-31.
    expect(inferSplits(shares)).toEqual([{ date: "2022-06-30", ratio: 20 }]);
  });

  test("cover counts that stopped more than a year before the balance sheets give way to them", () => {
    const company = syntheticCompany([
      ...balanceCounts,
      coverCount("2021-01-20", 680, "0000000123-21-000003", "2021-02-01"),
    ]);
    // The last cover count (2021-01-20) is 526 days older than the last balance sheet's
    // (2022-06-30): the series is the balance sheets' alone, as pinned by the test above.
    const balanceOnly = computeStatements(syntheticCompany(balanceCounts)).shares_outstanding;
    expect(computeStatements(company).shares_outstanding).toEqual(balanceOnly);
  });

  test("a company with current cover counts never uses the balance-sheet counts", () => {
    const company = syntheticCompany([
      ...balanceCounts,
      coverCount("2022-07-20", 13_070, "0000000123-22-000071", "2022-07-27"),
    ]);
    expect(computeStatements(company).shares_outstanding).toEqual([
      { date: "2022-07-20", filed: "2022-07-27", value: 13_070 },
    ]);
  });
});
