/**
 * Calendar arithmetic (domain/dates.ts) against dates worked out by hand: the importer, the
 * demo, the benchmark and the test oracles all count days with it, so it is pinned here on
 * its own.
 */
import { describe, expect, test } from "bun:test";
import {
  addDays,
  addYears,
  daysBetween,
  fromDayNumber,
  monthIndex,
  toDayNumber,
  yearOf,
} from "../../src/domain/dates.ts";

describe("day numbers", () => {
  test("count days since 1970-01-01 in UTC, before and after the epoch", () => {
    expect(toDayNumber("1970-01-01"), "the epoch is day 0").toBe(0);
    expect(toDayNumber("1969-12-31"), "the day before the epoch is day -1").toBe(-1);
    expect(toDayNumber("2000-03-01"), "2000-03-01 is day 11017").toBe(11_017);
    expect(toDayNumber("2024-05-06T23:59:59Z"), "a timestamp counts as its date").toBe(19_849);
  });

  test("fromDayNumber inverts toDayNumber", () => {
    expect(fromDayNumber(19_000), "day 19000 is 2022-01-08").toBe("2022-01-08");
    expect(fromDayNumber(-1), "day -1 is 1969-12-31").toBe("1969-12-31");
    for (const date of ["1999-12-31", "2020-02-29", "2024-12-31"]) {
      expect(fromDayNumber(toDayNumber(date)), `${date} round-trips`).toBe(date);
    }
  });
});

describe("adding and counting days", () => {
  test("addDays crosses month, year and leap-day boundaries both ways", () => {
    expect(addDays("2024-02-28", 1), "2024 is a leap year").toBe("2024-02-29");
    expect(addDays("2023-02-28", 1), "2023 is not").toBe("2023-03-01");
    expect(addDays("2020-01-01", -1), "back over a year end").toBe("2019-12-31");
    expect(addDays("2025-03-01", -365), "365 days back over a leap day").toBe("2024-03-01");
    expect(addDays("2021-06-15", 0), "zero days is the same date").toBe("2021-06-15");
  });

  test("daysBetween is signed and counts leap days", () => {
    expect(daysBetween("2023-01-01", "2024-01-01"), "a common year").toBe(365);
    expect(daysBetween("2024-01-01", "2025-01-01"), "a leap year").toBe(366);
    expect(daysBetween("2024-01-10", "2024-01-01"), "negative when `to` is earlier").toBe(-9);
  });

  test("addYears keeps the calendar day; Feb 29 becomes Mar 1", () => {
    expect(addYears("2023-06-30", -5), "five years back").toBe("2018-06-30");
    expect(addYears("2024-02-29", 1), "no Feb 29 in 2025").toBe("2025-03-01");
  });
});

describe("months and years", () => {
  test("monthIndex steps by one per month across a year end; yearOf reads the year", () => {
    expect(monthIndex("2024-01-15") - monthIndex("2023-12-31"), "December to January").toBe(1);
    expect(yearOf("2024-05-06"), "the calendar year").toBe(2024);
  });
});
