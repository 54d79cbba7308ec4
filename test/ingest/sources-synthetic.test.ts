/**
 * The dividend and calendar parsers (and the value readers) on small synthetic inputs:
 * every accepted layout, every kind of bad record (strict: ImportError with the right
 * line; lenient: skipped and counted). Estimates and growth signals: signals.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { parseCalendar } from "../../src/ingest/sources/calendar.ts";
import { parseDividends, tickerFromFileName } from "../../src/ingest/sources/dividends.ts";
import { readDate, readMoney } from "../../src/ingest/sources/value-readers.ts";
import { importErrorOf } from "../helpers/import-error.ts";

describe("value readers", () => {
  test("readMoney reads Nasdaq money strings", () => {
    const cases: [string, number | null][] = [
      ["$1.23", 1.23],
      ["($0.45)", -0.45],
      ["-$0.45", -0.45],
      ["$-0.45", -0.45],
      ["$1,234.50", 1234.5],
      ["0.5", 0.5],
      ["N/A", null],
      ["", null],
      ["--", null],
      ["None", null],
    ];
    for (const [text, value] of cases) expect(readMoney(text, "eps"), text).toBe(value);
    for (const bad of ["abc", "$1.2.3", "(-$1)", "1,23", "$"]) {
      expect(() => readMoney(bad, "eps"), bad).toThrow(`eps "${bad}" is not a money amount`);
    }
  });

  test("readDate accepts ISO (with a time part) and M/D/YYYY, rejects impossible dates", () => {
    expect(readDate("2024-02-29", "d")).toBe("2024-02-29");
    expect(readDate("2024-02-09 00:00:00-05:00", "d")).toBe("2024-02-09");
    expect(readDate("5/08/2023", "d")).toBe("2023-05-08");
    for (const bad of ["2024-02-30", "2023-02-29", "1900-02-29", "2024-13-01", "2024-1-5", "20240105"]) {
      expect(() => readDate(bad, "d"), bad).toThrow(`d "${bad}"`);
    }
  });

  test("tickerFromFileName", () => {
    expect(tickerFromFileName("dividends/brk-b.csv")).toBe("BRK-B");
    expect(tickerFromFileName("/x/variants/dividends/AAPL-nasdaq.json")).toBe("AAPL");
    expect(tickerFromFileName("C:\\data\\dividends\\KO.csv")).toBe("KO");
    expect(importErrorOf(() => tickerFromFileName("dividends/my file.csv")).message).toContain("my file.csv");
  });
});

describe("dividends CSV", () => {
  test("aliases and optional date columns", () => {
    const text =
      "Ex-Date,Dividend,Payment Date,record_date,declaration_date\r\n2024-05-10,$0.25,2024-05-16,,N/A\r\n";
    expect(parseDividends(text, "dividends/AAPL.csv").rows).toEqual([
      {
        ticker: "AAPL",
        ex_date: "2024-05-10",
        pay_date: "2024-05-16",
        record_date: null,
        declaration_date: null,
        amount: 0.25,
        currency: null,
        split_adjusted: true,
      },
    ]);
    expect(
      parseDividends("Date,Dividends\n2024-01-02,1\n", "x/KO.csv", { ticker: "ko2" }).rows[0]?.ticker,
    ).toBe("ko2");
  });

  test("a bad date, a negative amount, a short row: ImportError naming line, column and value", () => {
    const bad = [
      [
        "date,amount\n2024-01-02,0.5\n2024-02-30,0.5\n",
        3,
        'ex_date "2024-02-30" is not a real calendar date',
      ],
      ["date,amount\n2024-01-02,-0.5\n", 2, 'amount "-0.5" is not a positive amount per share'],
      ["date,amount\n2024-01-02,0\n", 2, 'amount "0"'],
      ["date,amount\n2024-01-02,abc\n", 2, 'amount "abc" is not a money amount'],
      ["date,amount\n2024-01-02,\n", 2, "amount is empty"],
      ["date,amount\n2024-01-02\n", 2, "expected 2 fields"],
    ] as const;
    for (const [text, line, message] of bad) {
      const error = importErrorOf(() => parseDividends(text, "dividends/KO.csv"));
      expect(error.file).toBe("dividends/KO.csv");
      expect(error.line, text).toBe(line);
      expect(error.message, text).toContain(message);
    }
  });

  test("missing required columns fail at line 1, even in lenient mode", () => {
    const error = importErrorOf(() =>
      parseDividends("date,value\n2024-01-02,1\n", "KO.csv", { lenient: true }),
    );
    expect(error.line).toBe(1);
    expect(error.message).toContain("missing required column amount");
  });

  test("lenient mode skips bad rows and lists them", () => {
    const text = "date,amount\n2024-01-02,0.5\n2024-02-30,0.5\n2024-04-01,-1\n2024-07-01,0.5\n";
    const { rows, skipped } = parseDividends(text, "KO.csv", { lenient: true });
    expect(rows.map((r) => r.ex_date)).toEqual(["2024-01-02", "2024-07-01"]);
    expect(skipped.map((s) => s.line)).toEqual([3, 4]);
  });

  test("a duplicate ex-date keeps the last line and lists the earlier one", () => {
    const text = "date,amount\n2024-04-01,0.5\n2024-01-02,0.4\n2024-04-01,0.55\n";
    const { rows, skipped } = parseDividends(text, "KO.csv");
    expect(rows.map((r) => [r.ex_date, r.amount])).toEqual([
      ["2024-01-02", 0.4],
      ["2024-04-01", 0.55],
    ]);
    expect(skipped).toEqual([{ line: 2, reason: "duplicate ex_date 2024-04-01; kept line 4" }]);
  });
});

describe("dividends Nasdaq JSON", () => {
  const response = (rows: unknown) => JSON.stringify({ data: { dividends: { rows } } });
  const row = {
    exOrEffDate: "05/10/2024",
    type: "Cash",
    amount: "$0.25",
    paymentDate: "N/A",
    currency: "USD",
  };

  test("non-cash rows are listed in skipped; rows: null is no dividends", () => {
    const { rows, skipped } = parseDividends(response([row, { ...row, type: "Stock" }]), "AAPL.json");
    expect(rows.length).toBe(1);
    expect(skipped[0]?.reason).toContain('type "Stock"');
    expect(parseDividends(response(null), "AAPL.json").rows).toEqual([]);
  });

  test("a bad record names its position; a wrong shape fails the file", () => {
    const error = importErrorOf(() =>
      parseDividends(response([row, { ...row, amount: "$-1" }]), "AAPL.json"),
    );
    expect(error.line).toBeNull();
    expect(error.message).toBe('data.dividends.rows[1]: amount "$-1" is not a positive amount per share');
    expect(importErrorOf(() => parseDividends('{"data":{}}', "AAPL.json")).message).toContain("not a Nasdaq");
    expect(importErrorOf(() => parseDividends("{oops", "AAPL.json")).message).toContain("not valid JSON");
  });
});

describe("calendar", () => {
  const csv =
    "ticker,earning_date,earning_time,eps_forecast,eps_actual,no_of_estimates,cik\n" +
    "msft,2024-07-30,amc,2.93,2.95,12,789019\n" +
    "KO,2024-07-23,bmo,($0.10),N/A,,\n" +
    "XOM,2024-08-02,,,,,\n";

  test("plain CSV: normalised times, money, surprise and CIK", () => {
    const { rows } = parseCalendar(csv, "calendar/mine.csv");
    expect(rows[0]).toEqual({
      ticker: "MSFT",
      cik: "0000789019",
      earning_date: "2024-07-30",
      earning_time: "after-hours",
      eps_forecast: 2.93,
      eps_actual: 2.95,
      eps_surprise: 0.02,
      no_of_estimates: 12,
      fiscal_quarter_ending: null,
      currency: null,
    });
    expect(rows[1]).toMatchObject({ earning_time: "pre-market", eps_forecast: -0.1, eps_surprise: null });
    expect(rows[2]).toMatchObject({
      earning_time: "not-supplied",
      eps_forecast: null,
      no_of_estimates: null,
    });
  });

  test("Alpha Vantage calendar CSV", () => {
    const text =
      "symbol,name,reportDate,fiscalDateEnding,estimate,currency\nA,Agilent,2023-05-22,2023-04-30,1.26,USD\n";
    expect(parseCalendar(text, "c.csv").rows[0]).toMatchObject({
      ticker: "A",
      fiscal_quarter_ending: "2023-04",
    });
  });

  test("bad values and missing columns", () => {
    const bad = csv.replace("2.93", "abc").replace("bmo", "lunch");
    expect(importErrorOf(() => parseCalendar(bad, "c.csv"))).toMatchObject({
      line: 2,
      message: 'eps_forecast "abc" is not a money amount',
    });
    const lenient = parseCalendar(bad, "c.csv", { lenient: true });
    expect([lenient.rows.length, lenient.skipped.map((s) => s.line)]).toEqual([1, [2, 3]]);
    expect(lenient.skipped[1]?.reason).toBe('earning_time "lunch" is not a known earnings time');
    const noDate = importErrorOf(() => parseCalendar("ticker,eps_forecast\nA,1\n", "c.csv"));
    expect([noDate.line, noDate.message.startsWith("missing required column earning_date")]).toEqual([
      1,
      true,
    ]);
  });

  test("Nasdaq JSON: day from asOf, else from the file name; a bad row names its index", () => {
    const nasdaq = (asOf: string | null, rows: unknown[]) => JSON.stringify({ data: { asOf, rows } });
    const row = {
      symbol: "ABC",
      time: "time-after-hours",
      epsForecast: "$1.00",
      eps: "$1.10",
      noOfEsts: "3",
    };
    const [first] = parseCalendar(nasdaq("Fri, Jul 12, 2024", [row]), "cal.json").rows;
    expect(first).toMatchObject({ earning_date: "2024-07-12", eps_actual: 1.1, eps_surprise: 0.1 });
    expect(parseCalendar(nasdaq(null, [row]), "earnings_2024-07-15.json").rows[0]?.earning_date).toBe(
      "2024-07-15",
    );
    expect(importErrorOf(() => parseCalendar(nasdaq(null, [row]), "cal.json")).message).toContain(
      "cannot tell the day",
    );
    const badRow = { ...row, fiscalQuarterEnding: "Foo/2024" };
    expect(importErrorOf(() => parseCalendar(nasdaq("Jul 12, 2024", [row, badRow]), "c.json")).message).toBe(
      'data.rows[1]: fiscalQuarterEnding "Foo/2024" is not a fiscal quarter end',
    );
  });
});
