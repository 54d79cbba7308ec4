import { describe, expect, test } from "bun:test";
import {
  findColumn,
  forEachCsvRecord,
  normalizeHeader,
  readCsv,
  requireColumn,
} from "../../src/ingest/sources/csv.ts";
import { importErrorOf } from "../helpers/import-error.ts";

describe("readCsv: layout", () => {
  test("header and records with 1-based line numbers", () => {
    const table = readCsv("a,b\n1,2\n3,4\n", "t.csv");
    expect(table.header).toEqual(["a", "b"]);
    expect(table.headerLine).toBe(1);
    expect(table.records).toEqual([
      { line: 2, cells: ["1", "2"] },
      { line: 3, cells: ["3", "4"] },
    ]);
  });

  test("strips a UTF-8 BOM from the first header cell", () => {
    const table = readCsv("\uFEFFDate,Close\n2024-01-02,1\n", "t.csv");
    expect(table.header[0]).toBe("Date");
  });

  test("CRLF line ends leave no \\r in cells, quoted or not", () => {
    const table = readCsv('a,b\r\n1,2\r\n"x",y\r\n', "t.csv");
    expect(table.records.map((r) => r.cells)).toEqual([
      ["1", "2"],
      ["x", "y"],
    ]);
  });

  test("a missing final line break still yields the last record", () => {
    expect(readCsv("a\n1\n2", "t.csv").records.map((r) => r.cells[0])).toEqual(["1", "2"]);
  });

  test("blank lines are skipped but still counted", () => {
    const table = readCsv("\na,b\n\n1,2\r\n\r\n3,4", "t.csv");
    expect(table.headerLine).toBe(2);
    expect(table.records.map((r) => r.line)).toEqual([4, 6]);
  });

  test("empty trailing cells are kept", () => {
    expect(readCsv("a,b,c\n1,,\n", "t.csv").records[0]?.cells).toEqual(["1", "", ""]);
  });

  test("cells are returned as written (no trimming)", () => {
    expect(readCsv("a,b\n 1 , x\n", "t.csv").records[0]?.cells).toEqual([" 1 ", " x"]);
  });
});

describe("readCsv: RFC 4180 quoting", () => {
  test("a quoted cell may hold commas", () => {
    expect(readCsv('n,v\n"Doe, Jane",1\n', "t.csv").records[0]?.cells).toEqual(["Doe, Jane", "1"]);
  });

  test('"" inside a quoted cell is one quote', () => {
    expect(readCsv('n\n"say ""hi"""\n', "t.csv").records[0]?.cells).toEqual(['say "hi"']);
  });

  test("an empty quoted cell and a quoted last cell", () => {
    expect(readCsv('a,b,c\n"",x,"z"\n', "t.csv").records[0]?.cells).toEqual(["", "x", "z"]);
  });

  test("a quoted cell may span lines; later records keep their physical line numbers", () => {
    const table = readCsv('a,b\n"line one\nline two",1\n"x\r\ny\nz",2\n3,4\n', "t.csv");
    expect(table.records).toEqual([
      { line: 2, cells: ["line one\nline two", "1"] },
      { line: 4, cells: ["x\r\ny\nz", "2"] },
      { line: 7, cells: ["3", "4"] },
    ]);
  });

  test("a quoted header, and quotes only on some lines", () => {
    const table = readCsv('"Date","Adj Close"\n2024-01-02,1.5\n"2024-01-03","1,5"\n2024-01-04,2\n', "t.csv");
    expect(table.header).toEqual(["Date", "Adj Close"]);
    expect(table.records.map((r) => r.cells)).toEqual([
      ["2024-01-02", "1.5"],
      ["2024-01-03", "1,5"],
      ["2024-01-04", "2"],
    ]);
  });

  test("a quoted last cell at end of input without a line break", () => {
    expect(readCsv('a,b\n1,"2"', "t.csv").records[0]?.cells).toEqual(["1", "2"]);
  });
});

describe("readCsv: structural errors name file and line", () => {
  test("an unterminated quoted field", () => {
    const error = importErrorOf(() => readCsv('a,b\n1,2\n3,"oops\n5,6\n', "t.csv"));
    expect(error.file).toBe("t.csv");
    expect(error.line).toBe(3);
    expect(error.message).toContain("unterminated");
  });

  test("a character after a closing quote", () => {
    const error = importErrorOf(() => readCsv('a,b\n"x"y,2\n', "t.csv"));
    expect(error.line).toBe(2);
    expect(error.message).toContain("after a closing quote");
  });

  test('a stray " inside an unquoted field', () => {
    const error = importErrorOf(() => readCsv('a,b\n1,x"y\n', "t.csv"));
    expect(error.line).toBe(2);
  });

  test("an empty file (or only blank lines) has no header", () => {
    expect(importErrorOf(() => readCsv("", "t.csv")).line).toBe(1);
    expect(importErrorOf(() => readCsv("\uFEFF\r\n\n", "t.csv")).message).toContain("no header");
  });

  test("a header-only file has no records", () => {
    expect(readCsv("a,b\n", "t.csv").records).toEqual([]);
  });
});

describe("forEachCsvRecord", () => {
  test("streams the header and records in order", () => {
    const seen: string[] = [];
    forEachCsvRecord("h\n1\n\n2\n", "t.csv", (cells, line) => seen.push(`${line}:${cells.join("|")}`));
    expect(seen).toEqual(["1:h", "2:1", "4:2"]);
  });

  test("reads every cell of 200,000 unquoted CRLF rows (speed is measured in bench/, not here)", () => {
    const lines = ["Date,Open,High,Low,Close,Adj Close,Volume"];
    for (let i = 0; i < 200_000; i += 1) lines.push(`2020-01-02,1.5,2.5,1.25,2,1.9,${i}`);
    const text = lines.join("\r\n");
    let cells = 0;
    forEachCsvRecord(text, "big.csv", (row) => {
      cells += row.length;
    });
    expect(cells).toBe(7 * 200_001);
  });
});

describe("header matching", () => {
  test("normalizeHeader folds case, spaces, - and .", () => {
    expect(normalizeHeader(" Adj Close ")).toBe("adj_close");
    expect(normalizeHeader("ex-date")).toBe("ex_date");
    expect(normalizeHeader("No. of Ests")).toBe("no_of_ests");
  });

  test("findColumn returns the first matching column or -1", () => {
    expect(findColumn(["Date", "Dividends"], ["amount", "dividends"])).toBe(1);
    expect(findColumn(["Date"], ["amount"])).toBe(-1);
  });

  test("requireColumn fails at the header line and shows the header", () => {
    const table = readCsv("\nDate,Close\n", "t.csv");
    const error = importErrorOf(() => requireColumn(table, "t.csv", "amount", ["amount"]));
    expect(error.line).toBe(2);
    expect(error.message).toContain("amount");
    expect(error.message).toContain("Date,Close");
  });
});
