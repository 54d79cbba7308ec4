/**
 * The submissions merge (src/ingest/rules/submissions.ts): which copy of a filing listed more
 * than once is kept, each company's first filing date, and which filer-table companies join.
 */
import { describe, expect, test } from "bun:test";
import {
  filersWithoutSubmissions,
  mainSubmissionFilesFirst,
  mergeSubmissions,
  type SubmissionsPart,
} from "../../../src/ingest/rules/submissions.ts";
import type { CompanyRecord, FilingRecord } from "../../../src/ingest/sources/submissions.ts";

const ISSUER = "0000000001";
const OWNER = "0000000002";

function company(cik: string, name = `Company ${cik}`): CompanyRecord {
  return {
    cik,
    name,
    entity_type: null,
    sic: null,
    sic_description: null,
    category: null,
    fiscal_year_end: null,
    state_of_incorporation: null,
    country_iso: null,
    country: null,
    website: null,
    investor_website: null,
    description: null,
    phone: null,
    ein: null,
    tickers: [],
    exchanges: [],
  };
}

function filing(cik: string, accession_number: string, filing_date: string, form = "4"): FilingRecord {
  return {
    cik,
    accession_number,
    form,
    filing_date,
    report_date: null,
    acceptance_date_time: null,
    primary_document: null,
    primary_doc_description: null,
    items: null,
  };
}

function main(cik: string, filings: FilingRecord[], listedFrom: string | null = null): SubmissionsPart {
  return { company: company(cik), filings, listedFrom };
}

const paged = (filings: FilingRecord[]): SubmissionsPart => ({ company: null, filings, listedFrom: null });

describe("mainSubmissionFilesFirst", () => {
  test("main files come before paged ones, each kind in the given order", () => {
    const files = [
      "sub/CIK0000000001-submissions-001.json",
      "sub/CIK0000000001.json",
      "sub/CIK0000000002-submissions-001.json",
      "sub/CIK0000000002.json",
    ];
    expect(mainSubmissionFilesFirst(files)).toEqual([
      "sub/CIK0000000001.json",
      "sub/CIK0000000002.json",
      "sub/CIK0000000001-submissions-001.json",
      "sub/CIK0000000002-submissions-001.json",
    ]);
  });
});

describe("mergeSubmissions", () => {
  test("a filing listed under issuer and owner is one row per filer", () => {
    const shared = "0000000002-23-000001";
    const { filings } = mergeSubmissions([
      main(ISSUER, [filing(ISSUER, shared, "2023-03-01")]),
      main(OWNER, [filing(OWNER, shared, "2023-03-01")]),
    ]);
    expect(filings.map((f) => `${f.cik}|${f.accession_number}`)).toEqual([
      `${ISSUER}|${shared}`,
      `${OWNER}|${shared}`,
    ]);
  });
  test("a filer's own repeat (recent list and a paged file) keeps the first copy: the main file's", () => {
    const recent = {
      ...filing(ISSUER, "0000000001-23-000001", "2023-03-01"),
      primary_document: "recent.xml",
    };
    const pagedCopy = { ...recent, primary_document: "paged.xml" };
    const { filings } = mergeSubmissions([main(ISSUER, [recent]), paged([pagedCopy])]);
    expect(filings).toHaveLength(1);
    expect(filings[0]?.primary_document).toBe("recent.xml");
  });
  test("the first filing date is the earliest kept filing, paged files included", () => {
    const { companies } = mergeSubmissions([
      main(ISSUER, [filing(ISSUER, "0000000001-23-000002", "2023-03-01")]),
      paged([filing(ISSUER, "0000000001-05-000001", "2005-06-01")]),
    ]);
    expect(companies[0]?.first_filing_date).toBe("2005-06-01");
  });
  test("an earlier date the main file lists for paged files not at hand wins", () => {
    const { companies } = mergeSubmissions([
      main(ISSUER, [filing(ISSUER, "0000000001-23-000002", "2023-03-01")], "1996-01-02"),
    ]);
    expect(companies[0]?.first_filing_date).toBe("1996-01-02");
  });
  test("a later listed date does not replace an earlier filing; no date at all gives null", () => {
    const { companies } = mergeSubmissions([
      main(ISSUER, [filing(ISSUER, "0000000001-23-000002", "2023-03-01")], "2024-01-01"),
      main(OWNER, []),
    ]);
    expect(companies.map((c) => c.first_filing_date)).toEqual(["2023-03-01", null]);
  });
  test("a paged file brings filings but no company; companies keep the order of their files", () => {
    const { companies, filings } = mergeSubmissions([
      paged([filing(ISSUER, "0000000001-05-000001", "2005-06-01")]),
      main(OWNER, []),
      main(ISSUER, []),
    ]);
    expect(companies.map((c) => c.cik)).toEqual([OWNER, ISSUER]);
    expect(filings).toHaveLength(1);
  });
});

describe("filersWithoutSubmissions", () => {
  test("a filer-table company joins only when no submissions file gave it, with no first filing date", () => {
    const fromSubmissions = [company(ISSUER, "From submissions")];
    const filers = [company(ISSUER, "From the filer table"), company(OWNER)];
    const added = filersWithoutSubmissions(fromSubmissions, filers);
    expect(added.map((c) => c.cik)).toEqual([OWNER]);
    expect(added[0]?.first_filing_date).toBeNull();
  });
});
