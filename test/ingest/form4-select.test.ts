import { describe, expect, test } from "bun:test";
import { selectInsiderTrades } from "../../src/ingest/sources/form4-select.ts";
import { parseSynthetic } from "./ownership-xml.ts";

const CEO = { cik: "0000000001", name: "Doe Jane" };
const CFO = {
  cik: "0000000002",
  name: "Roe Rick",
  relationship: "<isOfficer>1</isOfficer><officerTitle>CFO</officerTitle>",
};

describe("selectInsiderTrades", () => {
  test("keeps only P and S rows, newest first, and counts documents without any", () => {
    const mixed = parseSynthetic(
      {
        transactions: [
          { date: "2024-03-01", code: "S", shares: "100" },
          { date: "2024-03-01", code: "M", shares: "100" },
          { date: "2024-03-05", code: "P", shares: "7" },
          { date: "2024-03-02", code: "A", shares: "50" },
        ],
      },
      "0000012345-24-000001",
    );
    const grantsOnly = parseSynthetic(
      { transactions: [{ date: "2024-04-01", code: "A", shares: "9" }] },
      "0000012345-24-000002",
    );
    const { rows, report } = selectInsiderTrades([mixed, grantsOnly]);
    expect(rows.map((row) => [row.transaction_date, row.transaction_code])).toEqual([
      ["2024-03-05", "P"],
      ["2024-03-01", "S"],
    ]);
    expect(rows[0]).toMatchObject({
      cik: "0000012345",
      ticker: "EXMP",
      accession_number: "0000012345-24-000001",
    });
    expect(report).toEqual({
      documentsRead: 2,
      duplicatesSkipped: 0,
      documentsWithoutTrades: 1,
      amendmentsApplied: 0,
      amendmentsUnmatched: 0,
    });
  });

  test("a 4/A replaces the rows of its original and leaves other owners' filings alone", () => {
    const original = parseSynthetic(
      { owners: [CEO], transactions: [{ date: "2024-03-01", code: "S", shares: "100" }] },
      "0000012345-24-000001",
    );
    const otherOwner = parseSynthetic(
      { owners: [CFO], transactions: [{ date: "2024-03-01", code: "S", shares: "40" }] },
      "0000012345-24-000002",
    );
    const amendment = parseSynthetic(
      {
        documentType: "4/A",
        owners: [CEO],
        signatureDate: "2024-03-20",
        transactions: [{ date: "2024-03-01", code: "S", shares: "120" }],
      },
      "0000012345-24-000003",
    );
    const { rows, report } = selectInsiderTrades([amendment, original, otherOwner]);
    // Same date and issuer: ties are ordered by accession number.
    expect(rows.map((row) => [row.owner_name, row.shares, row.accession_number])).toEqual([
      ["Roe Rick", 40, "0000012345-24-000002"],
      ["Doe Jane", 120, "0000012345-24-000003"],
    ]);
    expect(report.amendmentsApplied).toBe(1);
    expect(report.amendmentsUnmatched).toBe(0);
  });

  test("dateOfOriginalSubmission picks which of two same-period filings is amended", () => {
    const spec = (shares: string, signatureDate: string) => ({
      signatureDate,
      transactions: [{ date: "2024-03-01", code: "S", shares }],
    });
    const early = parseSynthetic(spec("10", "2024-03-04"), "0000012345-24-000001");
    const late = parseSynthetic(spec("20", "2024-03-10"), "0000012345-24-000002");
    const amendment = parseSynthetic(
      { ...spec("11", "2024-03-15"), documentType: "4/A", dateOfOriginalSubmission: "2024-03-05" },
      "0000012345-24-000003",
    );
    const { rows } = selectInsiderTrades([early, late, amendment]);
    expect(rows.map((row) => row.shares).sort()).toEqual([11, 20]);
  });

  test("a second amendment replaces the first", () => {
    const original = parseSynthetic({ signatureDate: "2024-03-04" }, "0000012345-24-000001");
    const amend = (shares: string, signatureDate: string) => ({
      documentType: "4/A",
      dateOfOriginalSubmission: "2024-03-04",
      signatureDate,
      transactions: [{ date: "2024-03-01", code: "S", shares }],
    });
    const first = parseSynthetic(amend("101", "2024-03-10"), "0000012345-24-000002");
    const second = parseSynthetic(amend("102", "2024-03-20"), "0000012345-24-000003");
    const { rows, report } = selectInsiderTrades([second, original, first]);
    expect(rows.map((row) => row.shares)).toEqual([102]);
    expect(report.amendmentsApplied).toBe(2);
  });

  test("an amendment whose original is missing is kept and counted as unmatched", () => {
    const amendment = parseSynthetic({ documentType: "4/A" }, "0000012345-24-000009");
    const otherPeriod = parseSynthetic({ period: "2024-02-01" }, "0000012345-24-000001");
    const { rows, report } = selectInsiderTrades([otherPeriod, amendment]);
    expect(rows).toHaveLength(2);
    expect(report).toMatchObject({ amendmentsApplied: 0, amendmentsUnmatched: 1 });
  });

  test("the same accession imported twice is stored once", () => {
    const filing = parseSynthetic({}, "0000012345-24-000001");
    const again = { ...filing, file: "copy/EXMP_form4_0000012345-24-000001.xml" };
    const { rows, report } = selectInsiderTrades([filing, again]);
    expect(rows).toHaveLength(1);
    expect(report).toMatchObject({ documentsRead: 2, duplicatesSkipped: 1 });
  });

  test("without accession numbers only identical documents are duplicates", () => {
    const one = parseSynthetic({}, null);
    const same = parseSynthetic({}, null);
    const different = parseSynthetic(
      { transactions: [{ date: "2024-03-02", code: "P", shares: "1" }] },
      null,
    );
    const { rows, report } = selectInsiderTrades([one, same, different]);
    expect(rows).toHaveLength(2);
    expect(report.duplicatesSkipped).toBe(1);
  });

  test("a document without an accession number duplicates the same one with it, in either order", () => {
    const named = parseSynthetic({}, "0000012345-24-000009");
    const unnamed = parseSynthetic({}, null);
    for (const order of [
      [unnamed, named],
      [named, unnamed],
    ]) {
      const { rows, report } = selectInsiderTrades(order);
      expect(rows.map((r) => r.accession_number)).toEqual(["0000012345-24-000009"]);
      expect(report.duplicatesSkipped).toBe(1);
    }
  });
});
