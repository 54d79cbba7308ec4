/**
 * Statement computation on small synthetic companyfacts files: year-to-date differencing,
 * missing quarters, 52/53-week years, fiscal labels, restatements, per-share rules and derived
 * fields. Each test builds its own facts.
 */
import { describe, expect, test } from "bun:test";
import { computeStatements } from "../../src/ingest/rules/statements.ts";
import { ends, periodAt } from "../helpers/statement-rows.ts";
import {
  calendarYear,
  type Fact,
  filing,
  flow,
  instant,
  syntheticCompany,
} from "../helpers/synthetic-companyfacts.ts";

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
});
