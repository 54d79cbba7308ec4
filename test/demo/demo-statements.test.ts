/**
 * The demo's companyfacts against the other demo sources (calendar EPS, dividends, prices),
 * and the statements the importer computes from them: quarters derived from year-to-date
 * figures, a restated year, a revenue concept change, non-December fiscal years.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { demoCompanies } from "../../src/demo/universe.ts";
import { presentationOf } from "../../src/demo/xbrl.ts";
import { daysBetween } from "../../src/domain/dates.ts";
import { computeStatements } from "../../src/ingest/rules/statements.ts";
import { parseCalendar } from "../../src/ingest/sources/calendar.ts";
import type { SecCompanyFacts } from "../../src/ingest/sources/companyfacts.ts";
import { parseCompanyFacts } from "../../src/ingest/sources/companyfacts.ts";
import { parseDividends } from "../../src/ingest/sources/dividends.ts";
import { demoFactFiles, eachCompany } from "../helpers/demo-sources.ts";
import { factKey, factsOf, valuesByFiling } from "../helpers/raw-companyfacts.ts";

let dir: string;
let files: Map<string, SecCompanyFacts>;

beforeAll(() => {
  ({ dir, files } = demoFactFiles());
});

const each = () => eachCompany(files);

describe("companyfacts agree with the other demo sources", () => {
  test("the calendar's reported EPS is the quarter's diluted EPS fact", () => {
    const calendar = parseCalendar(readFileSync(join(dir, "calendar/demo-calendar.csv"), "utf8"), "calendar");
    let compared = 0;
    for (const { ticker, file } of each()) {
      const quarterly = new Map(
        factsOf(file, "EarningsPerShareDiluted", "USD/shares")
          .filter((f) => f.start !== undefined && daysBetween(f.start, f.end) < 100)
          .map((f) => [f.end.slice(0, 7), f.val]),
      );
      for (const row of calendar.rows.filter((r) => r.ticker === ticker && r.eps_actual !== null)) {
        const reported = quarterly.get(row.fiscal_quarter_ending ?? "");
        if (reported === undefined) continue;
        expect(row.eps_actual, `${ticker} ${row.fiscal_quarter_ending}`).toBe(reported);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(300);
  });

  test("dividends paid in a fiscal year are the per-share dividends paid in it times the shares", () => {
    for (const c of demoCompanies().filter((company) => company.dividend > 0)) {
      const file = files.get(c.cik) as SecCompanyFacts;
      const csv = parseDividends(
        readFileSync(join(dir, "dividends", `${c.tickers[0]}.csv`), "utf8"),
        "d.csv",
      );
      const shares = valuesByFiling(file, ["WeightedAverageNumberOfSharesOutstandingBasic"], "shares");
      for (const f of factsOf(file, "PaymentsOfDividends").filter(
        (x) => x.fp === "FY" && (x.start ?? "") >= "2013-01-01",
      )) {
        const perShare = csv.rows
          .filter((d) => (d.pay_date ?? "") >= (f.start ?? "") && (d.pay_date ?? "") <= f.end)
          .reduce((sum, d) => sum + d.amount, 0);
        const implied = f.val / perShare / (shares.get(factKey(f)) ?? Number.NaN);
        expect(Math.abs(implied - 1), `${c.tickers[0]} ${factKey(f)}`).toBeLessThan(0.03);
      }
    }
  });

  test("valuations are plausible: the median year-end P/E of every company is between 10 and 40", () => {
    for (const c of demoCompanies()) {
      const prices = readFileSync(join(dir, "prices", `${c.tickers[0]}.csv`), "utf8")
        .trim()
        .split("\n")
        .slice(1);
      const closeOn = (date: string) =>
        Number(
          prices
            .filter((line) => line.slice(0, 10) <= date)
            .at(-1)
            ?.split(",")[4],
        );
      const annual = factsOf(
        files.get(c.cik) as SecCompanyFacts,
        "EarningsPerShareDiluted",
        "USD/shares",
      ).filter((f) => f.fp === "FY" && f.fy === Number(f.end.slice(0, 4)) && f.end >= "2013-06-30");
      const ratios = annual.map((f) => closeOn(f.end) / f.val).sort((a, b) => a - b);
      const median = ratios[Math.floor(ratios.length / 2)] ?? 0;
      expect(median, `${c.tickers[0]} median P/E`).toBeGreaterThan(10);
      expect(median, `${c.tickers[0]} median P/E`).toBeLessThan(40);
    }
  });
});

/** Statements of one demo company as the importer computes them. */
function statementsOf(ticker: string) {
  const company = demoCompanies().find((c) => c.tickers[0] === ticker);
  const raw = files.get(company?.cik ?? "") as SecCompanyFacts;
  return { raw, computed: computeStatements(parseCompanyFacts(raw, ticker)) };
}

/** The value a raw fact gives for (start, end), from the latest filing that reports it. */
function latest(raw: SecCompanyFacts, concept: string, start: string, end: string): number {
  const found = factsOf(raw, concept)
    .filter((f) => f.start === start && f.end === end)
    .sort((a, b) => a.filed.localeCompare(b.filed))
    .at(-1);
  if (found === undefined) throw new Error(`no ${concept} fact for ${start}..${end}`);
  return found.val;
}

describe("statements computed from the demo facts", () => {
  const revenue = "RevenueFromContractWithCustomerExcludingAssessedTax";

  test("DWGT reports Q2 and Q3 as year to date only: the importer derives them, and Q4 from the year", () => {
    const dwgt = demoCompanies().find((c) => c.tickers[0] === "DWGT");
    if (dwgt === undefined) throw new Error("DWGT is a demo company");
    expect(presentationOf(dwgt)).toMatchObject({ ytdOnly: true, restatedYear: 2018 });
    const { raw, computed } = statementsOf("DWGT");
    const quarterOnly = factsOf(raw, revenue).filter((f) => f.fp === "Q2" || f.fp === "Q3");
    expect(quarterOnly.length).toBeGreaterThan(0);
    expect(
      quarterOnly.filter((f) => f.start?.slice(5) !== "01-01"),
      "Q2/Q3 10-Qs: year to date only",
    ).toEqual([]);
    const quarterly = computed.income_statement.filter((r) => r.period_type === "quarterly");
    for (const fy of [2019, 2020, 2021, 2022, 2023, 2024]) {
      const q = (n: number) => quarterly.find((r) => r.fiscal_year === fy && r.fiscal_quarter === n);
      const ytd = (month: string) => latest(raw, revenue, `${fy}-01-01`, `${fy}-${month}`);
      expect(q(1)?.values.revenue, `FY${fy} Q1`).toBe(ytd("03-31"));
      expect(q(2)?.values.revenue, `FY${fy} Q2 = 6M − Q1`).toBe(ytd("06-30") - ytd("03-31"));
      expect(q(3)?.values.revenue, `FY${fy} Q3 = 9M − 6M`).toBe(ytd("09-30") - ytd("06-30"));
      expect(q(4)?.values.revenue, `FY${fy} Q4 = FY − 9M`).toBe(ytd("12-31") - ytd("09-30"));
      expect(q(2)?.values.diluted_eps, "no EPS for a derived quarter").toBeNull();
    }
  });

  test("DWGT's restated FY2018: the later 10-K's figure is used, gross profit unchanged", () => {
    const { raw, computed } = statementsOf("DWGT");
    const reported = factsOf(raw, revenue).filter((f) => f.start === "2018-01-01" && f.end === "2018-12-31");
    expect(reported.map((f) => f.fy)).toEqual([2018, 2019, 2020]);
    const [original, restated, again] = reported.map((f) => f.val);
    expect(restated).toBeLessThan(original as number);
    expect(again).toBe(restated as number);
    const annual = computed.income_statement.find(
      (r) => r.period_type === "annual" && r.fiscal_year === 2018,
    );
    expect(annual?.values.revenue).toBe(restated as number);
    const gross = factsOf(raw, "GrossProfit").filter(
      (f) => f.start === "2018-01-01" && f.end === "2018-12-31",
    );
    expect(new Set(gross.map((f) => f.val)).size, "gross profit is the same in every report").toBe(1);
    expect(annual?.values.gross_profit).toBe(gross[0]?.val as number);
  });

  test("DFOO tagged revenue SalesRevenueNet before ASC 606: its quarters and TTM periods keep one revenue line", () => {
    const { raw, computed } = statementsOf("DFOO");
    expect(new Set(factsOf(raw, "SalesRevenueNet").map((f) => f.fy))).toEqual(new Set([2017]));
    const since = computed.income_statement.filter(
      (r) => r.period_end >= "2017-03-31" && r.period_type !== "annual",
    );
    expect(since.length).toBeGreaterThan(50);
    expect(
      since.filter((r) => r.values.revenue === null).map((r) => `${r.period_type} ${r.period_end}`),
    ).toEqual([]);
  });

  test("non-December fiscal years are labelled by the year they end in", () => {
    for (const [ticker, end] of [
      ["DMTR", "2020-01-31"],
      ["DSEM", "2020-09-30"],
      ["DNRG", "2020-06-30"],
    ] as const) {
      const annual = statementsOf(ticker).computed.income_statement.find(
        (r) => r.period_type === "annual" && r.period_end === end,
      );
      expect(annual?.fiscal_year, ticker).toBe(2020);
    }
  });

  test("every company gets annual, quarterly and TTM statements with shares outstanding", () => {
    for (const { ticker } of each()) {
      const { computed } = statementsOf(ticker);
      const types = new Set(computed.income_statement.map((r) => r.period_type));
      expect([...types].sort(), ticker).toEqual(["annual", "quarterly", "ttm"]);
      expect(computed.balance_sheet.length, ticker).toBeGreaterThan(40);
      expect(computed.shares_outstanding.length, ticker).toBeGreaterThan(30);
    }
    expect(readdirSync(join(dir, "edgar/companyfacts")).length).toBe(demoCompanies().length);
  });
});
