/**
 * Submissions' filings completed by their XBRL facts (`withXbrlFacts`,
 * src/ingest/rules/xbrl-filings.ts): fy, fp, report period and the amendment flag.
 */
import { describe, expect, test } from "bun:test";
import { type FilingSummary, withXbrlFacts } from "../../../src/ingest/rules/xbrl-filings.ts";

const ACCESSION = "0000320193-23-000106";

function filing(form: string, report_date: string | null = "2023-09-30") {
  return { accession_number: ACCESSION, form, report_date };
}

function summary(over: Partial<FilingSummary> = {}): FilingSummary {
  return {
    accession_number: ACCESSION,
    form: "10-K",
    fy: 2023,
    fp: "FY",
    filed: "2023-11-03",
    period: "2023-09-30",
    amendment_flag: false,
    ...over,
  };
}

describe("withXbrlFacts", () => {
  test("a filing with facts takes fy, fp, period and the amendment flag from them", () => {
    const [out] = withXbrlFacts([filing("10-K", "2023-09-29")], new Map([[ACCESSION, summary()]]));
    expect(out).toEqual({
      ...filing("10-K", "2023-09-29"),
      fy: 2023,
      fp: "FY",
      period: "2023-09-30",
      amendment_flag: false,
    });
  });
  test("facts with no report period (cover facts only) fall back to the submissions report date", () => {
    const [out] = withXbrlFacts(
      [filing("10-K/A", "2023-09-30")],
      new Map([[ACCESSION, summary({ period: null })]]),
    );
    expect(out?.period).toBe("2023-09-30");
  });
  test("the facts' amendment flag wins over the form type", () => {
    const [out] = withXbrlFacts(
      [filing("10-K/A")],
      new Map([[ACCESSION, summary({ amendment_flag: false })]]),
    );
    expect(out?.amendment_flag).toBe(false);
  });
  test("a filing without facts has no fy, fp or period; its amendment flag is the form's /A", () => {
    const none = new Map<string, FilingSummary>();
    const [plain, amended] = withXbrlFacts([filing("8-K"), filing("10-Q/A")], none);
    expect(plain).toMatchObject({ fy: null, fp: null, period: null, amendment_flag: false });
    expect(amended?.amendment_flag).toBe(true);
  });
});
