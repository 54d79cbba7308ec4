/** Which fiscal years a statement call's start and end select (src/query/statements.ts fiscalYearRange). */
import { describe, expect, test } from "bun:test";
import { fiscalYearRange } from "../../src/query/statements.ts";

/** Years ending in late September, as Apple's do. */
const SEPTEMBER = new Map([
  [2020, "2020-09-26"],
  [2021, "2021-09-25"],
]);

const range = (ends: ReadonlyMap<number, string>, start: string | null, end: string | null) =>
  fiscalYearRange(
    ends,
    start === null ? null : start.length === 4 ? { year: Number(start) } : { date: start },
    end === null ? null : end.length === 4 ? { year: Number(end) } : { date: end },
  );

describe("fiscalYearRange", () => {
  test("no bounds: every year", () => {
    expect(range(SEPTEMBER, null, null)).toEqual({ fromYear: 0, toYear: 9999 });
  });

  test("a bare year is that fiscal year, whatever the company's year ends", () => {
    expect(range(SEPTEMBER, "2019", "2023")).toEqual({ fromYear: 2019, toYear: 2023 });
  });

  test("a date as start: the first year that ends on or after it; as end: the last that ends on or before it", () => {
    expect(range(SEPTEMBER, "2020-09-26", "2021-09-25")).toEqual({ fromYear: 2020, toYear: 2021 });
    expect(range(SEPTEMBER, "2020-09-27", "2021-09-24")).toEqual({ fromYear: 2021, toYear: 2020 });
    expect(range(SEPTEMBER, "2020-12-31", "2022-01-01")).toEqual({ fromYear: 2021, toYear: 2021 });
  });

  test("years without an annual period end whole years from the nearest one that has one", () => {
    // FY2022 (in progress) ends 2022-09-25, a year after FY2021; FY2019 ends 2019-09-26.
    expect(range(SEPTEMBER, null, "2022-09-25").toYear).toBe(2022);
    expect(range(SEPTEMBER, null, "2022-09-24").toYear).toBe(2021);
    expect(range(SEPTEMBER, "2019-09-27", null).fromYear).toBe(2020);
    expect(range(SEPTEMBER, "2019-09-26", null).fromYear).toBe(2019);
  });

  test("a retailer's year labelled by the calendar year it mostly falls in", () => {
    // FY2024 ends 2025-02-01.
    const retailer = new Map([[2024, "2025-02-01"]]);
    expect(range(retailer, "2024-12-31", "2025-01-15")).toEqual({ fromYear: 2024, toYear: 2023 });
    expect(range(retailer, "2025-02-02", "2025-02-01")).toEqual({ fromYear: 2025, toYear: 2024 });
  });

  test("a company without any annual period has calendar fiscal years", () => {
    expect(range(new Map(), "2020-06-30", "2020-06-30")).toEqual({ fromYear: 2020, toYear: 2019 });
    expect(range(new Map(), "2020-01-01", "2020-12-31")).toEqual({ fromYear: 2020, toYear: 2020 });
  });
});
