import { describe, expect, test } from "bun:test";
import { computeEarnings, type EarningsInput } from "../../../src/ingest/compute/earnings.ts";
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
  test("is the newest quarter's when it ended at most 135 days before the latest release", () => {
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

  test("a 20-F filer's year ended four months before its release still counts (135 days)", () => {
    const e = earnings({
      asOf: "2026-06-01",
      reportDates: ["2026-05-14"],
      quarters: [quarter("2025-12-31", 1.1)],
    });
    expect(e.eps_latest_q).toBe(1.1);
    const late = earnings({
      asOf: "2026-06-01",
      reportDates: ["2026-05-16"],
      quarters: [quarter("2025-12-31", 1.1)],
    });
    expect(late.eps_latest_q).toBeNull();
  });
});
