/** The calendar rows kept, and keyed to securities (src/ingest/rules/calendar-securities.ts). */
import { describe, expect, test } from "bun:test";
import {
  calendarRowsOfSecurities,
  latestCalendarRows,
} from "../../../src/ingest/rules/calendar-securities.ts";
import type { CalendarRow } from "../../../src/snapshot/documents.ts";

function row(ticker: string, cik: string | null = null): CalendarRow {
  return {
    ticker,
    cik,
    earning_date: "2026-01-29",
    earning_time: "after-hours",
    eps_forecast: null,
    eps_actual: null,
    eps_surprise: null,
    no_of_estimates: null,
    fiscal_quarter_ending: null,
    currency: null,
  };
}

const SECURITIES = new Map([
  ["AAPL", { security_id: "AAPL", cik: "0000320193" }],
  ["BRK.B", { security_id: "BRK.B", cik: "0001067983" }],
]);

describe("calendarRowsOfSecurities", () => {
  test("a row takes its security's id and, when the source gave none, its CIK", () => {
    const [out] = calendarRowsOfSecurities([row("AAPL")], SECURITIES);
    expect(out).toMatchObject({ ticker: "AAPL", security_id: "AAPL", cik: "0000320193" });
  });
  test("the ticker is matched by its key (BRK-B is BRK.B)", () => {
    const [out] = calendarRowsOfSecurities([row("brk-b")], SECURITIES);
    expect(out).toMatchObject({ ticker: "brk-b", security_id: "BRK.B", cik: "0001067983" });
  });
  test("the source's own CIK is kept over the security's", () => {
    const [out] = calendarRowsOfSecurities([row("AAPL", "0000000042")], SECURITIES);
    expect(out?.cik).toBe("0000000042");
  });
  test("a ticker no security has is kept, keyed by its ticker key, with a null CIK", () => {
    const out = calendarRowsOfSecurities([row("zzz-a"), row("AAPL")], SECURITIES);
    expect(out.map((r) => [r.security_id, r.cik])).toEqual([
      ["ZZZ.A", null],
      ["AAPL", "0000320193"],
    ]);
  });
});

describe("latestCalendarRows", () => {
  test("of rows naming one ticker (in any spelling) and date, the last read is kept, in the first's place", () => {
    const early = { ...row("BRK.B"), eps_forecast: 1 };
    const other = { ...row("AAPL"), earning_date: "2026-01-30" };
    const late = { ...row("brk-b"), eps_forecast: 2 };
    expect(latestCalendarRows([early, other, late])).toEqual([late, other]);
  });

  test("rows of one ticker on different dates are all kept", () => {
    const rows = [row("AAPL"), { ...row("AAPL"), earning_date: "2026-04-30" }];
    expect(latestCalendarRows(rows)).toEqual(rows);
  });
});
