import { describe, expect, test } from "bun:test";
import { computeEarnings, type EarningsInput } from "../../../src/ingest/rules/earnings.ts";
import type { QuarterlyEarnings } from "../../../src/ingest/sources/estimates.ts";
import { income } from "./builders.ts";

const quarter = (end: string, eps: number) => income(end, { diluted_eps: eps }, { type: "quarterly" });

function earnings(input: Partial<EarningsInput>) {
  return computeEarnings({
    asOf: "2026-02-15",
    reportDates: [],
    quarters: [],
    calendar: [],
    history: null,
    ...input,
  });
}

describe("latest-quarter EPS", () => {
  test("is the newest quarter's when it ended at most 226 days (a quarter and a filing lag) before the latest release", () => {
    const e = earnings({
      reportDates: ["2025-10-23", "2026-01-29"],
      quarters: [quarter("2025-09-30", 0.5), quarter("2025-12-31", 0.6)],
    });
    expect(e.latest_earnings_release_date).toBe("2026-01-29");
    expect(e.eps_latest_q).toBe(0.6);
    expect(e.eps_latest_q_period_end).toBe("2025-12-31");
  });

  test("is not served when the facts stop long before the latest release (a quarter of 2022, a release of 2026)", () => {
    const e = earnings({
      reportDates: ["2022-10-24", "2026-01-29"],
      quarters: [quarter("2022-06-30", 2.27), quarter("2022-09-30", 0.95)],
    });
    expect(e.latest_earnings_release_date).toBe("2026-01-29");
    expect(e.past_earnings_date).toBe("2022-10-24");
    expect(e.eps_latest_q).toBeNull();
    expect(e.eps_latest_q_period_end).toBeNull();
    expect(e.eps_surprise_latest_q).toBeNull();
  });

  test("a press release of the next quarter before its facts: the quarter on file still counts, up to 226 days", () => {
    // Statements end 2025-09-30; the calendar's release of 2026-02-14 reports the next quarter.
    const e = earnings({
      asOf: "2026-02-20",
      reportDates: ["2025-10-30"],
      calendar: [
        {
          ticker: "X",
          cik: null,
          earning_date: "2026-02-14",
          earning_time: "after-hours",
          eps_forecast: null,
          eps_actual: null,
          eps_surprise: null,
          no_of_estimates: null,
          fiscal_quarter_ending: "2025-12",
          currency: null,
        },
      ],
      quarters: [quarter("2025-09-30", 0.5)],
    });
    expect([e.latest_earnings_release_date, e.eps_latest_q]).toEqual(["2026-02-14", 0.5]);
    // 2025-09-30 + 226 days = 2026-05-14; a day later the facts count as stopped.
    const at = (release: string) =>
      earnings({ asOf: "2026-06-01", reportDates: [release], quarters: [quarter("2025-09-30", 0.5)] })
        .eps_latest_q;
    expect([at("2026-05-14"), at("2026-05-15")]).toEqual([0.5, null]);
  });

  const reported = (end: string, date: string, eps: number, estimate: number): QuarterlyEarnings => ({
    fiscal_date_ending: end,
    reported_date: date,
    reported_eps: eps,
    estimated_eps: estimate,
    surprise: null,
    surprise_ratio: null,
    report_time: null,
  });
  const historyOf = (...quarterly: QuarterlyEarnings[]) => ({ ticker: "X", annual: [], quarterly });

  test("a company with only an earnings history: its newest reported quarter, estimate and surprise", () => {
    const history = historyOf(
      reported("2023-07-31", "2023-08-15", 4.65, 4.45),
      reported("2023-04-30", "2023-05-16", 3.82, 3.8),
    );
    const e = earnings({ asOf: "2024-03-08", reportDates: ["2023-05-16", "2023-08-15"], history });
    expect(e.latest_earnings_release_date).toBe("2023-08-15");
    expect(e.eps_latest_q_period_end).toBe("2023-07-31");
    expect(e.eps_latest_q).toBe(4.65);
    expect(e.eps_estimate_latest_q).toBe(4.45);
    expect(e.eps_surprise_latest_q).toBe(0.2);
  });

  test("a history quarter newer than the statements' is the latest; one of the same month is the statements' quarter", () => {
    const history = historyOf(
      reported("2026-01-01", "2026-01-29", 0.5, 0.45),
      reported("2025-09-30", "2025-10-22", 0.4, 0.41),
    );
    const stale = earnings({
      reportDates: ["2022-10-24", "2025-10-22", "2026-01-29"],
      quarters: [quarter("2022-09-30", 0.95)],
      history,
    });
    expect([stale.eps_latest_q_period_end, stale.eps_latest_q]).toEqual(["2026-01-01", 0.5]);
    const same = earnings({
      reportDates: ["2025-10-22", "2026-01-29"],
      quarters: [quarter("2025-12-31", 0.52)],
      history,
    });
    expect([same.eps_latest_q_period_end, same.eps_latest_q, same.eps_estimate_latest_q]).toEqual([
      "2025-12-31",
      0.52,
      0.45,
    ]);
  });
});
