import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  accessionFromFileName,
  type OwnershipFiling,
  ownerTitle,
  parseOwnershipDocument,
  parseSubmissionText,
  type ReportingOwner,
} from "../../src/ingest/sources/form4.ts";
import { selectInsiderTrades } from "../../src/ingest/sources/form4-select.ts";
import { importErrorOf, ownershipXml, parseSynthetic } from "./ownership-xml.ts";

describe("parseOwnershipDocument on synthetic documents", () => {
  test("reads header, owner and transaction fields", () => {
    const filing = parseSynthetic(
      {
        documentType: "4/A",
        dateOfOriginalSubmission: "2024-03-02",
        issuerCik: "12345",
        transactions: [{ date: "2024-03-01", code: "S", shares: "1,000", price: "12.50" }],
      },
      "0000012345-24-000001",
    );
    expect(filing.documentType).toBe("4/A");
    expect(filing.isAmendment).toBe(true);
    expect(filing.dateOfOriginalSubmission).toBe("2024-03-02");
    expect(filing.signatureDate).toBe("2024-03-04");
    expect(filing.issuer).toEqual({ cik: "0000012345", name: "Example Corp", tradingSymbol: "EXMP" });
    expect(filing.accessionNumber).toBe("0000012345-24-000001");
    expect(filing.transactions).toEqual([
      {
        transaction_date: "2024-03-01",
        transaction_code: "S",
        shares: 1000,
        price: 12.5,
        value: 12500,
        owner_name: "Doe Jane",
        owner_title: "Chief Executive Officer",
        acquired_disposed: "D",
        shares_owned_after: 500,
        security_title: "Common Stock",
      },
    ]);
  });

  test("accepts values written as direct text, with whitespace and commas", () => {
    const xml = ownershipXml().replace(
      "<transactionShares><value>100</value></transactionShares>",
      "<transactionShares>\n  2,500.5 \n</transactionShares>",
    );
    const [row] = parseOwnershipDocument(xml, "direct.xml").transactions;
    expect(row?.shares).toBe(2500.5);
    expect(row?.value).toBe(25005);
  });

  test("a leading byte-order mark is accepted", () => {
    const filing = parseOwnershipDocument(`\uFEFF${ownershipXml()}`, "bom.xml");
    expect(filing.transactions).toHaveLength(1);
  });

  test("a price given only as a footnote gives null price and null value", () => {
    const price = '<footnoteId id="F1"/>';
    const filing = parseSynthetic(
      { transactions: [{ date: "2024-03-01", code: "P", shares: "5", price }] },
      null,
    );
    expect(filing.transactions[0]?.price).toBeNull();
    expect(filing.transactions[0]?.value).toBeNull();
  });

  test("value is rounded to cents", () => {
    const spec = { transactions: [{ date: "2024-03-01", code: "S", shares: "9136", price: "159.94" }] };
    expect(parseSynthetic(spec, null).transactions[0]?.value).toBe(1461211.84);
  });

  test("malformed XML is an ImportError naming the file and line", () => {
    const xml =
      '<?xml version="1.0"?>\n<ownershipDocument>\n  <documentType>4</documentType>\n  <issuer>\n</ownershipDocument>\n';
    const error = importErrorOf(() => parseOwnershipDocument(xml, "broken.xml"));
    expect(error.file).toBe("broken.xml");
    expect(error.line).toBe(5);
    expect(error.toString()).toStartWith("broken.xml:5: malformed XML");
  });

  test("a well-formed document of another kind is an ImportError", () => {
    const error = importErrorOf(() => parseOwnershipDocument("<edgarSubmission/>", "other.xml"));
    expect(error.message).toContain("not an SEC ownership document");
  });

  test("a non-numeric amount is an ImportError at the transaction's line", () => {
    const xml = ownershipXml().replace("<value>100</value>", "<value>lots</value>");
    const error = importErrorOf(() => parseOwnershipDocument(xml, "bad-number.xml"));
    const expectedLine = xml.slice(0, xml.indexOf("<nonDerivativeTransaction>")).split("\n").length;
    expect(error.line).toBe(expectedLine);
    expect(error.message).toContain('"lots" is not a number');
  });

  test("a transaction without a date is an ImportError", () => {
    const xml = ownershipXml().replace("<value>2024-03-01</value>", "");
    expect(importErrorOf(() => parseOwnershipDocument(xml, "no-date.xml")).message).toContain(
      "transactionDate",
    );
  });

  test("joint filings join owner names and distinct titles", () => {
    const owners = [
      { cik: "0000000001", name: "Fund LP", relationship: "<isTenPercentOwner>1</isTenPercentOwner>" },
      { cik: "0000000002", name: "Fund GP", relationship: "<isTenPercentOwner>true</isTenPercentOwner>" },
      { cik: "0000000003", name: "Partner A", relationship: "<isDirector>1</isDirector>" },
    ];
    const [row] = parseSynthetic({ owners }, null).transactions;
    expect(row?.owner_name).toBe("Fund LP; Fund GP; Partner A");
    expect(row?.owner_title).toBe("10% Owner; Director");
  });
});

describe("parseSubmissionText: ownership documents inside EDGAR submission text", () => {
  const header = [
    "<SEC-DOCUMENT>0000012345-24-000009.txt : 20240304",
    "<SEC-HEADER>0000012345-24-000009.hdr.sgml : 20240304",
    "<ACCEPTANCE-DATETIME>20240304163012",
    "ACCESSION NUMBER:\t\t0000012345-24-000009",
    "CONFORMED SUBMISSION TYPE:\t4",
    "</SEC-HEADER>",
    "<DOCUMENT>",
    "<TYPE>4",
    "<TEXT>",
    "<XML>",
  ].join("\n");
  const submission = (xml: string) => `${header}\n${xml}</XML>\n</TEXT>\n</DOCUMENT>\n</SEC-DOCUMENT>\n`;

  test("the header's accession number wins over the file name's", () => {
    const [filing] = parseSubmissionText(submission(ownershipXml()), "form4/0000099999-24-000001.txt");
    expect(filing?.accessionNumber).toBe("0000012345-24-000009");
    expect(filing?.transactions).toEqual(parseSynthetic({}, null).transactions);
  });

  test("an error names the line in the submission file, not in its XML block", () => {
    const xml = ownershipXml().replace("<value>100</value>", "<value>lots</value>");
    const text = submission(xml);
    const error = importErrorOf(() => parseSubmissionText(text, "form4/s.txt"));
    expect(error.line).toBe(text.slice(0, text.indexOf("<nonDerivativeTransaction>")).split("\n").length);
    expect(error.message).toContain('"lots" is not a number');
  });

  test("a submission without an ownership document fails by name", () => {
    const text = submission('<?xml version="1.0"?>\n<edgarSubmission/>\n');
    expect(importErrorOf(() => parseSubmissionText(text, "form4/s.txt")).toString()).toBe(
      "form4/s.txt: no <XML> block with an <ownershipDocument>",
    );
  });

  const root = process.env.STOCKD_FIXTURES;
  test.skipIf(!root)("each of the fixtures' SGML files reads as its extracted XML document does", () => {
    const sgml = join(root ?? "", "variants", "sgml");
    const extracted = readdirSync(join(root ?? "", "edgar", "form4"));
    const names = readdirSync(sgml);
    expect(names).toHaveLength(4);
    for (const name of names) {
      const accession = name.replace(".txt", "");
      const xmlName = extracted.find((f) => f.endsWith(`_form4_${accession}.xml`)) as string;
      const fromXml = parseOwnershipDocument(
        readFileSync(join(root ?? "", "edgar", "form4", xmlName), "utf8"),
        xmlName,
      );
      // Two of them are dissemination-feed files named ".nc" upstream: <ACCESSION-NUMBER> tags.
      const filings = parseSubmissionText(readFileSync(join(sgml, name), "utf8"), name);
      expect(filings.map((f) => ({ ...f, file: xmlName }))).toEqual([fromXml]);
      expect(filings[0]?.accessionNumber).toBe(accession);
    }
  });
});

describe("ownerTitle", () => {
  const base: ReportingOwner = {
    cik: null,
    name: "X",
    isDirector: false,
    isOfficer: false,
    isTenPercentOwner: false,
    isOther: false,
    officerTitle: null,
    otherText: null,
  };
  test.each<[Partial<ReportingOwner>, string]>([
    [{ isOfficer: true, officerTitle: "CFO", isDirector: true }, "CFO"],
    [{ isOfficer: false, officerTitle: "CFO", isDirector: true }, "Director"],
    [{ isDirector: true, isTenPercentOwner: true }, "Director"],
    [{ isTenPercentOwner: true, isOther: true }, "10% Owner"],
    [{ isOfficer: true }, "Officer"],
    [{ isOther: true, otherText: "Former Director" }, "Other"],
    [{}, "Other"],
  ])("%o gives %s", (flags, title) => {
    expect(ownerTitle({ ...base, ...flags })).toBe(title);
  });
});

describe("accessionFromFileName", () => {
  test.each([
    ["AAPL_form4_0000320193-22-000061.xml", "0000320193-22-000061"],
    ["some/dir/ABCL_form4_0000899243-20-034355_doc4.xml", "0000899243-20-034355"],
    ["SNOW_form4_2022-12-13.xml", null],
    ["edgar/form4/000032019322000061/wf-form4_165187.xml", "0000320193-22-000061"],
    ["edgar/form4/12345/wf-form4.xml", null],
  ])("%s gives %p", (file, accession) => {
    expect(accessionFromFileName(file)).toBe(accession);
  });
});

// ---------------------------------------------------------------------------------------
// Real EDGAR documents from STOCKD_FIXTURES/edgar/form4 (never copied into the repository).

const FIXTURES = process.env.STOCKD_FIXTURES;
const FORM4_DIR = FIXTURES ? join(FIXTURES, "edgar", "form4") : "";
if (!FIXTURES) console.warn("STOCKD_FIXTURES is not set: skipping the Form 4 tests on real EDGAR files");

function readFixture(name: string): { xml: string; filing: OwnershipFiling } {
  const xml = readFileSync(join(FORM4_DIR, name), "utf8");
  return { xml, filing: parseOwnershipDocument(xml, name) };
}

/** The `<value>` texts of every `<tag>` in the raw XML, in document order. */
function rawValues(xml: string, tag: string): string[] {
  const pattern = new RegExp(`<${tag}>\\s*<value>([^<]*)</value>`, "g");
  return [...xml.matchAll(pattern)].map((match) => match[1] ?? "");
}

describe.skipIf(!FIXTURES)("parseOwnershipDocument on real EDGAR documents", () => {
  test("AAPL Form 4: header and every sale match the raw XML", () => {
    const { xml, filing } = readFixture("AAPL_form4_0000320193-22-000061.xml");
    expect(filing.documentType).toBe("4");
    expect(filing.periodOfReport).toBe("2022-05-04");
    expect(filing.issuer.cik).toBe("0000320193");
    expect(filing.issuer.tradingSymbol).toBe("AAPL");
    expect(filing.accessionNumber).toBe("0000320193-22-000061");
    expect(filing.owners.map((owner) => [owner.name, owner.cik])).toEqual([
      ["Adams Katherine L.", "0001462356"],
    ]);
    // This document has no derivative transactions, so every transactionShares belongs to a row.
    const shares = rawValues(xml, "transactionShares").map(Number);
    const prices = rawValues(xml, "transactionPricePerShare").map(Number);
    expect(shares).toHaveLength(7);
    expect(filing.transactions.map((row) => row.shares)).toEqual(shares);
    expect(filing.transactions.map((row) => row.price)).toEqual(prices);
    for (const row of filing.transactions) {
      expect(row.transaction_code).toBe("S");
      expect(row.owner_title).toBe("SVP, GC and Secretary");
      expect(row.value).toBeCloseTo((row.shares ?? 0) * (row.price ?? 0), 2);
    }
    // First row, read from the file: 9136 shares at 159.94, 468198 held afterwards.
    expect(filing.transactions[0]).toMatchObject({ shares: 9136, price: 159.94, shares_owned_after: 468198 });
  });

  test("ABCL Form 4: the one purchase, and conversions whose price is only a footnote", () => {
    const { filing } = readFixture("ABCL_form4_0000899243-20-034355_doc4.xml");
    const purchases = filing.transactions.filter((row) => row.transaction_code === "P");
    // Read from the file: code P, 3000000 shares at 20.00, 10179880 held afterwards, Thiel is a director.
    expect(purchases).toEqual([
      {
        transaction_date: "2020-12-15",
        transaction_code: "P",
        shares: 3000000,
        price: 20,
        value: 60000000,
        owner_name: "THIEL PETER",
        owner_title: "Director",
        acquired_disposed: "A",
        shares_owned_after: 10179880,
        security_title: "Common Shares",
      },
    ]);
    const first = filing.transactions[0];
    expect(first).toMatchObject({ transaction_code: "C", shares: 3811260, price: null, value: null });
  });

  test("CMMB Form 4: a purchase whose price is only a footnote has null price and value", () => {
    const { xml, filing } = readFixture("CMMB_form4_0001209191-21-021966_doc4.xml");
    expect(xml).toMatch(/<transactionPricePerShare>\s*<footnoteId id="F3"\/>\s*<\/transactionPricePerShare>/);
    expect(filing.transactions[0]).toMatchObject({
      transaction_code: "P",
      shares: 230536,
      price: null,
      value: null,
      owner_title: "10% Owner",
    });
  });

  test("ADGI Form 4: a joint filing by four owners is one row naming all of them", () => {
    const { filing } = readFixture("ADGI_form4_0001209191-21-051298_doc4.xml");
    const trades = filing.transactions.filter((row) => ["P", "S"].includes(row.transaction_code));
    expect(trades).toHaveLength(1);
    expect(trades[0]?.owner_name).toBe("MITHRIL II LP; Mithril II GP LP; Mithril II UGP LLC; THIEL PETER");
    expect(trades[0]?.owner_title).toBe("10% Owner");
  });

  test("TSVT and ARW (schema X0508): true/false flags, sparse relationships, decoded entities", () => {
    const tsvt = readFixture("TSVT_form4_0001562180-25-000280.xml").filing;
    expect(tsvt.owners[0]).toMatchObject({ isOfficer: true, isDirector: false, officerTitle: "See Remarks" });
    const arw = readFixture("ARW_form4_0001127602-25-004598.xml").filing;
    // The file writes `SVP, CLO &amp; Secretary` and only the isOfficer flag.
    expect(arw.transactions[0]?.owner_title).toBe("SVP, CLO & Secretary");
  });

  test("HIPO Form 4: an owner marked only 'other' is titled Other", () => {
    const { filing } = readFixture("HIPO_form4_0000899243-21-031284_doc4.xml");
    expect(filing.owners[0]?.otherText).toBe("Former Director and 10% Owner");
    expect(ownerTitle(filing.owners[0] as ReportingOwner)).toBe("Other");
  });

  test("SNOW Form 3 without an accession number in its name", () => {
    const { filing } = readFixture("SNOW_form3_2020-09-15.xml");
    expect(filing.documentType).toBe("3");
    expect(filing.accessionNumber).toBeNull();
    expect(filing.transactions).toEqual([]);
  });

  test("a file with only A rows gives no insider trades but is counted", () => {
    const { xml, filing } = readFixture("TSVT_form4_0001562180-25-000280.xml");
    expect(xml).toContain("<transactionCode>A</transactionCode>");
    expect(filing.transactions.map((row) => row.transaction_code)).toEqual(["A"]);
    const { rows, report } = selectInsiderTrades([filing]);
    expect(rows).toEqual([]);
    expect(report).toMatchObject({ documentsRead: 1, documentsWithoutTrades: 1 });
  });

  test("every fixture parses, and the selection keeps only P and S, newest first", () => {
    const names = readdirSync(FORM4_DIR).filter((name) => name.endsWith(".xml"));
    const failures: string[] = [];
    const filings: OwnershipFiling[] = [];
    for (const name of names) {
      try {
        filings.push(readFixture(name).filing);
      } catch (error) {
        failures.push(String(error));
      }
    }
    expect(failures, "every file in edgar/form4 is a readable ownership document").toEqual([]);
    const { rows, report } = selectInsiderTrades(filings);
    expect(report.documentsRead).toBe(names.length);
    expect(report.duplicatesSkipped).toBe(0);
    expect(report.documentsWithoutTrades).toBeGreaterThan(0);
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((row) => row.transaction_code))).toEqual(new Set(["P", "S"]));
    const dates = rows.map((row) => row.transaction_date);
    expect(dates).toEqual([...dates].sort().reverse());
  });
});
