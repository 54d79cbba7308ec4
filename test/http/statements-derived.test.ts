/**
 * Derived fourth quarters and TTM periods equal the sums recomputed from the raw quarters and
 * years to date (expected values: statements-facts.ts).
 */
import { describe, expect, test } from "bun:test";
import { addDays } from "../../src/domain/dates.ts";
import { FIXTURES } from "../helpers/env.ts";
import {
  ASSETS,
  CAPEX,
  CFO,
  CIK,
  type Kind,
  NET_INCOME,
  type Quarter,
  quarterFlow,
  REVENUE,
  raw,
  rawFacts,
  statementsServer,
  values,
} from "./statements-facts.ts";

describe.skipIf(!FIXTURES)("statements over the real fixtures (STOCKD_FIXTURES)", () => {
  const fixture = statementsServer();
  const { periods, rows } = fixture;

  describe("derived fourth quarters", () => {
    const cases = [
      // Apple FY2023: 9 months to 2023-07-01.
      { symbol: "AAPL", yearStart: "2022-09-25", nineEnd: "2023-07-01", end: "2023-09-30", fy: 2023 },
      // NVIDIA FY2025: 9 months to 2024-10-27, year to 2025-01-26.
      { symbol: "NVDA", yearStart: "2024-01-29", nineEnd: "2024-10-27", end: "2025-01-26", fy: 2025 },
      // Tesla FY2021.
      { symbol: "TSLA", yearStart: "2021-01-01", nineEnd: "2021-09-30", end: "2021-12-31", fy: 2021 },
    ];
    for (const c of cases) {
      test(`${c.symbol} Q4 FY${c.fy} = fiscal year − 9-month YTD (no three-month fact in the source)`, async () => {
        const cik = CIK[c.symbol] as string;
        const q4Start = addDays(c.nineEnd, 1);
        const { income, cash } = await rows(c.symbol, "quarterly", c.end);
        for (const row of [income, cash]) {
          expect([row.fiscal_year, row.fiscal_quarter, row.period_start]).toEqual([c.fy, 4, q4Start]);
        }
        const q4 = (concepts: string[]) => {
          // The 10-K reports no fourth quarter of its own: the quarter can only be derived.
          for (const concept of concepts) expect(rawFacts(cik, concept, q4Start, c.end)).toHaveLength(0);
          return raw(cik, concepts, c.yearStart, c.end) - raw(cik, concepts, c.yearStart, c.nineEnd);
        };
        // CIK….json: FY fact (yearStart..end) minus 9M fact (yearStart..nineEnd), per concept.
        expect(values(income, "income_statement").revenue, "revenue").toBe(q4(REVENUE));
        expect(values(income, "income_statement").net_income, "net income").toBe(q4(NET_INCOME));
        expect(values(cash, "cash_flow_statement").cash_flow_from_operations, "CFO").toBe(q4(CFO));
        expect(values(cash, "cash_flow_statement").cash_flow_capital_expenditure, "capex").toBe(-q4(CAPEX));
      });
    }
  });

  describe("TTM periods", () => {
    const FLOWS: [Kind, string][] = [
      ["income_statement", "revenue"],
      ["income_statement", "net_income"],
      ["cash_flow_statement", "cash_flow_from_operations"],
      ["cash_flow_statement", "cash_flow_capital_expenditure"],
    ];

    for (const symbol of ["AAPL", "NVDA", "TSLA"]) {
      test(`${symbol}: every TTM flow is the sum of four consecutive quarterly periods of the same endpoint`, async () => {
        for (const [kind, field] of FLOWS) {
          const ttms = await periods(symbol, kind, "ttm");
          const quarters = await periods(symbol, kind, "quarterly");
          expect(ttms.length, `${symbol} ${kind} has TTM periods`).toBeGreaterThan(4);
          for (const ttm of ttms) {
            const label = `${symbol} ${kind} TTM to ${ttm.snapshot_date}`;
            const i = quarters.findIndex((q) => q.snapshot_date === ttm.snapshot_date);
            const four = quarters.slice(i, i + 4).reverse(); // oldest first
            expect(i, label).toBeGreaterThanOrEqual(0);
            expect(four, label).toHaveLength(4);
            expect(ttm.period_start, label).toBe(four[0]?.period_start ?? "");
            for (let q = 1; q < 4; q++) {
              // Consecutive: each quarter starts the day after the previous one ends.
              expect(four[q]?.period_start, label).toBe(addDays(four[q - 1]?.snapshot_date ?? "", 1));
            }
            expect([ttm.fiscal_year, ttm.fiscal_quarter], label).toEqual([
              four[3]?.fiscal_year ?? 0,
              four[3]?.fiscal_quarter ?? 0,
            ]);
            const parts = four.map((q) => values(q, kind)[field] ?? null);
            const expected = parts.includes(null) ? null : parts.reduce((s: number, v) => s + (v ?? 0), 0);
            expect(values(ttm, kind)[field] ?? null, `${label} ${field}`).toBe(expected);
          }
        }
      });
    }

    /** Quarters as (start, end, previous quarter's end) within a fiscal year starting yearStart. */
    const quarters = (yearStart: string, list: [string, string, string | null][]): Quarter[] =>
      list.map(([start, end, previousEnd]) => ({ start, end, yearStart, previousEnd }));
    // Each TTM as its four quarters, oldest first (dates from the 10-Qs and 10-Ks of CIK….json).
    const cases = [
      {
        symbol: "AAPL",
        end: "2023-12-30",
        fy: 2024,
        fq: 1,
        quarters: [
          ...quarters("2022-09-25", [
            ["2023-01-01", "2023-04-01", "2022-12-31"],
            ["2023-04-02", "2023-07-01", "2023-04-01"],
            ["2023-07-02", "2023-09-30", "2023-07-01"],
          ]),
          ...quarters("2023-10-01", [["2023-10-01", "2023-12-30", null]]),
        ],
      },
      {
        symbol: "NVDA",
        end: "2024-04-28",
        fy: 2025,
        fq: 1,
        quarters: [
          ...quarters("2023-01-30", [
            ["2023-05-01", "2023-07-30", "2023-04-30"],
            ["2023-07-31", "2023-10-29", "2023-07-30"],
            ["2023-10-30", "2024-01-28", "2023-10-29"],
          ]),
          ...quarters("2024-01-29", [["2024-01-29", "2024-04-28", null]]),
        ],
      },
      {
        symbol: "TSLA",
        end: "2022-09-30",
        fy: 2022,
        fq: 3,
        quarters: [
          ...quarters("2021-01-01", [["2021-10-01", "2021-12-31", "2021-09-30"]]),
          ...quarters("2022-01-01", [
            ["2022-01-01", "2022-03-31", null],
            ["2022-04-01", "2022-06-30", "2022-03-31"],
            ["2022-07-01", "2022-09-30", "2022-06-30"],
          ]),
        ],
      },
    ];
    for (const c of cases) {
      test(`${c.symbol} TTM to ${c.end}: flows are the four quarters computed from the raw facts, balances the latest instant`, async () => {
        const cik = CIK[c.symbol] as string;
        // Each quarter: its reported three-month fact, else the difference of year-to-date facts.
        const ttm = (concepts: string[]) =>
          c.quarters.reduce((sum, q) => sum + quarterFlow(cik, concepts, q), 0);
        const { income, cash, balance } = await rows(c.symbol, "ttm", c.end);
        for (const row of [income, cash, balance]) {
          expect([row.fiscal_year, row.fiscal_quarter, row.period_start], c.symbol).toEqual([
            c.fy,
            c.fq,
            c.quarters[0]?.start ?? "",
          ]);
        }
        // CIK….json: revenue concepts / NetIncomeLoss / CFO / capex of the four quarters above.
        expect(values(income, "income_statement").revenue, "revenue").toBe(ttm(REVENUE));
        expect(values(income, "income_statement").net_income, "net income").toBe(ttm(NET_INCOME));
        expect(values(cash, "cash_flow_statement").cash_flow_from_operations, "CFO").toBe(ttm(CFO));
        expect(values(cash, "cash_flow_statement").cash_flow_capital_expenditure, "capex").toBe(-ttm(CAPEX));
        // us-gaap:Assets at the TTM end (an instant, never summed).
        expect(values(balance, "balance_sheet").total_assets, "total assets").toBe(
          raw(cik, ASSETS, null, c.end),
        );
      });
    }
  });

  // -------------------------------------------------------------------------------------------
});
