/**
 * The results-release rule (src/ingest/rules/results-releases.ts): which filings date a
 * company's periodic reports and which 8-Ks with item 2.02 are the earnings releases of them.
 */
import { describe, expect, test } from "bun:test";
import {
  FOLLOW_UP_DAYS,
  firstOfRuns,
  isPeriodicReport,
  isResultsItemEightK,
  reportAndReleaseDatesByCik,
} from "../../../src/ingest/rules/results-releases.ts";

const CIK = "0000000001";

/** A filing of CIK with only the fields the rule reads. */
function filing(form: string, filing_date: string, items: string | null = null, cik = CIK) {
  return { cik, form, filing_date, items };
}

describe("isPeriodicReport and isResultsItemEightK", () => {
  test("10-K, 10-Q, 20-F and 40-F are periodic reports; amendments and 8-Ks are not", () => {
    for (const form of ["10-K", "10-Q", "20-F", "40-F"]) expect(isPeriodicReport(form)).toBe(true);
    for (const form of ["10-K/A", "10-Q/A", "8-K", "10-KT", "6-K"])
      expect(isPeriodicReport(form)).toBe(false);
  });
  test("an 8-K is a results announcement only when its items list 2.02 exactly", () => {
    expect(isResultsItemEightK({ form: "8-K", items: "2.02" })).toBe(true);
    expect(isResultsItemEightK({ form: "8-K", items: "2.02,9.01" })).toBe(true);
    expect(isResultsItemEightK({ form: "8-K", items: "7.01,9.01" })).toBe(false);
    expect(isResultsItemEightK({ form: "8-K", items: "12.02" })).toBe(false);
    expect(isResultsItemEightK({ form: "8-K", items: null })).toBe(false);
    expect(isResultsItemEightK({ form: "8-K/A", items: "2.02" })).toBe(false);
    expect(isResultsItemEightK({ form: "10-Q", items: "2.02" })).toBe(false);
  });
});

describe("firstOfRuns", () => {
  test("keeps the first of dates that follow each other by the given days or fewer, ascending", () => {
    expect(firstOfRuns(["2020-07-31", "2020-07-30", "2020-08-10"], 3)).toEqual(["2020-07-30", "2020-08-10"]);
  });
  test("a run is chained from date to date, not measured from its first", () => {
    expect(firstOfRuns(["2020-01-01", "2020-01-04", "2020-01-07"], 3)).toEqual(["2020-01-01"]);
  });
  test("a gap of one day more than the limit starts a new run", () => {
    expect(firstOfRuns(["2020-01-01", "2020-01-05"], 3)).toEqual(["2020-01-01", "2020-01-05"]);
    expect(FOLLOW_UP_DAYS).toBe(3);
  });
  test("no dates give none", () => {
    expect(firstOfRuns([], 3)).toEqual([]);
  });
});

describe("reportAndReleaseDatesByCik", () => {
  test("the latest 2.02 8-K up to 45 days before a report is its release (Tesla: deliveries are not)", () => {
    const out = reportAndReleaseDatesByCik([
      filing("8-K", "2023-04-02", "2.02"), // quarterly deliveries, two days after the quarter
      filing("8-K", "2023-04-19", "2.02,9.01"), // the results
      filing("10-Q", "2023-04-24"),
    ]);
    expect(out.get(CIK)).toEqual({ reports: ["2023-04-24"], results: ["2023-04-19"] });
  });
  test("a follow-up within three days of a release is not the release (Expedia, 2020-07-31)", () => {
    const out = reportAndReleaseDatesByCik([
      filing("8-K", "2020-07-30", "2.02"),
      filing("8-K", "2020-07-31", "2.02"),
      filing("10-Q", "2020-08-05"),
    ]);
    expect(out.get(CIK)?.results).toEqual(["2020-07-30"]);
  });
  test("the window holds 45 days and the report day itself; the day after the report is outside", () => {
    const at45 = reportAndReleaseDatesByCik([
      filing("8-K", "2023-01-01", "2.02"),
      filing("10-K", "2023-02-15"),
    ]);
    expect(at45.get(CIK)?.results).toEqual(["2023-01-01"]);
    const at46 = reportAndReleaseDatesByCik([
      filing("8-K", "2023-01-01", "2.02"),
      filing("10-K", "2023-02-16"),
    ]);
    expect(at46.get(CIK)?.results).toEqual([]);
    const sameDay = reportAndReleaseDatesByCik([
      filing("8-K", "2023-02-16", "2.02"),
      filing("10-K", "2023-02-16"),
    ]);
    expect(sameDay.get(CIK)?.results).toEqual(["2023-02-16"]);
    const after = reportAndReleaseDatesByCik([
      filing("8-K", "2023-02-17", "2.02"),
      filing("10-K", "2023-02-16"),
    ]);
    expect(after.get(CIK)?.results).toEqual([]);
  });
  test("8-Ks without item 2.02 and amended reports take no part", () => {
    const out = reportAndReleaseDatesByCik([
      filing("8-K", "2023-04-19", "7.01"),
      filing("10-Q/A", "2023-05-01"),
      filing("10-Q", "2023-04-24"),
    ]);
    expect(out.get(CIK)).toEqual({ reports: ["2023-04-24"], results: [] });
  });
  test("a release before two reports in its window is listed once; both lists ascend", () => {
    const out = reportAndReleaseDatesByCik([
      filing("10-K", "2023-02-20"),
      filing("10-K", "2023-02-10"),
      filing("8-K", "2023-02-01", "2.02"),
    ]);
    expect(out.get(CIK)).toEqual({ reports: ["2023-02-10", "2023-02-20"], results: ["2023-02-01"] });
  });
  test("a company with announcements but no periodic report has no entry; companies stay apart", () => {
    const other = "0000000002";
    const out = reportAndReleaseDatesByCik([
      filing("8-K", "2023-04-19", "2.02", other),
      filing("10-Q", "2023-04-24"),
    ]);
    expect(out.has(other)).toBe(false);
    expect(out.get(CIK)).toEqual({ reports: ["2023-04-24"], results: [] });
  });
});
