/**
 * The statement rules that must hold on any filer, on synthetic facts shaped like the filers
 * that broke them: a total beside a part, consolidated beside parent net income, commercial
 * paper beside a current-debt line, a split older than cover-page share counts, an 8-K recast.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { splitsFromRestatements } from "../../src/ingest/rules/splits.ts";
import { computeStatements } from "../../src/ingest/rules/statements.ts";
import { parsePriceFile } from "../../src/ingest/sources/price-files.ts";
import { FIXTURES } from "../helpers/env.ts";
import { periodAt } from "../helpers/statement-rows.ts";
import { filing, syntheticCompany } from "../helpers/synthetic-companyfacts.ts";

const year = (y: number) => ({ start: `${y}-01-01`, end: `${y}-12-31` });
const tenK = (y: number, accn: string, facts: Parameters<typeof filing>[5]) =>
  filing(accn, "10-K", y, "FY", `${y + 1}-02-15`, facts);

describe("one basis per field", () => {
  test("revenue is the total line (Revenues) in every year, though contract revenue, a part, was filed later", () => {
    const out = computeStatements(
      syntheticCompany([
        ...tenK(2022, "0000000123-23-000001", [{ concept: "Revenues", ...year(2022), val: 29_310 }]),
        // The later filing tags both; contract revenue is gross revenue before incentives.
        ...tenK(2023, "0000000123-24-000001", [
          { concept: "Revenues", ...year(2023), val: 32_653 },
          { concept: "RevenueFromContractWithCustomerExcludingAssessedTax", ...year(2023), val: 47_700 },
          { concept: "RevenueFromContractWithCustomerExcludingAssessedTax", ...year(2022), val: 42_500 },
        ]),
      ]),
    );
    const revenue = (end: string) => periodAt(out.income_statement, "annual", end).values.revenue;
    expect([revenue("2022-12-31"), revenue("2023-12-31")]).toEqual([29_310, 32_653]);
  });

  test("net income is the parent's; ProfitLoss fills only a year without it, and the period says so", () => {
    const out = computeStatements(
      syntheticCompany([
        ...tenK(2022, "0000000123-23-000001", [
          { concept: "NetIncomeLoss", ...year(2022), val: 860 },
          { concept: "ProfitLoss", ...year(2022), val: 903 },
        ]),
        // A later filing tags only the consolidated figure for 2023 and repeats 2022's.
        ...tenK(2023, "0000000123-24-000001", [
          { concept: "ProfitLoss", ...year(2023), val: 130 },
          { concept: "ProfitLoss", ...year(2022), val: 903 },
        ]),
      ]),
    );
    const y2022 = periodAt(out.income_statement, "annual", "2022-12-31");
    const y2023 = periodAt(out.income_statement, "annual", "2023-12-31");
    expect([y2022.values.net_income, y2023.values.net_income]).toEqual([860, 130]);
    expect(y2022.notes).toEqual([]);
    expect(y2023.notes).toHaveLength(1);
    expect(y2023.notes[0]).toContain("net_income is ProfitLoss");
    expect(y2023.notes[0]).toContain("noncontrolling interests");
  });

  test("an 8-K recast of a year does not replace the 10-K's figure; a period names its first and latest filing", () => {
    const out = computeStatements(
      syntheticCompany([
        ...tenK(2022, "0000000123-23-000001", [{ concept: "Revenues", ...year(2022), val: 20_175 }]),
        ...tenK(2023, "0000000123-24-000001", [
          { concept: "Revenues", ...year(2023), val: 20_431 },
          { concept: "Revenues", ...year(2022), val: 20_175 },
        ]),
        ...filing("0000000123-25-000009", "8-K", 2025, "FY", "2025-12-04", [
          { concept: "Revenues", ...year(2022), val: 16_952 },
        ]),
      ]),
    );
    const y2022 = periodAt(out.income_statement, "annual", "2022-12-31");
    expect(y2022.values.revenue).toBe(20_175);
    expect([y2022.first_filed, y2022.first_accession]).toEqual(["2023-02-15", "0000000123-23-000001"]);
    expect([y2022.last_filed, y2022.last_accession]).toEqual(["2024-02-15", "0000000123-24-000001"]);
  });
});

describe("total debt counts commercial paper tagged apart", () => {
  const balance = (facts: { concept: string; val: number }[]) =>
    periodAt(
      computeStatements(
        syntheticCompany(
          tenK(2023, "0000000123-24-000001", [
            { concept: "Revenues", ...year(2023), val: 1_000 },
            { concept: "Assets", end: "2023-12-31", val: 50_000 },
            ...facts.map((f) => ({ ...f, end: "2023-12-31" })),
          ]),
        ),
      ).balance_sheet,
      "annual",
      "2023-12-31",
    ).values;

  test("commercial paper above DebtCurrent cannot be in it: short-term debt is both", () => {
    const b = balance([
      { concept: "DebtCurrent", val: 1_000 },
      { concept: "CommercialPaper", val: 3_000 },
      { concept: "LongTermDebtNoncurrent", val: 20_000 },
    ]);
    expect([b.short_term_debt, b.long_term_debt]).toEqual([4_000, 20_000]);
  });

  test("DebtCurrent equal to the current maturities leaves the commercial paper out: both count", () => {
    const b = balance([
      { concept: "DebtCurrent", val: 2_000 },
      { concept: "LongTermDebtCurrent", val: 2_000 },
      { concept: "CommercialPaper", val: 1_500 },
    ]);
    expect(b.short_term_debt).toBe(3_500);
  });

  test("DebtCurrent above its parts includes them: counted once", () => {
    const b = balance([
      { concept: "DebtCurrent", val: 5_000 },
      { concept: "LongTermDebtCurrent", val: 2_000 },
      { concept: "CommercialPaper", val: 3_000 },
    ]);
    expect(b.short_term_debt).toBe(5_000);
  });

  test("the current part of long-term debt and leases never holds commercial paper", () => {
    const b = balance([
      { concept: "LongTermDebtAndCapitalLeaseObligationsCurrent", val: 561 },
      { concept: "CommercialPaper", val: 900 },
    ]);
    expect(b.short_term_debt_and_capital_lease_obligation).toBe(1_461);
  });
});

describe("a split before cover-page share counts", () => {
  // A 10-for-1 split in January 2014 and no cover-page counts at all: the 10-K filed after it
  // restates 2011–2013 share counts and EPS; 2009 and 2010 exist only on the old basis.
  const shares = (y: number, val: number) => ({
    concept: "WeightedAverageNumberOfDilutedSharesOutstanding",
    ...year(y),
    val,
    unit: "shares",
  });
  const eps = (y: number, val: number) => ({
    concept: "EarningsPerShareDiluted",
    ...year(y),
    val,
    unit: "USD/shares",
  });
  const income = (y: number) => ({ concept: "NetIncomeLoss", ...year(y), val: 1_000 * y - 2_000_000 });
  const company = syntheticCompany([
    ...tenK(2010, "0000000123-11-000001", [
      shares(2010, 130),
      eps(2010, 72),
      income(2010),
      shares(2009, 131),
      eps(2009, 55),
      income(2009),
    ]),
    ...tenK(2011, "0000000123-12-000001", [
      shares(2011, 128),
      eps(2011, 88),
      income(2011),
      shares(2010, 130),
      eps(2010, 72),
    ]),
    ...tenK(2012, "0000000123-13-000001", [
      shares(2012, 124),
      eps(2012, 100),
      income(2012),
      shares(2011, 128),
      eps(2011, 88),
    ]),
    ...tenK(2013, "0000000123-14-000001", [
      shares(2013, 1_200),
      eps(2013, 11),
      income(2013),
      shares(2012, 1_240),
      eps(2012, 10),
      shares(2011, 1_280),
      eps(2011, 8.8),
    ]),
  ]);

  test("the restated comparatives date it: after the last old-basis filing, by the first new-basis one", () => {
    expect(splitsFromRestatements(company)).toEqual([{ date: "2014-02-15", ratio: 10 }]);
  });

  test("EPS and share counts filed only before it are served on today's basis", () => {
    const out = computeStatements(company);
    const at = (y: number) => periodAt(out.income_statement, "annual", `${y}-12-31`).values;
    expect([at(2009).diluted_eps, at(2009).diluted_average_shares]).toEqual([5.5, 1_310]);
    expect([at(2010).diluted_eps, at(2010).diluted_average_shares]).toEqual([7.2, 1_300]);
    expect([at(2013).diluted_eps, at(2013).diluted_average_shares]).toEqual([11, 1_200]);
  });
});

describe("a split recorded by a price file", () => {
  test.skipIf(!FIXTURES)(
    "yfinance's Stock Splits column: Apple's five splits, as new shares per old share",
    () => {
      const file = join(FIXTURES ?? "", "variants", "prices-adjusted-with-actions", "AAPL.csv");
      expect(parsePriceFile(readFileSync(file, "utf8"), "AAPL.csv").splits).toEqual([
        { date: "1987-06-16", ratio: 2 },
        { date: "2000-06-21", ratio: 2 },
        { date: "2005-02-28", ratio: 2 },
        { date: "2014-06-09", ratio: 7 },
        { date: "2020-08-31", ratio: 4 },
      ]);
    },
  );

  test("a Stock Splits cell that is no ratio fails its row", () => {
    const csv = "Date,Open,High,Low,Close,Volume,Dividends,Stock Splits\n2024-06-10,1,1,1,1,100,0.0,4:1\n";
    expect(() => parsePriceFile(csv, "X.csv")).toThrow("Stock Splits");
  });

  test("puts EPS filed before it on today's basis when the filings carry no signal of it", () => {
    // Two 10-Ks, no share counts restated and no cover-page counts: only the price file knows.
    const company = syntheticCompany([
      ...tenK(2022, "0000000123-23-000001", [
        { concept: "NetIncomeLoss", ...year(2022), val: 1_000 },
        { concept: "EarningsPerShareDiluted", ...year(2022), val: 10, unit: "USD/shares" },
      ]),
      ...tenK(2023, "0000000123-24-000001", [
        { concept: "NetIncomeLoss", ...year(2023), val: 1_200 },
        { concept: "EarningsPerShareDiluted", ...year(2023), val: 3, unit: "USD/shares" },
      ]),
    ]);
    const eps = (priceSplits: { date: string; ratio: number }[]) =>
      periodAt(
        computeStatements(company, { sic: null, priceSplits }).income_statement,
        "annual",
        "2022-12-31",
      ).values.diluted_eps;
    expect(eps([])).toBe(10);
    expect(eps([{ date: "2023-06-01", ratio: 4 }])).toBe(2.5);
  });
});
