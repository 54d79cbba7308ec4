/**
 * The statements' named values equal the raw SEC facts of their concept and period (expected
 * values: statements-facts.ts).
 */
import { describe, expect, test } from "bun:test";
import { FIXTURES } from "../helpers/env.ts";
import { latestFiled, type SecFact } from "../helpers/raw-companyfacts.ts";
import {
  AAPL,
  ASSETS,
  CAPEX,
  CFO,
  CIK,
  DILUTED,
  NET_INCOME,
  NVDA,
  type Quarter,
  quarterFlow,
  REVENUE,
  raw,
  rawFact,
  rawFacts,
  splitsAfter,
  statementsServer,
  values,
} from "./statements-facts.ts";

describe.skipIf(!FIXTURES)("statements over the real fixtures (STOCKD_FIXTURES)", () => {
  const fixture = statementsServer();
  const { periods, periodAt, rows } = fixture;

  describe("named values equal the source facts", () => {
    interface Case {
      symbol: string;
      type: "annual" | "quarterly";
      start: string;
      end: string;
      fiscalYear: number;
      fiscalQuarter: number | null;
      /** Quarterly: the fiscal year's first day and the previous quarter's end (YTD differences). */
      yearStart?: string;
      previousEnd?: string | null;
    }
    const cases: Case[] = [
      // Apple FY2023 (52 weeks to 2023-09-30) and Q1 FY2024.
      {
        symbol: "AAPL",
        type: "annual",
        start: "2022-09-25",
        end: "2023-09-30",
        fiscalYear: 2023,
        fiscalQuarter: null,
      },
      {
        symbol: "AAPL",
        type: "quarterly",
        start: "2023-10-01",
        end: "2023-12-30",
        fiscalYear: 2024,
        fiscalQuarter: 1,
        yearStart: "2023-10-01",
        previousEnd: null,
      },
      // Apple Q2 FY2024: cash flows only as 6-month YTD in the 10-Q.
      {
        symbol: "AAPL",
        type: "quarterly",
        start: "2023-12-31",
        end: "2024-03-30",
        fiscalYear: 2024,
        fiscalQuarter: 2,
        yearStart: "2023-10-01",
        previousEnd: "2023-12-30",
      },
      // NVIDIA FY2024 ends 2024-01-28; Q1 and Q3 of FY2025.
      {
        symbol: "NVDA",
        type: "annual",
        start: "2023-01-30",
        end: "2024-01-28",
        fiscalYear: 2024,
        fiscalQuarter: null,
      },
      {
        symbol: "NVDA",
        type: "quarterly",
        start: "2024-01-29",
        end: "2024-04-28",
        fiscalYear: 2025,
        fiscalQuarter: 1,
        yearStart: "2024-01-29",
        previousEnd: null,
      },
      {
        symbol: "NVDA",
        type: "quarterly",
        start: "2024-07-29",
        end: "2024-10-27",
        fiscalYear: 2025,
        fiscalQuarter: 3,
        yearStart: "2024-01-29",
        previousEnd: "2024-07-28",
      },
      // Tesla FY2021 (calendar year) and Q3 2022 (cash flows 9M − 6M).
      {
        symbol: "TSLA",
        type: "annual",
        start: "2021-01-01",
        end: "2021-12-31",
        fiscalYear: 2021,
        fiscalQuarter: null,
      },
      {
        symbol: "TSLA",
        type: "quarterly",
        start: "2022-07-01",
        end: "2022-09-30",
        fiscalYear: 2022,
        fiscalQuarter: 3,
        yearStart: "2022-01-01",
        previousEnd: "2022-06-30",
      },
    ];

    for (const c of cases) {
      const label = `${c.symbol} ${c.type} FY${c.fiscalYear}${c.fiscalQuarter ? ` Q${c.fiscalQuarter}` : ""} (${c.start}..${c.end})`;
      test(`${label}: revenue, net income, total assets, CFO, capex, diluted shares`, async () => {
        const cik = CIK[c.symbol] as string;
        const { income, cash, balance } = await rows(c.symbol, c.type, c.end);
        for (const row of [income, cash, balance]) {
          expect(row.snapshot_date, label).toBe(c.end);
          expect(row.period_start, label).toBe(c.start);
          expect(row.fiscal_year, label).toBe(c.fiscalYear);
          expect(row.fiscal_quarter, label).toBe(c.fiscalQuarter);
          expect(row.currency, label).toBe("USD");
        }
        const quarter: Quarter = {
          start: c.start,
          end: c.end,
          yearStart: c.yearStart ?? "",
          previousEnd: c.previousEnd ?? null,
        };
        const flow = (concepts: string[]) =>
          c.type === "annual" ? raw(cik, concepts, c.start, c.end) : quarterFlow(cik, concepts, quarter);
        const is = values(income, "income_statement");
        const cf = values(cash, "cash_flow_statement");
        const bs = values(balance, "balance_sheet");
        // CIK….json us-gaap revenue concepts (first reported), duration start..end.
        expect(is.revenue, `${label} revenue`).toBe(flow(REVENUE));
        // us-gaap:NetIncomeLoss.
        expect(is.net_income, `${label} net income`).toBe(flow(NET_INCOME));
        // us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding (shares), reported for the
        // period, on today's basis: TSLA's FY2021 count, filed before its 3-for-1 split, × 3.
        const diluted = rawFact(cik, DILUTED, c.start, c.end, "shares") as SecFact;
        expect(is.diluted_average_shares, `${label} diluted shares`).toBe(
          diluted.val * splitsAfter(cik, diluted.filed),
        );
        // us-gaap:Assets, instant at the period end.
        expect(bs.total_assets, `${label} total assets`).toBe(raw(cik, ASSETS, null, c.end));
        // us-gaap:NetCashProvidedByUsedInOperatingActivities.
        expect(cf.cash_flow_from_operations, `${label} CFO`).toBe(flow(CFO));
        // us-gaap:PaymentsToAcquirePropertyPlantAndEquipment (a positive payment): negative here.
        const capex = flow(CAPEX);
        expect(capex).toBeGreaterThan(0);
        expect(cf.cash_flow_capital_expenditure, `${label} capex`).toBe(-capex);
        expect(cf.total_free_cash_flow, `${label} FCF = CFO − capex`).toBe(flow(CFO) - capex);
      });
    }

    test("Apple and NVIDIA diluted EPS equal the reported per-share facts", async () => {
      // us-gaap:EarningsPerShareDiluted, unit USD/shares.
      const apple = await periodAt("AAPL", "income_statement", "annual", "2023-09-30");
      expect(values(apple, "income_statement").diluted_eps).toBe(
        raw(AAPL, ["EarningsPerShareDiluted"], "2022-09-25", "2023-09-30", "USD/shares"),
      );
      const nvidia = await periodAt("NVDA", "income_statement", "quarterly", "2024-10-27");
      expect(values(nvidia, "income_statement").diluted_eps).toBe(
        raw(NVDA, ["EarningsPerShareDiluted"], "2024-07-29", "2024-10-27", "USD/shares"),
      );
    });
  });

  test("every annual and quarterly EPS and share count is on today's basis: as filed, ÷ (or ×) the splits since", async () => {
    let converted = 0;
    for (const symbol of ["AAPL", "NVDA", "TSLA"]) {
      const cik = CIK[symbol] as string;
      for (const type of ["annual", "quarterly"] as const) {
        for (const row of await periods(symbol, "income_statement", type)) {
          const v = values(row, "income_statement");
          const start = row.period_start;
          const eps = latestFiled(
            rawFacts(cik, "EarningsPerShareDiluted", start, row.snapshot_date, "USD/shares"),
          );
          const count = latestFiled(rawFacts(cik, DILUTED[0] as string, start, row.snapshot_date, "shares"));
          // A period whose EPS and count were filed on different split bases is aligned first
          // (README, "Splits"); those are covered by the sweep of restated values.
          if (!eps || !count || splitsAfter(cik, eps.filed) !== splitsAfter(cik, count.filed)) continue;
          const since = splitsAfter(cik, count.filed);
          if (since > 1) converted++;
          const label = `${symbol} ${type} ${start}..${row.snapshot_date}`;
          expect(v.diluted_average_shares, label).toBe(count.val * since);
          expect(v.diluted_eps as number, label).toBeCloseTo(eps.val / since, 12);
        }
      }
    }
    // AAPL before 2020 (÷ 4, ÷ 28 before 2014), NVDA before 2024 (÷ 10, ÷ 40 before 2021),
    // TSLA before 2022 (÷ 3, ÷ 15 before 2020).
    expect(converted).toBeGreaterThan(40);
  });

  // -------------------------------------------------------------------------------------------
});
