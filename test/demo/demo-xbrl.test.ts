/**
 * The demo's companyfacts files: internally consistent figures read straight from the
 * generated JSON, and filings that match the submissions.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { demoPeriods } from "../../src/demo/index.ts";
import { demoCompanies } from "../../src/demo/universe.ts";
import { XBRL_FIRST_YEAR } from "../../src/demo/xbrl.ts";
import { addDays } from "../../src/domain/dates.ts";
import type { SecCompanyFacts } from "../../src/ingest/sources/companyfacts.ts";
import { demoFactFiles, eachCompany } from "../helpers/demo-sources.ts";
import { factKey, factsOf, valuesByFiling } from "../helpers/raw-companyfacts.ts";

const REVENUE = ["RevenueFromContractWithCustomerExcludingAssessedTax", "SalesRevenueNet", "Revenues"];
/** The day before the build day: the last price, and the last day a filing can be dated. */
const LAST_DAY = "2025-06-30";
let dir: string;
let files: Map<string, SecCompanyFacts>;

beforeAll(() => {
  ({ dir, files } = demoFactFiles());
});

const each = () => eachCompany(files);

describe("companyfacts figures are consistent", () => {
  test("assets = liabilities + equity, and the current lines fit inside their totals", () => {
    for (const { ticker, file } of each()) {
      const liabilities = valuesByFiling(file, ["Liabilities"]);
      const equity = valuesByFiling(file, ["StockholdersEquity"]);
      const total = valuesByFiling(file, ["LiabilitiesAndStockholdersEquity"]);
      const current = valuesByFiling(file, ["AssetsCurrent"]);
      const cash = valuesByFiling(file, ["CashAndCashEquivalentsAtCarryingValue"]);
      for (const f of factsOf(file, "Assets")) {
        const k = factKey(f);
        expect((liabilities.get(k) ?? Number.NaN) + (equity.get(k) ?? Number.NaN), `${ticker} ${k}`).toBe(
          f.val,
        );
        expect(total.get(k), `${ticker} ${k}`).toBe(f.val);
        expect(current.get(k) ?? f.val, `${ticker} ${k}`).toBeLessThanOrEqual(f.val);
        expect(cash.get(k) ?? 0, `${ticker} ${k}`).toBeLessThanOrEqual(current.get(k) ?? f.val);
      }
    }
  });

  test("gross profit = revenue − cost; pretax = net income + tax; operating income = pretax + interest", () => {
    for (const { ticker, file } of each()) {
      const revenue = valuesByFiling(file, REVENUE);
      const cost = valuesByFiling(file, ["CostOfRevenue"]);
      const gross = valuesByFiling(file, ["GrossProfit"]);
      const tax = valuesByFiling(file, ["IncomeTaxExpenseBenefit"]);
      const interest = valuesByFiling(file, ["InterestExpense"]);
      const operating = valuesByFiling(file, ["OperatingIncomeLoss"]);
      const pretax =
        "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest";
      const pretaxByKey = valuesByFiling(file, [pretax]);
      for (const [k, value] of gross)
        expect(value, `${ticker} ${k}`).toBe((revenue.get(k) ?? 0) - (cost.get(k) ?? 0));
      for (const f of factsOf(file, "NetIncomeLoss")) {
        const k = factKey(f);
        expect(pretaxByKey.get(k), `${ticker} ${k}`).toBe(f.val + (tax.get(k) ?? Number.NaN));
        if (operating.has(k))
          expect(operating.get(k), `${ticker} ${k}`).toBe((pretaxByKey.get(k) ?? 0) + (interest.get(k) ?? 0));
      }
      expect(gross.size > 0, `${ticker}: gross profit only for general companies`).toBe(cost.size > 0);
    }
  });

  test("EPS = net income / weighted average shares, to the cent", () => {
    for (const { ticker, file } of each()) {
      const netIncome = valuesByFiling(file, ["NetIncomeLoss"]);
      for (const [eps, shares] of [
        ["EarningsPerShareBasic", "WeightedAverageNumberOfSharesOutstandingBasic"],
        ["EarningsPerShareDiluted", "WeightedAverageNumberOfDilutedSharesOutstanding"],
      ] as const) {
        const count = valuesByFiling(file, [shares], "shares");
        const facts = factsOf(file, eps, "USD/shares");
        expect(facts.length, ticker).toBeGreaterThan(0);
        for (const f of facts) {
          const expected = (netIncome.get(factKey(f)) ?? Number.NaN) / (count.get(factKey(f)) ?? Number.NaN);
          expect(Math.abs(f.val - expected), `${ticker} ${eps} ${factKey(f)}`).toBeLessThanOrEqual(
            0.005 + 1e-9,
          );
        }
      }
    }
  });

  test("a fiscal year's cash flows explain the change in cash", () => {
    for (const { ticker, file } of each()) {
      const cash = new Map(factsOf(file, "CashAndCashEquivalentsAtCarryingValue").map((f) => [f.end, f.val]));
      const sections = ["Operating", "Investing", "Financing"].map((s) =>
        valuesByFiling(file, [`NetCashProvidedByUsedIn${s}Activities`]),
      );
      for (const f of factsOf(file, "NetCashProvidedByUsedInOperatingActivities")) {
        const opening = cash.get(addDays(f.start ?? "", -1));
        if (f.fp !== "FY" || opening === undefined) continue;
        const flows = sections.reduce((sum, s) => sum + (s.get(factKey(f)) ?? Number.NaN), 0);
        expect(flows, `${ticker} ${factKey(f)}`).toBe((cash.get(f.end) ?? Number.NaN) - opening);
      }
    }
  });

  test("every fact comes from a 10-K or 10-Q of the company's submissions, with its fiscal labels", () => {
    for (const c of demoCompanies()) {
      const submissions = JSON.parse(
        readFileSync(join(dir, "edgar/submissions", `CIK${c.cik}.json`), "utf8"),
      );
      const recent = submissions.filings.recent as { accessionNumber: string[]; form: string[] };
      const forms = new Map(recent.accessionNumber.map((a, i) => [a, recent.form[i]]));
      const file = files.get(c.cik) as SecCompanyFacts;
      const accessions = new Set<string>();
      for (const concepts of Object.values(file.facts)) {
        for (const { units } of Object.values(concepts)) {
          for (const f of Object.values(units).flat()) {
            expect(forms.get(f.accn), `${c.tickers[0]} ${f.accn}`).toBe(f.form);
            expect(f.fp === "FY", f.accn).toBe(f.form === "10-K");
            accessions.add(f.accn);
          }
        }
      }
      const reports = demoPeriods(c, LAST_DAY).filter((p) => p.fy >= XBRL_FIRST_YEAR);
      expect([...accessions].sort(), `${c.tickers[0]}: every report since XBRL began has facts`).toEqual(
        reports.map((p) => p.accession).sort(),
      );
    }
  });
});
