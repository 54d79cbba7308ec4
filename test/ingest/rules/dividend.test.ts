import { describe, expect, test } from "bun:test";
import { computeDividendSnapshot, inferDividendFrequency } from "../../../src/ingest/rules/dividend.ts";
import type { DividendRow, PriceBar } from "../../../src/ingest/rules/inputs.ts";

const rows: DividendRow[] = [
  { ex_date: "2023-02-10", pay_date: "2023-03-01", amount: 0.2 },
  { ex_date: "2023-05-10", pay_date: "2023-06-01", amount: 0.2 },
  { ex_date: "2023-08-10", pay_date: "2023-09-01", amount: 0.22 },
  { ex_date: "2023-11-10", pay_date: "2023-12-01", amount: 0.22 },
  { ex_date: "2024-02-09", pay_date: "2024-03-01", amount: 0.22 },
  { ex_date: "2024-05-10", pay_date: "2024-05-31", amount: 0.24 }, // announced, after the as-of date
];
const prices: PriceBar[] = [
  { date: "2023-12-29", close: 30 },
  { date: "2024-01-31", close: 35 },
  { date: "2024-02-29", close: 40 },
  { date: "2024-03-08", close: 44 },
];

describe("dividend snapshot", () => {
  const d = computeDividendSnapshot({ dividends: rows, prices });

  test("is dated by the last price", () => {
    expect(d?.as_of_date).toBe("2024-03-08");
    expect(d?.calculation_version).toBe("dividend-2026.11.5");
  });
  test("TTM dividends sum ex-dates in the 365 days up to the as-of date", () => {
    // (2023-03-09, 2024-03-08]: 0.20 + 0.22 + 0.22 + 0.22 = 0.86
    expect(d?.dps_ttm).toBeCloseTo(0.86, 12);
    expect(d?.dividend_yield_ttm).toBeCloseTo(0.86 / 44, 12); // 0.019545
  });
  test("forward dividends = latest declared payment × payments per year", () => {
    // gaps 89, 92, 92, 91, 91 days → median 91 → quarterly; announced 0.24 (raised from 0.22) → 0.96
    expect(d?.dividend_frequency).toBe("quarterly");
    expect(d?.dps_forward_12m).toBeCloseTo(0.96, 12);
    expect(d?.dividend_yield_forward).toBeCloseTo(0.96 / 44, 12);
  });
  test("an announced special dividend (over 2× the latest paid) is not annualized", () => {
    const special = [...rows.slice(0, 5), { ex_date: "2024-03-20", pay_date: "2024-04-01", amount: 5 }];
    const d = computeDividendSnapshot({ dividends: special, prices });
    expect(d?.payment_amount_next).toBe(5);
    expect(d?.dps_forward_12m).toBeCloseTo(0.88, 12); // 0.22 × 4, not 5 × 4
  });
  test("without an announced payment the forward figure uses the latest paid", () => {
    const paid = computeDividendSnapshot({ dividends: rows.slice(0, 5), prices });
    expect(paid?.dps_forward_12m).toBeCloseTo(0.88, 12); // 0.22 × 4
  });
  test("the next payment comes from the announced row", () => {
    expect(d?.dps_next_payment).toBe(0.24);
    expect(d?.ex_dividend_date_next).toBe("2024-05-10");
    expect(d?.payment_date_next).toBe("2024-05-31");
    expect(d?.payment_amount_next).toBe(0.24);
  });
  test("history high and low use month ends whose trailing year lies inside the history", () => {
    // Month ends with (date − 365) ≥ first ex-date 2023-02-10: 2024-02-29 and 2024-03-08.
    // 2024-02-29: (2023-03-01, 2024-02-29] → 0.86 / 40 = 0.0215; 2024-03-08: 0.86 / 44 = 0.019545
    expect(d?.dividend_yield_history_high).toBeCloseTo(0.0215, 12);
    expect(d?.dividend_yield_history_low).toBeCloseTo(0.86 / 44, 12);
  });
});

describe("dividend snapshot, null rules", () => {
  test("without an announced payment the next-payment fields are null and dps_next_payment repeats the last", () => {
    const d = computeDividendSnapshot({ dividends: rows.slice(0, 5), prices });
    expect(d?.ex_dividend_date_next).toBeNull();
    expect(d?.payment_date_next).toBeNull();
    expect(d?.payment_amount_next).toBeNull();
    expect(d?.dps_next_payment).toBe(0.22);
  });
  test("an overdue schedule gives null forward figures", () => {
    // As of 2024-09-30 the last ex-date 2024-05-10 is 143 days old > 91.25 + 45.
    const d = computeDividendSnapshot({ dividends: rows, prices, as_of: "2024-09-30" });
    expect(d?.dps_forward_12m).toBeNull();
    expect(d?.dividend_yield_forward).toBeNull();
    expect(d?.dps_next_payment).toBeNull();
    // TTM: (2023-10-01, 2024-09-30] → 0.22 + 0.22 + 0.24 = 0.68
    expect(d?.dps_ttm).toBeCloseTo(0.68, 12);
  });
  test("no rows or no date give no snapshot", () => {
    expect(computeDividendSnapshot({ dividends: [], prices })).toBeNull();
    expect(computeDividendSnapshot({ dividends: rows, prices: [] })).toBeNull();
  });
  test("no price gives null yields", () => {
    const d = computeDividendSnapshot({ dividends: rows, prices: [], as_of: "2024-03-08" });
    expect(d?.dividend_yield_ttm).toBeNull();
    expect(d?.dividend_yield_history_high).toBeNull();
  });
});

describe("dividend frequency", () => {
  test("classifies the median spacing of the latest ex-dates", () => {
    expect(inferDividendFrequency(["2024-01-15", "2024-02-15", "2024-03-15"])).toBe("monthly"); // 31, 29
    expect(inferDividendFrequency(["2023-01-10", "2023-07-10", "2024-01-10"])).toBe("semi-annual"); // 181, 184
    expect(inferDividendFrequency(["2022-05-01", "2023-05-01", "2024-05-01"])).toBe("annual"); // 365, 366
    expect(inferDividendFrequency(["2022-01-01", "2022-09-08"])).toBe("irregular"); // 250
  });
  test("a same-day special dividend does not shorten the spacing; one date is not enough", () => {
    expect(inferDividendFrequency(["2024-01-10", "2024-01-10", "2024-04-10"])).toBe("quarterly"); // one gap: 91
    expect(inferDividendFrequency(["2024-01-10"])).toBeNull();
  });
});
