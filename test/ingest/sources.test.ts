/**
 * The non-SEC source parsers on the real files in STOCKD_FIXTURES (skipped with a notice
 * when unset). Expected values are read from the raw files here, or quoted with the file
 * and line they come from.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCalendar } from "../../src/ingest/sources/calendar.ts";
import { parseDividends } from "../../src/ingest/sources/dividends.ts";
import { type EarningsHistory, parseAlphaVantageEarnings } from "../../src/ingest/sources/estimates.ts";
import type { CalendarRow } from "../../src/snapshot/documents.ts";

const FIXTURES = process.env.STOCKD_FIXTURES;
if (!FIXTURES) console.warn("STOCKD_FIXTURES is unset: skipping the real-file source parser tests");

const read = (path: string) => readFileSync(join(FIXTURES ?? "", path), "utf8");
const filesIn = (dir: string) => readdirSync(join(FIXTURES ?? "", dir)).map((name) => `${dir}/${name}`);

function calendarRow(rows: CalendarRow[], ticker: string): CalendarRow {
  const row = rows.find((r) => r.ticker === ticker);
  if (row === undefined) throw new Error(`expected a calendar row for ${ticker}`);
  return row;
}

function history(file: string): EarningsHistory {
  const result = parseAlphaVantageEarnings(read(file), file);
  expect(result.skipped).toEqual([]);
  const first = result.rows[0];
  if (first === undefined) throw new Error(`expected one history from ${file}`);
  return first;
}

describe.skipIf(!FIXTURES)("dividends on the real files", () => {
  test("every dividends/*.csv parses strictly, one row per data line, ascending ex-dates", () => {
    for (const file of filesIn("dividends")) {
      const text = read(file);
      const dataLines = text.split("\n").filter((l) => l.trim() !== "").length - 1;
      const { rows, skipped } = parseDividends(text, file);
      expect(skipped, `${file} has nothing to skip`).toEqual([]);
      expect(rows.length, `${file} rows`).toBe(dataLines);
      const dates = rows.map((r) => r.ex_date);
      expect(dates, `${file} sorted`).toEqual([...dates].sort());
    }
  });

  test("KO's first row is the file's second line (dividends/KO.csv:2 is 2006-09-13,0.155)", () => {
    const [date, amount] = (read("dividends/KO.csv").split("\n")[1] ?? "").split(",");
    expect(date).toBe("2006-09-13");
    const { rows } = parseDividends(read("dividends/KO.csv"), "dividends/KO.csv");
    expect(rows[0]).toEqual({
      ticker: "KO",
      ex_date: "2006-09-13",
      pay_date: null,
      record_date: null,
      declaration_date: null,
      amount: Number(amount),
      currency: null,
      split_adjusted: true,
    });
  });

  test("the Nasdaq AAPL dividend history (JSON) gives pay, record and declaration dates", () => {
    const file = "variants/dividends/AAPL-nasdaq.json";
    const raw = JSON.parse(read(file)).data.dividends.rows as Record<string, string>[];
    const { rows, skipped } = parseDividends(read(file), file);
    expect(skipped).toEqual([]);
    expect(rows.length).toBe(raw.length);
    // raw first row: exOrEffDate 05/10/2024, $0.25, declared 05/02, record 05/13, paid 05/16/2024
    expect(rows.at(-1)).toEqual({
      ticker: "AAPL",
      ex_date: "2024-05-10",
      pay_date: "2024-05-16",
      record_date: "2024-05-13",
      declaration_date: "2024-05-02",
      amount: 0.25,
      currency: "USD",
      split_adjusted: false,
    });
    // raw last row: 11/21/1988, $0.10, declarationDate and paymentDate "N/A"
    expect(rows[0]).toMatchObject({
      ex_date: "1988-11-21",
      amount: 0.1,
      pay_date: null,
      declaration_date: null,
    });
  });
});

describe.skipIf(!FIXTURES)("earnings calendar on the real files", () => {
  test("each Nasdaq response gives one row per raw row, dated by asOf", () => {
    for (const [file, day] of [
      ["calendar/nasdaq-earnings_2024-07-01.json", "2024-07-01"],
      ["calendar/nasdaq-earnings_2024-07-02.json", "2024-07-02"],
      ["calendar/nasdaq-earnings_2024-07-03.json", "2024-07-03"],
    ] as const) {
      const raw = JSON.parse(read(file)).data.rows as unknown[];
      const { rows, skipped } = parseCalendar(read(file), file);
      expect(skipped).toEqual([]);
      expect(rows.length, file).toBe(raw.length);
      expect(new Set(rows.map((r) => r.earning_date)), file).toEqual(new Set([day]));
    }
  });

  test("MSM on 2024-07-02: epsForecast $1.33, time-pre-market, 8 estimates, May/2024", () => {
    const file = "calendar/nasdaq-earnings_2024-07-02.json";
    expect(calendarRow(parseCalendar(read(file), file).rows, "MSM")).toEqual({
      ticker: "MSM",
      cik: null,
      earning_date: "2024-07-02",
      earning_time: "pre-market",
      eps_forecast: 1.33,
      eps_actual: null,
      eps_surprise: null,
      no_of_estimates: 8,
      fiscal_quarter_ending: "2024-05",
      currency: null,
    });
  });

  test('DDD on 2024-07-01: epsForecast "($0.11)" is -0.11; GTI\'s empty forecast is null', () => {
    const file = "calendar/nasdaq-earnings_2024-07-01.json";
    const { rows } = parseCalendar(read(file), file);
    expect(calendarRow(rows, "DDD")).toMatchObject({ eps_forecast: -0.11, no_of_estimates: 2 });
    expect(calendarRow(rows, "GTI")).toMatchObject({ eps_forecast: null, earning_time: "not-supplied" });
    expect(calendarRow(rows, "PROC").no_of_estimates).toBeNull(); // noOfEsts "N/A"
  });

  test("the Alpha Vantage calendar (JSON array) keeps every row and its currency", () => {
    const file = "variants/calendar/alphavantage_earnings_calendar_2023-03-29.json";
    const raw = JSON.parse(read(file)) as unknown[];
    const { rows, skipped } = parseCalendar(read(file), file);
    expect(skipped).toEqual([]);
    expect(rows.length).toBe(raw.length);
    // first raw object: A, reportDate 2023-05-22, fiscalDateEnding 2023-04-30, estimate "1.26", USD
    expect(rows[0]).toMatchObject({
      ticker: "A",
      earning_date: "2023-05-22",
      eps_forecast: 1.26,
      fiscal_quarter_ending: "2023-04",
      currency: "USD",
    });
  });

  test("the ticker-keyed calendar gives the next date and the last report date", () => {
    const file = "variants/calendar/mktmusings_earnings_calendar_2026-08-22.json";
    const raw = JSON.parse(read(file)).AAPL as { date: string; period_end: string; last_report_date: string };
    const aapl = parseCalendar(read(file), file).rows.filter((r) => r.ticker === "AAPL");
    expect(aapl.map((r) => [r.earning_date, r.fiscal_quarter_ending])).toEqual([
      [raw.date, raw.period_end.slice(0, 7)],
      [raw.last_report_date, null],
    ]);
  });
});

describe.skipIf(!FIXTURES)("Alpha Vantage EARNINGS on the real files", () => {
  test("every estimates/*.json parses strictly with all periods", () => {
    for (const file of filesIn("estimates")) {
      const raw = JSON.parse(read(file));
      const h = history(file);
      expect(h.ticker).toBe(raw.symbol);
      expect(h.annual.length, file).toBe(raw.annualEarnings.length);
      expect(h.quarterly.length, file).toBe(raw.quarterlyEarnings.length);
    }
  });

  test("MSFT fiscal quarter 2023-03-31 (alphavantage_earnings_MSFT.json lines 131-136)", () => {
    const q = history("estimates/alphavantage_earnings_MSFT.json").quarterly.find(
      (p) => p.fiscal_date_ending === "2023-03-31",
    );
    expect(q).toEqual({
      fiscal_date_ending: "2023-03-31",
      reported_date: "2023-04-25",
      reported_eps: 2.45,
      estimated_eps: 2.23,
      surprise: 0.22,
      surprise_ratio: 0.098655, // surprisePercentage "9.8655"
      report_time: null,
    });
  });

  test('"None" becomes null and reportTime post-market becomes after-hours (NVO)', () => {
    const nvo = history("estimates/alphavantage_earnings_NVO.json");
    const q2015 = nvo.quarterly.find((p) => p.fiscal_date_ending === "2015-06-30");
    expect(q2015).toMatchObject({ estimated_eps: null, surprise_ratio: null, report_time: "pre-market" });
    expect(nvo.quarterly.find((p) => p.fiscal_date_ending === "2014-12-31")?.report_time).toBe("after-hours");
  });

  test("a semi-annual reporter's quarter without a published EPS (0, 0, no surprise) has none (RIO)", () => {
    // alphavantage_earnings_RIO.json lines 79-86: 2023-09-30, reportedDate 2023-10-16,
    // reportedEPS "0", estimatedEPS "0", surprise "0", surprisePercentage "None".
    const rio = history("estimates/alphavantage_earnings_RIO.json").quarterly;
    expect(rio.find((q) => q.fiscal_date_ending === "2023-09-30")).toEqual({
      fiscal_date_ending: "2023-09-30",
      reported_date: "2023-10-16",
      reported_eps: null,
      estimated_eps: null,
      surprise: null,
      surprise_ratio: null,
      report_time: null,
    });
    // The half-year before it is kept as written (lines 87-94).
    expect(rio.find((q) => q.fiscal_date_ending === "2023-06-30")).toMatchObject({
      reported_date: "2023-07-26",
      reported_eps: 2.75,
      estimated_eps: 2.75,
    });
  });

  test("an estimate of 0 without a surprise percentage is none; a semi-annual reporter's EPS of 0 is none either (UL)", () => {
    const ul = history("estimates/alphavantage_earnings_UL.json").quarterly;
    const at = (end: string) => ul.find((q) => q.fiscal_date_ending === end);
    // 2020-12-31: reportedEPS "2.48", estimatedEPS "0", surprisePercentage "None".
    expect(at("2020-12-31")).toMatchObject({ reported_eps: 2.48, estimated_eps: null, surprise: null });
    // 2022-09-30: reportedEPS "0" against "1.12" (-100%): a quarter UL published no EPS for,
    // as 2023-03-31 ("0" against "0") shows the file has them.
    for (const end of ["2022-09-30", "2023-03-31"])
      expect(at(end), end).toMatchObject({
        reported_eps: null,
        estimated_eps: null,
        surprise: null,
        surprise_ratio: null,
      });
  });

  test("without such quarters an EPS of 0 is a break-even quarter", () => {
    const file = JSON.stringify({
      symbol: "BRKE",
      annualEarnings: [],
      quarterlyEarnings: [
        {
          fiscalDateEnding: "2024-03-31",
          reportedDate: "2024-04-25",
          reportedEPS: "0",
          estimatedEPS: "0.05",
          surprise: "-0.05",
          surprisePercentage: "-100",
        },
        {
          fiscalDateEnding: "2023-12-31",
          reportedDate: "2024-02-01",
          reportedEPS: "0.1",
          estimatedEPS: "0.08",
          surprise: "0.02",
          surprisePercentage: "25",
        },
      ],
    });
    const [h] = parseAlphaVantageEarnings(file, "estimates/BRKE.json").rows;
    expect(h?.quarterly[0]).toMatchObject({ reported_eps: 0, estimated_eps: 0.05, surprise_ratio: -1 });
  });

  test("year-to-date annual entries are marked partial, complete years are not", () => {
    const partialOf = (ticker: string) =>
      history(`estimates/alphavantage_earnings_${ticker}.json`)
        .annual.filter((a) => a.partial)
        .map((a) => a.fiscal_date_ending);
    expect(partialOf("MSFT")).toEqual(["2023-09-30"]); // reportedEPS "0"
    expect(partialOf("NVO")).toEqual(["2024-12-31"]); // Q1-Q3 2024 only
    expect(partialOf("HD")).toEqual(["2023-07-31"]); // fiscal years end in January
    const msft = history("estimates/alphavantage_earnings_MSFT.json").annual;
    expect(msft[1]).toEqual({ fiscal_date_ending: "2023-06-30", reported_eps: 9.81, partial: false });
  });
});
