/**
 * Symbols filed by issuers (src/ingest/rules/filed-symbols.ts): which trading symbols of
 * ownership filings stand for a security, and in what order.
 */
import { describe, expect, test } from "bun:test";
import { symbolsFiledByIssuers } from "../../../src/ingest/rules/filed-symbols.ts";
import type { OwnershipFiling } from "../../../src/ingest/sources/form4.ts";

function document(
  periodOfReport: string,
  tradingSymbol: string | null,
  name: string | null = "Issuer Inc",
): OwnershipFiling {
  return {
    file: `${periodOfReport}.xml`,
    accessionNumber: null,
    documentType: "4",
    isAmendment: false,
    periodOfReport,
    dateOfOriginalSubmission: null,
    signatureDate: null,
    issuer: { cik: "0001288776", name, tradingSymbol },
    owners: [],
    transactions: [],
  };
}

describe("symbolsFiledByIssuers", () => {
  test("newest period of report first, with the issuer's CIK and name", () => {
    const out = symbolsFiledByIssuers([document("2015-01-01", "GOOG"), document("2021-06-01", "GOOGL")]);
    expect(out).toEqual([
      { ticker: "GOOGL", cik: "0001288776", name: "Issuer Inc" },
      { ticker: "GOOG", cik: "0001288776", name: "Issuer Inc" },
    ]);
  });
  test("no symbol, NONE, N/A, NA and text that is no ticker are left out", () => {
    const out = symbolsFiledByIssuers([
      document("2020-01-01", null),
      document("2020-01-02", "NONE"),
      document("2020-01-03", "N/A"),
      document("2020-01-04", "NA"),
      document("2020-01-05", "NOT A TICKER!"),
      document("2020-01-06", "FB"),
    ]);
    expect(out.map((s) => s.ticker)).toEqual(["FB"]);
  });
  test("an issuer without a name is named by its symbol; surrounding spaces are trimmed", () => {
    expect(symbolsFiledByIssuers([document("2016-01-01", " LNKD ", null)])).toEqual([
      { ticker: "LNKD", cik: "0001288776", name: " LNKD " },
    ]);
  });
  test("repeats are kept for the securities merge to take the first", () => {
    const out = symbolsFiledByIssuers([document("2016-01-01", "YHOO"), document("2016-02-01", "YHOO")]);
    expect(out.map((s) => s.ticker)).toEqual(["YHOO", "YHOO"]);
  });
});
