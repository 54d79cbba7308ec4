/**
 * Issue 19, items 7 and 8: what an earnings history and the earnings calendar give the
 * earnings and estimates documents. A calendar release is a release (the 10-Q filed after it
 * is its report, not another release); the calendar's reported EPS fills a quarter the filer
 * reports year to date only; an earnings history without an estimate for a quarter not yet
 * reported gives no estimates document, and says why.
 */
import { describe, expect, test } from "bun:test";
import { deriveEarnings, type SecurityInputs } from "../../../src/ingest/pipeline/derive.ts";
import { computeEarnings, computeEstimates, nextQuarterGap } from "../../../src/ingest/rules/earnings.ts";
import type { EarningsHistory, QuarterlyEarnings } from "../../../src/ingest/sources/estimates.ts";
import type { CalendarRow } from "../../../src/snapshot/documents.ts";
import { income, securityInputs, statements } from "./builders.ts";

function row(date: string, quarter: string, actual: number | null, forecast: number | null): CalendarRow {
  return {
    ticker: "X",
    cik: null,
    earning_date: date,
    earning_time: "after-hours",
    eps_forecast: forecast,
    eps_actual: actual,
    eps_surprise: actual !== null && forecast !== null ? actual - forecast : null,
    no_of_estimates: 12,
    fiscal_quarter_ending: quarter,
    currency: "USD",
  };
}

function quarter(end: string, reported: string | null, eps: number | null, estimate: number | null) {
  const q: QuarterlyEarnings = {
    fiscal_date_ending: end,
    reported_date: reported,
    reported_eps: eps,
    estimated_eps: estimate,
    surprise: null,
    surprise_ratio: null,
    report_time: null,
  };
  return q;
}

function history(quarterly: QuarterlyEarnings[]): EarningsHistory {
  return { ticker: "X", annual: [], quarterly };
}

describe("the latest quarter's EPS from the calendar", () => {
  test("a quarter reported year to date only (no three-month EPS) takes the calendar's reported EPS", () => {
    // Q3 exists only as 9M − 6M: its statement EPS is null (EPS is never derived by subtraction).
    const q3 = income("2026-09-30", { revenue: 100, diluted_eps: null }, { type: "quarterly" });
    const e = computeEarnings({
      asOf: "2026-11-24",
      reportDates: ["2026-07-27", "2026-10-26"],
      quarters: [q3],
      calendar: [row("2026-07-27", "2026-06", 0.67, 0.65), row("2026-10-26", "2026-09", 0.53, 0.51)],
      history: null,
    });
    expect(e.eps_latest_q_period_end).toBe("2026-09-30");
    expect(e.eps_latest_q).toBe(0.53);
    expect(e.eps_estimate_latest_q).toBe(0.51);
    expect(e.eps_surprise_latest_q).toBeCloseTo(0.02, 12);
  });

  test("a quarter the calendar reported before its 10-K is the latest quarter, dated at its month's end", () => {
    // A September fiscal year: Q4 (to 2026-09-30) was released on 2026-11-04; its 10-K, due
    // 60 days after the year, is not filed by 2026-11-24, so the statements end with Q3.
    const q3 = income("2026-06-30", { diluted_eps: 0.17 }, { type: "quarterly" });
    const e = computeEarnings({
      asOf: "2026-11-24",
      reportDates: ["2026-07-27"],
      quarters: [q3],
      calendar: [row("2026-07-27", "2026-06", 0.17, 0.17), row("2026-11-04", "2026-09", 0.21, 0.2)],
      history: null,
    });
    expect(e.latest_earnings_release_date).toBe("2026-11-04");
    expect(e.eps_latest_q_period_end).toBe("2026-09-30");
    expect(e.eps_latest_q).toBe(0.21);
    expect(e.eps_estimate_latest_q).toBe(0.2);
  });

  test("a statement's own EPS wins over the calendar's", () => {
    const q3 = income("2026-09-30", { diluted_eps: 0.5 }, { type: "quarterly" });
    const e = computeEarnings({
      asOf: "2026-11-24",
      reportDates: ["2026-10-26"],
      quarters: [q3],
      calendar: [row("2026-10-26", "2026-09", 0.53, 0.51)],
      history: null,
    });
    expect(e.eps_latest_q).toBe(0.5);
  });
});

describe("release dates with a calendar", () => {
  const inputs = (over: Partial<SecurityInputs>) =>
    securityInputs({ symbol: "X", statements: { ...statements({}), currency: "USD" }, ...over });
  const earningsOf = (input: SecurityInputs) => {
    const doc = deriveEarnings(input, "2026-11-24").find((r) => r.kind === "earnings");
    return (JSON.parse(doc?.body ?? "{}") as { earnings: Record<string, unknown> }).earnings;
  };

  test("a 10-Q filed two weeks after the calendar's release is that release's report, not a release", () => {
    const e = earningsOf(
      inputs({
        reportDates: ["2026-08-10", "2026-11-09"],
        calendar: [row("2026-07-27", "2026-06", 0.67, 0.65), row("2026-10-26", "2026-09", 0.53, 0.51)],
      }),
    );
    expect(e.latest_earnings_release_date).toBe("2026-10-26");
    expect(e.past_earnings_date).toBe("2026-07-27");
  });

  test("a report no calendar release precedes by 45 days or less is a release", () => {
    const e = earningsOf(
      inputs({ reportDates: ["2026-11-09"], calendar: [row("2026-07-27", "2026-06", 0.67, 0.65)] }),
    );
    expect(e.latest_earnings_release_date).toBe("2026-11-09");
    expect(e.past_earnings_date).toBe("2026-07-27");
  });
});

describe("estimates from an earnings history", () => {
  test("an estimate for a quarter not yet reported over the same quarter a year earlier", () => {
    const h = history([
      quarter("2024-06-30", "2024-07-30", null, 1.2),
      quarter("2024-03-31", "2024-04-25", 1.1, 1.0),
      quarter("2023-06-30", "2023-07-25", 1.0, 0.9),
    ]);
    expect(nextQuarterGap(h)).toBeNull();
    expect(computeEstimates(null, h, 50)?.eps_growth_yoy_est_next_q).toBeCloseTo(0.2, 12);
  });

  test("a file whose newest estimate is for a reported quarter gives no document, and the gap says so", () => {
    // Alpha Vantage lists an upcoming quarter only while its report is pending: HD's file
    // ends with 2023-07-31, reported 2023-08-15.
    const h = history([
      quarter("2023-07-31", "2023-08-15", 4.65, 4.45),
      quarter("2022-07-31", "2022-08-16", 5.05, 4.94),
    ]);
    expect(computeEstimates(null, h, 300)).toBeNull();
    expect(nextQuarterGap(h)).toBe("newest estimate 2023-07-31, reported 2023-08-15");
  });

  test("an upcoming estimate without a positive year-earlier EPS: no growth, and the gap names the quarter", () => {
    const h = history([
      quarter("2024-06-30", null, null, 0.4),
      quarter("2023-06-30", "2023-07-25", -0.2, 0.1),
    ]);
    expect(computeEstimates(null, h, 50)).toBeNull();
    expect(nextQuarterGap(h)).toBe("no reported EPS above 0 for 2023-06-30");
  });
});
