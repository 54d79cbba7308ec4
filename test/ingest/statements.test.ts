/**
 * Statements computed from the real companyfacts files in STOCKD_FIXTURES (skipped with a
 * notice when unset). Every expected value is read from the raw SEC fact list by concept and
 * period (rawValue), never from the code's own output; derived quarters and TTM sums are
 * recomputed here from raw facts.
 */
import { describe, expect, test } from "bun:test";
import type { StatementPeriod } from "../../src/domain/statements.ts";
import { type ComputedStatements, computeStatements } from "../../src/ingest/rules/statements.ts";
import { parseCompanyFacts } from "../../src/ingest/sources/companyfacts.ts";
import { FIXTURES } from "../helpers/env.ts";
import {
  latestValue,
  periodFacts,
  readCompanyFacts,
  type SecCompanyFacts,
} from "../helpers/raw-companyfacts.ts";
import { periodAt } from "../helpers/statement-rows.ts";

const AAPL = "0000320193";
const NVDA = "0001045810";
const TSLA = "0001318605";
const TSM = "0001046179";
const GOOGL = "0001652044";
const MRVL = "0001835632";

const root = FIXTURES ?? "";
const computed = new Map<string, { raw: SecCompanyFacts; out: ComputedStatements }>();
function company(cik: string) {
  let entry = computed.get(cik);
  if (entry === undefined) {
    const raw = readCompanyFacts(root, cik);
    entry = { raw, out: computeStatements(parseCompanyFacts(raw, `CIK${cik}.json`)) };
    computed.set(cik, entry);
  }
  return entry;
}

const REVENUE = ["RevenueFromContractWithCustomerExcludingAssessedTax", "Revenues", "SalesRevenueNet"];
const NET_INCOME = ["NetIncomeLoss"];
const CFO = ["NetCashProvidedByUsedInOperatingActivities"];
const CAPEX = ["PaymentsToAcquirePropertyPlantAndEquipment", "PaymentsToAcquireProductiveAssets"];
const DILUTED_SHARES = ["WeightedAverageNumberOfDilutedSharesOutstanding"];

/**
 * Checks the six named values of a duration period against the raw facts. `splitSince` is the
 * product of the ratios of the company's stock splits after the share count was filed: counts
 * are served on today's basis.
 */
function expectNamedValues(cik: string, type: string, start: string, end: string, splitSince = 1): void {
  const { raw, out } = company(cik);
  const income = periodAt(out.income_statement, type, end);
  const cash = periodAt(out.cash_flow_statement, type, end);
  const balance = periodAt(out.balance_sheet, type, end);
  expect(income.period_start, `${cik} ${type} ${end} start`).toBe(start);
  expect(income.values.revenue, "revenue").toBe(latestValue(raw, REVENUE, start, end));
  expect(income.values.net_income, "net income").toBe(latestValue(raw, NET_INCOME, start, end));
  expect(income.values.diluted_average_shares, "diluted shares").toBe(
    latestValue(raw, DILUTED_SHARES, start, end, "shares") * splitSince,
  );
  expect(balance.values.total_assets, "total assets at the period end").toBe(
    latestValue(raw, ["Assets"], null, end),
  );
  expect(cash.values.cash_flow_from_operations, "operating cash flow").toBe(
    latestValue(raw, CFO, start, end),
  );
  // Cash-flow sign convention: capital expenditure is an outflow, stored negative.
  expect(cash.values.cash_flow_capital_expenditure, "capex (negated payments)").toBe(
    -latestValue(raw, CAPEX, start, end),
  );
}

describe.skipIf(!FIXTURES)("statements from real companyfacts", () => {
  test("Apple FY2023 and Q1 FY2024 equal the reported facts", () => {
    expectNamedValues(AAPL, "annual", "2022-09-25", "2023-09-30");
    expectNamedValues(AAPL, "quarterly", "2023-10-01", "2023-12-30");
    const fy = periodAt(company(AAPL).out.income_statement, "annual", "2023-09-30");
    expect(fy.fiscal_year).toBe(2023);
    expect(fy.currency).toBe("USD");
    const q1 = periodAt(company(AAPL).out.income_statement, "quarterly", "2023-12-30");
    expect([q1.fiscal_year, q1.fiscal_quarter]).toEqual([2024, 1]);
  });

  test("NVIDIA FY2024 (ending 2024-01-28), Q1 and Q3 FY2025 equal the reported facts", () => {
    expectNamedValues(NVDA, "annual", "2023-01-30", "2024-01-28");
    expectNamedValues(NVDA, "quarterly", "2024-01-29", "2024-04-28");
    const { raw, out } = company(NVDA);
    expect(periodAt(out.income_statement, "annual", "2024-01-28").fiscal_year).toBe(2024);
    const q3 = periodAt(out.income_statement, "quarterly", "2024-10-27");
    expect([q3.fiscal_year, q3.fiscal_quarter]).toEqual([2025, 3]);
    expect(q3.values.revenue).toBe(latestValue(raw, REVENUE, "2024-07-29", "2024-10-27"));
    expect(q3.values.diluted_eps).toBe(
      latestValue(raw, ["EarningsPerShareDiluted"], "2024-07-29", "2024-10-27", "USD/shares"),
    );
  });

  test("Tesla FY2021 equals the reported facts; 2022 quarters fall in FY2022 without a 10-K", () => {
    // Its FY2021 count was filed in the 10-K of 2022-02-07, before the 3-for-1 split of 2022-08-25.
    expectNamedValues(TSLA, "annual", "2021-01-01", "2021-12-31", 3);
    const { raw, out } = company(TSLA);
    const q3 = periodAt(out.cash_flow_statement, "quarterly", "2022-09-30");
    expect([q3.fiscal_year, q3.fiscal_quarter]).toEqual([2022, 3]);
    // Tesla's 10-Q cash-flow statements are year-to-date only: Q3 = 9M − 6M.
    const nine = latestValue(raw, CFO, "2022-01-01", "2022-09-30");
    const six = latestValue(raw, CFO, "2022-01-01", "2022-06-30");
    expect(periodFacts(raw, CFO[0] as string, "2022-07-01", "2022-09-30")).toHaveLength(0);
    expect(q3.values.cash_flow_from_operations).toBe(nine - six);
    expect(out.income_statement.some((p) => p.period_type === "annual" && p.fiscal_year === 2022)).toBe(
      false,
    );
  });

  test("long-term debt from LongTermDebt when no non-current concept is tagged (Tesla, Apple, NVIDIA)", () => {
    const cases = [
      // Tesla tags its non-current debt as LongTermDebt and its current debt as DebtCurrent.
      { cik: TSLA, end: "2021-12-31", type: "annual" },
      { cik: TSLA, end: "2022-06-30", type: "quarterly" },
      // No current maturities then: LongTermDebt is all non-current.
      { cik: AAPL, end: "2014-12-27", type: "quarterly" },
      { cik: NVDA, end: "2020-04-26", type: "quarterly" },
    ];
    for (const c of cases) {
      const { raw, out } = company(c.cik);
      for (const concept of ["LongTermDebtNoncurrent", "LongTermDebtCurrent", "LongTermNotesPayable"]) {
        expect(periodFacts(raw, concept, null, c.end), `${c.cik} ${concept}`).toHaveLength(0);
      }
      const balance = periodAt(out.balance_sheet, c.type, c.end);
      const debt = latestValue(raw, ["LongTermDebt"], null, c.end);
      expect(balance.values.long_term_debt, `${c.cik} ${c.end}`).toBe(debt);
      const leases = balance.values.long_term_capital_lease_obligation ?? 0;
      expect(balance.values.long_term_debt_and_capital_lease_obligation).toBe(debt + leases);
    }
    // Tesla 2021: the statement's "debt and finance leases, net of current portion" (5,245 M).
    const tesla = periodAt(company(TSLA).out.balance_sheet, "annual", "2021-12-31");
    expect(tesla.values.long_term_debt_and_capital_lease_obligation).toBe(
      latestValue(company(TSLA).raw, ["LongTermDebt"], null, "2021-12-31") +
        latestValue(company(TSLA).raw, ["FinanceLeaseLiabilityNoncurrent"], null, "2021-12-31"),
    );
  });

  test("Alphabet's LongTermDebt, above its reported debt including finance leases, is not taken as long-term debt", () => {
    const { raw, out } = company(GOOGL);
    const balance = periodAt(out.balance_sheet, "annual", "2021-12-31");
    expect(latestValue(raw, ["LongTermDebt"], null, "2021-12-31")).toBeGreaterThan(
      latestValue(raw, ["LongTermDebtAndCapitalLeaseObligations"], null, "2021-12-31"),
    );
    expect(balance.values.long_term_debt).toBeNull();
    expect(balance.values.long_term_debt_and_capital_lease_obligation).toBe(
      latestValue(raw, ["LongTermDebtAndCapitalLeaseObligations"], null, "2021-12-31"),
    );
  });

  test("a Q2 cash flow is the 6-month YTD minus Q1 (Apple FY2024)", () => {
    const { raw, out } = company(AAPL);
    const q2 = periodAt(out.cash_flow_statement, "quarterly", "2024-03-30");
    const six = latestValue(raw, CFO, "2023-10-01", "2024-03-30");
    const q1 = latestValue(raw, CFO, "2023-10-01", "2023-12-30");
    expect(q2.values.cash_flow_from_operations).toBe(six - q1);
    expect(q2.period_start).toBe("2023-12-31");
  });

  test("a derived Q4 equals the fiscal year minus the 9-month YTD (Apple FY2023, NVIDIA FY2025)", () => {
    const cases = [
      {
        cik: AAPL,
        fyStart: "2022-09-25",
        nineEnd: "2023-07-01",
        end: "2023-09-30",
        quarterStart: "2023-07-02",
      },
      {
        cik: NVDA,
        fyStart: "2024-01-29",
        nineEnd: "2024-10-27",
        end: "2025-01-26",
        quarterStart: "2024-10-28",
      },
    ];
    for (const c of cases) {
      const { raw, out } = company(c.cik);
      const q4Income = periodAt(out.income_statement, "quarterly", c.end);
      const q4Cash = periodAt(out.cash_flow_statement, "quarterly", c.end);
      expect(q4Income.fiscal_quarter).toBe(4);
      expect(q4Income.period_start).toBe(c.quarterStart);
      const q4 = (concepts: string[]) =>
        latestValue(raw, concepts, c.fyStart, c.end) - latestValue(raw, concepts, c.fyStart, c.nineEnd);
      expect(q4Cash.values.cash_flow_from_operations, `${c.cik} Q4 CFO`).toBe(q4(CFO));
      expect(q4Cash.values.cash_flow_capital_expenditure, `${c.cik} Q4 capex`).toBe(-q4(CAPEX));
      expect(q4Income.values.net_income, `${c.cik} Q4 net income`).toBe(q4(NET_INCOME));
      // Per-share amounts and share counts are never differenced.
      expect(q4Income.values.diluted_eps).toBeNull();
    }
  });

  test("a TTM equals the sum of its four quarters and the raw FY − Q1 + next Q1", () => {
    const { raw, out } = company(AAPL);
    const ttm = periodAt(out.income_statement, "ttm", "2023-12-30");
    expect([ttm.fiscal_year, ttm.fiscal_quarter, ttm.period_start]).toEqual([2024, 1, "2023-01-01"]);
    const quarters = out.income_statement.filter(
      (p) => p.period_type === "quarterly" && p.period_end > "2022-12-31" && p.period_end <= "2023-12-30",
    );
    expect(quarters).toHaveLength(4);
    const sum = quarters.reduce((s, q) => s + (q.values.revenue ?? Number.NaN), 0);
    expect(ttm.values.revenue).toBe(sum);
    const fromRaw =
      latestValue(raw, REVENUE, "2022-09-25", "2023-09-30") -
      latestValue(raw, REVENUE, "2022-09-25", "2022-12-31") +
      latestValue(raw, REVENUE, "2023-10-01", "2023-12-30");
    expect(ttm.values.revenue).toBe(fromRaw);
    const balance = periodAt(out.balance_sheet, "ttm", "2023-12-30");
    expect(balance.values.total_assets).toBe(latestValue(raw, ["Assets"], null, "2023-12-30"));
  });

  test("every TTM row is the sum of four consecutive quarterly rows", () => {
    for (const cik of [AAPL, NVDA, TSLA]) {
      const rows = company(cik).out.cash_flow_statement;
      for (const ttm of rows.filter((p) => p.period_type === "ttm")) {
        const quarters = rows.filter(
          (p) =>
            p.period_type === "quarterly" &&
            p.period_end <= ttm.period_end &&
            p.period_end > (ttm.period_start ?? ""),
        );
        expect(quarters, `${cik} TTM ${ttm.period_end}`).toHaveLength(4);
        const parts = quarters.map((q) => q.values.cash_flow_from_operations);
        const expected = parts.includes(null) ? null : parts.reduce((s: number, v) => s + (v ?? 0), 0);
        expect(ttm.values.cash_flow_from_operations, `${cik} TTM ${ttm.period_end}`).toBe(expected);
      }
    }
  });

  test("a TTM across Tesla's 3-for-1 split (August 2022) averages its quarters' share counts on the post-split basis", () => {
    const { raw, out } = company(TSLA);
    const ttm = periodAt(out.income_statement, "ttm", "2022-09-30");
    const q1 = latestValue(raw, DILUTED_SHARES, "2022-01-01", "2022-03-31", "shares");
    const q2 = latestValue(raw, DILUTED_SHARES, "2022-04-01", "2022-06-30", "shares");
    const q3 = latestValue(raw, DILUTED_SHARES, "2022-07-01", "2022-09-30", "shares");
    // Q1 and Q2 were filed before the split, Q3 after it; the 10-K gives no Q4 2021 count.
    expect(q3 / q1).toBeCloseTo(3, 1);
    expect(periodFacts(raw, DILUTED_SHARES[0] as string, "2021-10-01", "2021-12-31", "shares")).toEqual([]);
    const shares = Math.round((q1 * 3 + q2 * 3 + q3) / 3);
    expect(ttm.values.diluted_average_shares).toBe(shares);
    // TTM EPS divides the earnings available to common stockholders by that count.
    const common = ["NetIncomeLossAvailableToCommonStockholdersBasic"];
    const earnings =
      latestValue(raw, common, "2021-01-01", "2021-12-31") -
      latestValue(raw, common, "2021-01-01", "2021-09-30") +
      latestValue(raw, common, "2022-01-01", "2022-09-30");
    expect(ttm.values.diluted_eps).toBeCloseTo(earnings / shares, 10);
  });

  test("no TTM mixes share bases: its average count is near its latest-filed quarter's (Apple, NVIDIA, Tesla splits)", () => {
    for (const cik of [AAPL, NVDA, TSLA]) {
      const rows = company(cik).out.income_statement;
      // A TTM that is a fiscal year carries the year's reported (possibly restated) count.
      const yearEnds = new Set(rows.filter((p) => p.period_type === "annual").map((p) => p.period_end));
      // From 2012: NVIDIA's FY2011 10-Qs tagged their counts in thousands (572,764 shares), a
      // filer's error that is served as filed.
      const averaged = rows.filter(
        (p) =>
          p.period_type === "ttm" &&
          p.period_end >= "2012-01-01" &&
          p.values.diluted_average_shares !== null &&
          !yearEnds.has(p.period_end),
      );
      expect(averaged.length, cik).toBeGreaterThan(10);
      for (const ttm of averaged) {
        const latest = rows
          .filter(
            (p) =>
              p.period_type === "quarterly" &&
              p.period_end <= ttm.period_end &&
              p.period_end > (ttm.period_start ?? "") &&
              p.values.diluted_average_shares !== null,
          )
          // The basis of the latest filing among them, as the TTM's own last_filed is.
          .sort(
            (a, b) => a.last_filed.localeCompare(b.last_filed) || a.period_end.localeCompare(b.period_end),
          )
          .at(-1);
        if (latest === undefined) continue;
        const ratio = (ttm.values.diluted_average_shares ?? 0) / (latest.values.diluted_average_shares ?? 1);
        expect(Math.abs(ratio - 1), `${cik} TTM ${ttm.period_end}: ${ratio}`).toBeLessThan(0.15);
      }
    }
  });

  test("a quarter whose EPS a later 10-K restated for a split carries its count on that basis (Apple Q3 FY2019)", () => {
    const { raw, out } = company(AAPL);
    const row = periodAt(out.income_statement, "quarterly", "2019-06-29");
    const eps = periodFacts(raw, "EarningsPerShareDiluted", "2019-03-31", "2019-06-29", "USD/shares").sort(
      (a, b) => a.filed.localeCompare(b.filed),
    );
    // The 10-Q reported 2.18; the FY2020 10-K, after the 4-for-1 split of August 2020, 0.55.
    expect([eps[0]?.val, eps.at(-1)?.val]).toEqual([2.18, 0.55]);
    expect(row.values.diluted_eps).toBe(0.55);
    const filedCount = latestValue(raw, DILUTED_SHARES, "2019-03-31", "2019-06-29", "shares");
    expect(row.values.diluted_average_shares).toBe(filedCount * 4);
  });

  test("one filing's EPS and count are never realigned: a rounded EPS is not a split (Marvell Q2 FY2023)", () => {
    const { raw, out } = company(MRVL);
    const row = periodAt(out.income_statement, "quarterly", "2022-07-30");
    // The 10-Q reported EPS 0.01 on 4.3M of earnings and 857.9M shares: 0.01 × count / earnings ≈ 2.
    const shares = latestValue(raw, DILUTED_SHARES, "2022-05-01", "2022-07-30", "shares");
    expect(latestValue(raw, ["EarningsPerShareDiluted"], "2022-05-01", "2022-07-30", "USD/shares")).toBe(
      0.01,
    );
    expect(row.values.diluted_average_shares).toBe(shares);
    const ttm = periodAt(out.income_statement, "ttm", "2022-07-30");
    expect((ttm.values.diluted_average_shares as number) / shares).toBeCloseTo(1, 1);
  });

  test("EPS × diluted count ≈ earnings in every row (no row mixes split bases)", () => {
    for (const cik of [AAPL, NVDA, TSLA]) {
      let checked = 0;
      for (const p of company(cik).out.income_statement) {
        const { diluted_eps: eps, diluted_average_shares: shares } = p.values;
        const earnings = p.values.net_income_common_stockholders ?? p.values.net_income;
        // From 2012: NVIDIA's FY2011 10-Qs tagged their counts in thousands.
        // Tesla's Q1 2013 10-Q reported a diluted EPS of 0 on 11.2M of earnings.
        if (p.period_end < "2012-01-01" || !eps || !shares || earnings == null) continue;
        const implied = earnings / shares;
        expect(
          Math.abs(eps - implied),
          `${cik} ${p.period_type} ${p.period_end}: ${eps} vs ${implied}`,
        ).toBeLessThan(0.011 + 0.05 * Math.abs(implied));
        checked++;
      }
      expect(checked, cik).toBeGreaterThan(30);
    }
  });

  test("D&A: the combined concept where tagged, else depreciation + amortization of intangibles (Marvell, TSM)", () => {
    const mrvl = company(MRVL);
    // FY2023: DepreciationAndAmortization, although Depreciation alone was filed later; it is
    // smaller than the year's AmortizationOfIntangibleAssets, so it cannot include it: both.
    const fy2023 = periodAt(mrvl.out.cash_flow_statement, "annual", "2023-01-28");
    const combined = latestValue(mrvl.raw, ["DepreciationAndAmortization"], "2022-01-30", "2023-01-28");
    const depreciation = periodFacts(mrvl.raw, "Depreciation", "2022-01-30", "2023-01-28");
    expect(depreciation.some((f) => f.filed > "2024-01-01" && f.val < combined)).toBe(true);
    const amortization = latestValue(
      mrvl.raw,
      ["AmortizationOfIntangibleAssets"],
      "2022-01-30",
      "2023-01-28",
    );
    expect(amortization).toBeGreaterThan(combined);
    expect(fy2023.values.cash_flow_depreciation_depletion_amortization).toBe(combined + amortization);
    // FY2026: only the parts are tagged.
    const fy2026 = periodAt(mrvl.out.cash_flow_statement, "annual", "2026-01-31");
    expect(() =>
      latestValue(mrvl.raw, ["DepreciationAndAmortization"], "2025-02-02", "2026-01-31"),
    ).toThrow();
    const parts =
      latestValue(mrvl.raw, ["Depreciation"], "2025-02-02", "2026-01-31") +
      latestValue(mrvl.raw, ["AmortizationOfIntangibleAssets"], "2025-02-02", "2026-01-31");
    expect(fy2026.values.cash_flow_depreciation_depletion_amortization).toBe(parts);
    // TSM (ifrs-full, TWD) tags DepreciationExpense and AmortisationExpense: EBITDA = EBIT + both.
    const tsm = company(TSM);
    const income = periodAt(tsm.out.income_statement, "annual", "2024-12-31");
    const da =
      latestValue(tsm.raw, ["ifrs-full:DepreciationExpense"], "2024-01-01", "2024-12-31", "TWD") +
      latestValue(tsm.raw, ["ifrs-full:AmortisationExpense"], "2024-01-01", "2024-12-31", "TWD");
    expect(income.values.depreciation_and_amortization).toBe(da);
    expect(income.values.ebitda).toBe((income.values.ebit as number) + da);
  });

  test("total non-current assets are total − current assets, not the geographic note's NoncurrentAssets (Alphabet)", () => {
    const { raw, out } = company(GOOGL);
    const balance = periodAt(out.balance_sheet, "annual", "2025-12-31");
    const expected =
      latestValue(raw, ["Assets"], null, "2025-12-31") -
      latestValue(raw, ["AssetsCurrent"], null, "2025-12-31");
    expect(balance.values.total_non_current_assets).toBe(expected);
    expect(expected).not.toBe(latestValue(raw, ["NoncurrentAssets"], null, "2025-12-31"));
  });

  test("marketable securities from DebtSecuritiesCurrent once a filer tags that instead (NVIDIA FY2027 Q1)", () => {
    const { raw, out } = company(NVDA);
    const balance = periodAt(out.balance_sheet, "quarterly", "2026-04-26");
    expect(() => latestValue(raw, ["MarketableSecuritiesCurrent"], null, "2026-04-26")).toThrow();
    expect(balance.values.marketable_securities).toBe(
      latestValue(raw, ["DebtSecuritiesCurrent"], null, "2026-04-26"),
    );
  });

  test("a restated value wins; first_filed and last_filed span the filings (Apple FY2008, Tesla FY2011)", () => {
    const cases = [
      { cik: AAPL, concept: "SalesRevenueNet", field: "revenue", start: "2007-09-30", end: "2008-09-27" },
      {
        cik: TSLA,
        concept: CFO[0] as string,
        field: "cash_flow_from_operations",
        start: "2011-01-01",
        end: "2011-12-31",
      },
    ];
    for (const c of cases) {
      const { raw, out } = company(c.cik);
      const facts = periodFacts(raw, c.concept, c.start, c.end).sort((a, b) =>
        a.filed.localeCompare(b.filed),
      );
      const first = facts[0];
      const latest = facts[facts.length - 1];
      if (first === undefined || latest === undefined) throw new Error(`expected raw facts for ${c.concept}`);
      expect(first.val, "the period was restated").not.toBe(latest.val);
      const rows: readonly StatementPeriod[] =
        c.field === "revenue" ? out.income_statement : out.cash_flow_statement;
      const row = periodAt(rows, "annual", c.end);
      expect(row.values[c.field]).toBe(latest.val);
      expect(row.first_filed <= first.filed).toBe(true);
      expect(row.last_filed >= latest.filed).toBe(true);
    }
  });

  test("fiscal-year labels follow the 10-Ks, also where a 10-K's own fy is off (NVIDIA FY2011)", () => {
    const { out } = company(NVDA);
    const fy2011 = periodAt(out.income_statement, "annual", "2011-01-30");
    expect(fy2011.fiscal_year).toBe(2011);
    const tenK = out.filings.find((f) => f.form === "10-K" && f.period === "2011-01-30");
    expect(tenK?.fy, "the filing keeps its own label").toBe(2010);
    const labels = out.income_statement.filter((p) => p.period_type === "annual").map((p) => p.fiscal_year);
    expect(new Set(labels).size).toBe(labels.length);
  });

  test("TSM is read in TWD from ifrs-full concepts", () => {
    const { raw, out } = company(TSM);
    const ifrs = (concept: string, start: string | null, unit = "TWD") =>
      latestValue(raw, [`ifrs-full:${concept}`], start, "2024-12-31", unit);
    const income = periodAt(out.income_statement, "annual", "2024-12-31");
    const cash = periodAt(out.cash_flow_statement, "annual", "2024-12-31");
    const balance = periodAt(out.balance_sheet, "annual", "2024-12-31");
    expect(income.currency).toBe("TWD");
    expect(income.fiscal_year).toBe(2024);
    expect(income.values.revenue).toBe(ifrs("Revenue", "2024-01-01"));
    expect(income.values.net_income).toBe(ifrs("ProfitLossAttributableToOwnersOfParent", "2024-01-01"));
    expect(income.values.diluted_eps).toBe(ifrs("DilutedEarningsLossPerShare", "2024-01-01", "TWD/shares"));
    expect(balance.values.total_assets).toBe(ifrs("Assets", null));
    expect(cash.values.cash_flow_from_operations).toBe(
      ifrs("CashFlowsFromUsedInOperatingActivities", "2024-01-01"),
    );
    expect(cash.values.cash_flow_capital_expenditure).toBe(
      -ifrs("PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities", "2024-01-01"),
    );
  });

  test("filings carry their report period and amendment flag", () => {
    const apple = company(AAPL).out.filings;
    const tenK = apple.find((f) => f.form === "10-K" && f.fy === 2023);
    expect(tenK).toMatchObject({
      fp: "FY",
      period: "2023-09-30",
      amendment_flag: false,
      filed: "2023-11-03",
    });
    const amendment = apple.find((f) => f.form === "10-K/A");
    expect(amendment).toMatchObject({ period: "2009-09-26", amendment_flag: true });
    // This 10-Q also carries a guidance fact for the next quarter; the period is its own.
    const nvidia = company(NVDA).out.filings.find((f) => f.accession_number === "0001045810-13-000109");
    expect(nvidia).toMatchObject({ form: "10-Q", fp: "Q3", period: "2013-10-27" });
  });

  test("shares outstanding come from the cover pages", () => {
    const { raw, out } = company(AAPL);
    const latest = out.shares_outstanding[out.shares_outstanding.length - 1];
    const fact = periodFacts(
      raw,
      "dei:EntityCommonStockSharesOutstanding",
      null,
      latest?.date ?? "",
      "shares",
    )[0];
    expect(latest).toEqual({
      date: fact?.end ?? "",
      filed: fact?.filed ?? "",
      value: fact?.val ?? Number.NaN,
    });
  });
});
