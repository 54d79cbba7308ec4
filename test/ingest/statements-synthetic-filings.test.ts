/**
 * Statements' filing metadata and share counts on small synthetic companyfacts files: report
 * periods, amendments, cover-page counts and balance-sheet counts across splits. Each test
 * builds its own facts.
 */
import { describe, expect, test } from "bun:test";
import { inferSplits } from "../../src/ingest/rules/splits.ts";
import { computeStatements } from "../../src/ingest/rules/statements.ts";
import { filing, flow, syntheticCompany } from "../helpers/synthetic-companyfacts.ts";

describe("filings and cover share counts", () => {
  /** One cover-page count (one share class) of a filing. */
  const coverCount = (end: string, val: number, accn: string, filed: string) => ({
    concept: "EntityCommonStockSharesOutstanding",
    taxonomy: "dei",
    unit: "shares",
    end,
    val,
    accn,
    filed,
  });

  test("report period from the filing's own durations, DocumentPeriodEndDate when present; amendments flagged", () => {
    const company = syntheticCompany([
      ...filing("0000000123-23-000001", "10-Q", 2023, "Q2", "2023-08-01", [
        flow("Revenues", "2023-04-01", "2023-06-30", 1),
        flow("Revenues", "2023-07-01", "2023-09-30", 2), // guidance for the next quarter
      ]),
      ...filing("0000000123-23-000002", "10-K/A", 2022, "FY", "2023-04-01", [
        flow("Revenues", "2022-01-01", "2022-12-31", 9),
      ]),
      ...filing("0000000123-23-000003", "8-K", 2023, "Q2", "2023-08-01", [
        flow("Revenues", "2023-04-01", "2023-06-30", 1),
      ]),
    ]);
    company.documents.set("0000000123-23-000002", { periodEndDate: "2022-12-30", amendmentFlag: null });
    const filings = computeStatements(company).filings;
    expect(filings.map((f) => [f.accession_number, f.period, f.amendment_flag])).toEqual([
      ["0000000123-23-000001", "2023-06-30", false],
      ["0000000123-23-000002", "2022-12-30", true],
    ]);
  });

  test("share classes of one cover page are summed; each filing of a date is kept with its own filing date", () => {
    const cover = (accn: string, filed: string, vals: number[]) =>
      vals.map((val) => coverCount("2024-01-20", val, accn, filed));
    const company = syntheticCompany([
      ...cover("0000000123-24-000001", "2024-02-01", [300, 50]),
      ...cover("0000000123-24-000009", "2024-03-01", [360]),
    ]);
    expect(computeStatements(company).shares_outstanding).toEqual([
      { date: "2024-01-20", filed: "2024-02-01", value: 350 },
      { date: "2024-01-20", filed: "2024-03-01", value: 360 },
    ]);
    const single = syntheticCompany(cover("0000000123-24-000001", "2024-02-01", [300, 50]));
    expect(computeStatements(single).shares_outstanding).toEqual([
      { date: "2024-01-20", filed: "2024-02-01", value: 350 },
    ]);
  });

  // Alphabet-like: no cover count; balance-sheet counts, with a 20-for-1 split in July 2022
  // that the 10-Q of 2022-07-27 applies to its 2021-12-31 comparative too.
  const balanceCount = (end: string, val: number) => ({
    concept: "CommonStockSharesOutstanding",
    unit: "shares",
    end,
    val,
  });
  const balanceCounts = [
    ...filing("0000000123-22-000019", "10-K", 2021, "FY", "2022-02-02", [
      balanceCount("2020-12-31", 675),
      balanceCount("2021-12-31", 662),
    ]),
    ...filing("0000000123-22-000071", "10-Q", 2022, "Q2", "2022-07-27", [
      balanceCount("2021-12-31", 13_240),
      balanceCount("2022-06-30", 13_078),
    ]),
  ];

  test("without a cover count, each filing's balance-sheet count at its own date, not its comparatives", () => {
    const shares = computeStatements(syntheticCompany(balanceCounts)).shares_outstanding;
    expect(shares).toEqual([
      { date: "2021-12-31", filed: "2022-02-02", value: 662 },
      { date: "2022-06-30", filed: "2022-07-27", value: 13_078 },
    ]);
    // The restated comparative (13,240 at 2021-12-31) would read as a split at 2021-12-31.
    expect(inferSplits(shares)).toEqual([{ date: "2022-06-30", ratio: 20 }]);
  });

  test("cover counts that stopped more than a year before the balance sheets give way to them", () => {
    const company = syntheticCompany([
      ...balanceCounts,
      coverCount("2021-01-20", 680, "0000000123-21-000003", "2021-02-01"),
    ]);
    // The last cover count (2021-01-20) is 526 days older than the last balance sheet's
    // (2022-06-30): the series is the balance sheets' alone, as pinned by the test above.
    const balanceOnly = computeStatements(syntheticCompany(balanceCounts)).shares_outstanding;
    expect(computeStatements(company).shares_outstanding).toEqual(balanceOnly);
  });

  test("a company with current cover counts never uses the balance-sheet counts", () => {
    const company = syntheticCompany([
      ...balanceCounts,
      coverCount("2022-07-20", 13_070, "0000000123-22-000071", "2022-07-27"),
    ]);
    expect(computeStatements(company).shares_outstanding).toEqual([
      { date: "2022-07-20", filed: "2022-07-27", value: 13_070 },
    ]);
  });
});
