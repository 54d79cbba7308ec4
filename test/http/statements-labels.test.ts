/**
 * Fiscal labels: the fiscal year and quarter the filer's own reports give a period (expected
 * values: statements-facts.ts).
 */
import { describe, expect, test } from "bun:test";
import { daysBetween } from "../../src/domain/dates.ts";
import { FIXTURES } from "../helpers/env.ts";
import {
  AAPL,
  CFO,
  CIK,
  KINDS,
  NET_INCOME,
  NVDA,
  ownLabels,
  type Period,
  REVENUE,
  rawFile,
  statementsServer,
  TYPES,
} from "./statements-facts.ts";

describe.skipIf(!FIXTURES)("statements over the real fixtures (STOCKD_FIXTURES)", () => {
  const fixture = statementsServer();
  const { periods, periodAt } = fixture;

  describe("fiscal labels", () => {
    test("Apple FY2023 ends 2023-09-30 and NVIDIA FY2024 ends 2024-01-28, as their 10-Ks say", async () => {
      const apple = await periodAt("AAPL", "income_statement", "annual", "2023-09-30");
      // CIK0000320193.json: the 10-K whose FY figures end 2023-09-30 carries fy 2023.
      expect(ownLabels(AAPL, "10-K").get("2023-09-30")?.fy).toBe(2023);
      expect(apple.fiscal_year).toBe(2023);
      const nvidia = await periodAt("NVDA", "income_statement", "annual", "2024-01-28");
      // CIK0001045810.json: the 10-K whose FY figures end 2024-01-28 carries fy 2024.
      expect(ownLabels(NVDA, "10-K").get("2024-01-28")?.fy).toBe(2024);
      expect(nvidia.fiscal_year).toBe(2024);
    });

    // NVIDIA tagged its FY2011–FY2014 10-Ks with the previous year's fy (its own FY2011 ended
    // 2011-01-30); the service keeps the company's labelling, one year above those tags.
    const NVIDIA_MISTAGGED = new Set(["2011-01-30", "2012-01-29", "2013-01-27", "2014-01-26"]);

    for (const symbol of ["AAPL", "NVDA", "TSLA"]) {
      test(`${symbol}: every annual period carries the fy of the 10-K that reports it; labels are consecutive`, async () => {
        const cik = CIK[symbol] as string;
        const own = ownLabels(cik, "10-K");
        for (const kind of KINDS) {
          const annual = await periods(symbol, kind, "annual");
          let matched = 0;
          for (const row of annual) {
            const label = `${symbol} ${kind} ${row.snapshot_date}`;
            // An annual period spans about a year (52/53 weeks).
            expect(daysBetween(row.period_start ?? "", row.snapshot_date) + 1, label).toBeWithin(350, 381);
            const tenK = own.get(row.snapshot_date);
            if (!tenK) continue;
            matched++;
            const mistagged = symbol === "NVDA" && NVIDIA_MISTAGGED.has(row.snapshot_date);
            expect(row.fiscal_year, label).toBe(mistagged ? tenK.fy + 1 : tenK.fy);
          }
          expect(matched, `${symbol} ${kind}: periods with their own 10-K`).toBeGreaterThan(8);
          for (let i = 1; i < annual.length; i++) {
            expect((annual[i - 1] as Period).fiscal_year - (annual[i] as Period).fiscal_year).toBe(1);
          }
        }
      });
    }

    test("quarterly periods carry the fy and fp of the 10-Q that reports them (Apple, Tesla, NVIDIA since 2021)", async () => {
      for (const symbol of ["AAPL", "TSLA", "NVDA"]) {
        const cik = CIK[symbol] as string;
        const own = ownLabels(cik, "10-Q");
        let matched = 0;
        for (const row of await periods(symbol, "income_statement", "quarterly")) {
          // NVIDIA's 10-Qs before mid-2020 carry the previous fiscal year (see above).
          if (symbol === "NVDA" && row.snapshot_date < "2021-01-01") continue;
          const tenQ = own.get(row.snapshot_date);
          if (!tenQ) continue;
          matched++;
          expect([row.fiscal_year, `Q${row.fiscal_quarter}`], `${symbol} ${row.snapshot_date}`).toEqual([
            tenQ.fy,
            tenQ.fp,
          ]);
        }
        expect(matched, symbol).toBeGreaterThan(10);
      }
    });

    test("fiscal_quarter is null for annual periods, 1–4 for quarters, a TTM's that of the quarter it ends with; snapshot_date is the period end", async () => {
      for (const symbol of ["AAPL", "NVDA", "TSLA"]) {
        const cik = CIK[symbol] as string;
        for (const kind of KINDS) {
          for (const type of TYPES) {
            for (const row of await periods(symbol, kind, type)) {
              const label = `${symbol} ${kind} ${type} ${row.snapshot_date}`;
              expect(row.period_type, label).toBe(type);
              if (type === "annual") expect(row.fiscal_quarter, label).toBeNull();
              else expect([1, 2, 3, 4], label).toContain(row.fiscal_quarter as number);
              expect(row.snapshot_date, label).toMatch(/^\d{4}-\d{2}-\d{2}$/);
              if (type === "ttm") {
                const quarter = (await periods(symbol, kind, "quarterly")).find(
                  (q) => q.snapshot_date === row.snapshot_date,
                );
                expect([quarter?.fiscal_year, quarter?.fiscal_quarter], label).toEqual([
                  row.fiscal_year,
                  row.fiscal_quarter,
                ]);
                continue;
              }
              // The source has a fact ending on snapshot_date: an Assets instant for the balance
              // sheet, a duration starting on period_start (or a YTD ending there) for flows.
              if (kind === "balance_sheet") {
                const instants = Object.values(rawFile(cik).facts["us-gaap"] ?? {}).flatMap((c) =>
                  Object.values(c.units).flatMap((l) =>
                    l.filter((f) => !f.start && f.end === row.snapshot_date),
                  ),
                );
                expect(instants.length, label).toBeGreaterThan(0);
              } else {
                const facts = [...REVENUE, ...NET_INCOME, ...CFO].flatMap((c) =>
                  (rawFile(cik).facts["us-gaap"]?.[c]?.units.USD ?? []).filter(
                    (f) => f.end === row.snapshot_date,
                  ),
                );
                expect(facts.length, label).toBeGreaterThan(0);
              }
            }
          }
        }
      }
    });
  });

  // -------------------------------------------------------------------------------------------
});
