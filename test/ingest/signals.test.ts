/**
 * The estimates and growth-signals parsers on small synthetic inputs: accepted layouts,
 * bad records (strict: ImportError with the right line; lenient: skipped and counted).
 */
import { describe, expect, test } from "bun:test";
import { parseAlphaVantageEarnings, parseEstimatesFile } from "../../src/ingest/sources/estimates.ts";
import { parseGrowthSignalsCsv } from "../../src/ingest/sources/growth-signals.ts";
import { importErrorOf } from "../helpers/import-error.ts";

describe("estimates", () => {
  const av = (quarter: Record<string, string>) =>
    JSON.stringify({
      symbol: "ABC",
      annualEarnings: [{ fiscalDateEnding: "2023-12-31", reportedEPS: "4" }],
      quarterlyEarnings: [
        {
          fiscalDateEnding: "2023-12-31",
          reportedDate: "2024-01-30",
          reportedEPS: "1",
          estimatedEPS: "None",
        },
        quarter,
      ],
    });

  test("Alpha Vantage: bad EPS is an error naming the period; lenient skips it", () => {
    const bad = { fiscalDateEnding: "2023-09-30", reportedEPS: "one" };
    expect(importErrorOf(() => parseAlphaVantageEarnings(av(bad), "e.json")).message).toBe(
      'quarterlyEarnings[1]: reportedEPS "one" is not a number',
    );
    const lenient = parseAlphaVantageEarnings(av(bad), "e.json", { lenient: true });
    expect([lenient.rows[0]?.quarterly.length, lenient.skipped.length]).toEqual([1, 1]);
    const note = JSON.stringify({ Note: "Thank you for using Alpha Vantage! ... call frequency" });
    expect(importErrorOf(() => parseAlphaVantageEarnings(note, "e.json")).message).toContain(
      "call frequency",
    );
  });

  test("signals CSV: fractions, empty = null, absent columns = null", () => {
    const text =
      "ticker,as_of_date,eps_growth_yoy_est_next_fy,rvn_growth_yoy_est_next_q,eps_est_next_fy\nabc,2024-06-30,0.12,,5.5\n";
    const file = parseEstimatesFile(text, "estimates/signals.csv");
    expect(file.kind).toBe("signals");
    expect(file.result.rows[0]).toEqual({
      ticker: "ABC",
      as_of_date: "2024-06-30",
      eps_growth_yoy_est_next_q: null,
      eps_growth_yoy_est_next_fy: 0.12,
      rvn_growth_yoy_est_next_q: null,
      rvn_growth_yoy_est_next_fy: null,
      earning_growth_5y_est: null,
      total_rvn_growth_5y_est: null,
      eps_est_next_fy: 5.5,
    });
  });

  test("signals CSV errors: impossible growth, percent strings, wrong columns", () => {
    const head = "ticker,as_of_date,rvn_growth_yoy_est_next_fy\n";
    expect(importErrorOf(() => parseEstimatesFile(`${head}A,2024-06-30,-1.5\n`, "s.csv")).message).toContain(
      'rvn_growth_yoy_est_next_fy "-1.5" is below -1',
    );
    expect(importErrorOf(() => parseEstimatesFile(`${head}A,2024-06-30,12%\n`, "s.csv")).line).toBe(2);
    expect(
      importErrorOf(() => parseEstimatesFile("ticker,as_of_date,foo\nA,2024-06-30,1\n", "s.csv")).line,
    ).toBe(1);
  });
});

describe("growth signals", () => {
  const head = "ticker,as_of_date,owner_earnings,owner_earnings_growth_1y,dividend_growth_3y\n";

  test("rows, nulls and the last duplicate wins", () => {
    const text = `${head}ABC,2024-06-30,1.5e9,-1.4,0.05\nABC,2024-06-30,2e9,,\n`;
    const { rows, skipped } = parseGrowthSignalsCsv(text, "growth/g.csv");
    expect(rows).toEqual([
      {
        ticker: "ABC",
        as_of_date: "2024-06-30",
        owner_earnings: 2e9,
        owner_earnings_growth_1y: null,
        owner_earnings_growth_3y: null,
        owner_earnings_growth_5y: null,
        dividend_growth_3y: null,
        dividend_growth_5y: null,
      },
    ]);
    expect(skipped).toEqual([{ line: 2, reason: "duplicate ABC 2024-06-30; kept line 3" }]);
  });

  test("strict errors and lenient skips", () => {
    const text = `${head}ABC,2024-06-31,1,0,0\nDEF,2024-06-30,1,0,-2\nGHI,2024-06-30,1,0,0\n`;
    expect(importErrorOf(() => parseGrowthSignalsCsv(text, "g.csv"))).toMatchObject({ line: 2 });
    const { rows, skipped } = parseGrowthSignalsCsv(text, "g.csv", { lenient: true });
    expect([rows.map((r) => r.ticker), skipped.map((s) => s.line)]).toEqual([["GHI"], [2, 3]]);
    expect(
      importErrorOf(() => parseGrowthSignalsCsv("ticker,owner_earnings\nA,1\n", "g.csv")).message,
    ).toContain("missing required column as_of_date");
  });
});
