/**
 * The price CSV layouts, with the dividend-adjusted yfinance layout put back on the
 * split-adjusted basis: synthetic files worked by hand, and the fixtures'
 * variants/prices-adjusted-with-actions/<T>.csv (yfinance, auto-adjusted) against Yahoo's own
 * closes in prices/<T>.csv (STOCKD_FIXTURES).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  carriesDividends,
  parsePriceFileDividends,
  parsePrices,
} from "../../src/ingest/sources/price-files.ts";
import { FIXTURES } from "../helpers/env.ts";
import { importErrorOf } from "../helpers/import-error.ts";
import { readPriceCsv } from "../helpers/raw-sources.ts";

const YFINANCE = "Date,Open,High,Low,Close,Volume,Dividends,Stock Splits";

describe("price CSV layouts", () => {
  test("Yahoo, Stooq and close-only files give the same rows", () => {
    const yahoo = parsePrices(
      "Date,Open,High,Low,Close,Adj Close,Volume\n2024-01-02,10,11,9,10.5,10.1,100\n",
      "y.csv",
    );
    const stooq = parsePrices("Date,Open,High,Low,Close,Volume\n2024-01-02,10,11,9,10.5,100\n", "s.csv");
    const closeOnly = parsePrices("date,close\n2024-01-02,10.5\n", "c.csv");
    expect(yahoo.rows).toEqual([
      { date: "2024-01-02", open: 10, high: 11, low: 9, close: 10.5, adj_close: 10.1, volume: 100 },
    ]);
    expect(stooq.rows).toEqual([{ ...yahoo.rows[0], adj_close: null } as never]);
    expect(closeOnly.rows.map((r) => r.close)).toEqual([10.5]);
  });

  test("yfinance auto-adjusted prices are put back before each ex-date's dividend adjustment", () => {
    // As traded: 100, then 99 on the ex-date of a 1.00 dividend, then 100. Yahoo multiplies the
    // days before the ex-date by 1 - 1/100, so the file says 99, 99, 100.
    const text = [
      YFINANCE,
      "2024-01-02 00:00:00-05:00,98.01,99.99,97.02,99,1000,0.0,0.0",
      "2024-01-03 00:00:00-05:00,99,100,98,99,1000,1.0,0.0",
      "2024-01-04 00:00:00-05:00,99,101,98,100,1000,0.0,0.0",
    ].join("\n");
    const { rows } = parsePrices(text, "prices/X.csv");
    expect(rows.map((r) => [r.date, r.open, r.high, r.low, r.close, r.adj_close])).toEqual([
      ["2024-01-02", 99, 101, 98, 100, 99],
      ["2024-01-03", 99, 100, 98, 99, 99],
      ["2024-01-04", 99, 101, 98, 100, 100],
    ]);
  });

  test("with an Adj Close column the Close is as given; High under Low beyond rounding and a negative dividend fail at their line", () => {
    const text =
      "Date,Open,High,Low,Close,Adj Close,Volume,Dividends\n2024-01-02,1,1,1,99,98,10,0\n2024-01-03,1,1,1,99,99,10,1\n";
    expect(parsePrices(text, "prices/X.csv").rows.map((r) => r.close)).toEqual([99, 99]);
    const rounded = "Date,High,Low,Close\n1968-02-20,0.16026566,0.16055917,0.16\n";
    expect(parsePrices(rounded, "prices/X.csv").rows[0]?.high).toBe(0.16026566);
    expect(
      importErrorOf(() =>
        parsePrices("Date,High,Low,Close\n2024-01-02,9,10,9.5\n", "prices/X.csv"),
      ).toString(),
    ).toBe("prices/X.csv:2: High 9 is below Low 10");
    const bad = `${YFINANCE}\n2024-01-02,1,1,1,1,10,-0.5,0\n`;
    expect(importErrorOf(() => parsePrices(bad, "prices/X.csv")).toString()).toBe(
      "prices/X.csv:2: Dividends -0.5 is negative",
    );
  });

  test("a row with a dividend cannot be skipped, even when lenient: the prices before it depend on it", () => {
    const text = (dividend: string, volume = "10") =>
      `${YFINANCE}\n2024-01-02,1,1,1,1,10,0.0,0.0\n2024-01-03,1,1,1,1,${volume},${dividend},0.0\n2024-01-04,1,1,1,1,10,0.0,0.0\n`;
    // Without a dividend the bad row is skipped and listed.
    expect(parsePrices(text("0.0", "12.5"), "prices/X.csv", { lenient: true }).skipped).toEqual([
      { line: 3, reason: 'Volume "12.5" is not a whole number' },
    ]);
    for (const [dividend, volume] of [
      ["0.5", "12.5"],
      ["n.a.", "10"],
    ] as const) {
      const error = importErrorOf(() =>
        parsePrices(text(dividend, volume), "prices/X.csv", { lenient: true }),
      );
      expect(error.line).toBe(3);
      expect(error.message).toEndWith("(a row with a dividend cannot be skipped)");
      expect(() =>
        parsePriceFileDividends(text(dividend, volume), "prices/X.csv", { ticker: "X", lenient: true }),
      ).toThrow(error.message);
    }
  });

  test("a dividend on a day without prices still counts: its event, and the prices before it", () => {
    // As traded: 100, then the ex-date of a 1.00 dividend with no price bar, then 99.
    const text = `${YFINANCE}\n2024-01-02,99,99,99,99,10,0.0,0.0\n2024-01-03,,,,,,1.0,0.0\n2024-01-04,99,99,99,99,10,0.0,0.0\n`;
    expect(parsePrices(text, "prices/X.csv").rows.map((r) => [r.date, r.close])).toEqual([
      ["2024-01-02", 100],
      ["2024-01-04", 99],
    ]);
    expect(parsePriceFileDividends(text, "prices/X.csv", { ticker: "X" }).rows.map((r) => r.ex_date)).toEqual(
      ["2024-01-03"],
    );
  });

  test("two ex-dates between two trading days both divide by the same close as traded", () => {
    // As traded: 100, then two dividends of 5 (ex-dates with no price bar), then 50. Yahoo
    // multiplies the first day by (1 - 5/100) twice: the file says 90.25.
    const text = `${YFINANCE}\n2024-01-02,90.25,90.25,90.25,90.25,10,0.0,0.0\n2024-01-03,,,,,,5.0,0.0\n2024-01-04,,,,,,5.0,0.0\n2024-01-05,50,50,50,50,10,0.0,0.0\n`;
    expect(parsePrices(text, "prices/X.csv").rows.map((r) => r.close)).toEqual([100, 50]);
    // Two dividends on one ex-date (a regular and a special one) are one payment of both.
    const same = `${YFINANCE}\n2024-01-02,1,1,1,1,10,0.5,0.0\n2024-01-02,,,,,,0.25,0.0\n`;
    expect(parsePriceFileDividends(same, "prices/X.csv", { ticker: "X" }).rows.map((r) => r.amount)).toEqual([
      0.75,
    ]);
  });

  test("with an Adj Close column a bad row's dividend is skipped and listed once, as a dividend", () => {
    const text =
      "Date,Open,High,Low,Close,Adj Close,Volume,Dividends\n2024-01-02,1,1,1,1,1,10,0\n2024-01-03,1,1,1,1,1,12.5,0.5\n";
    const prices = parsePrices(text, "prices/X.csv", { lenient: true });
    expect(prices.skipped).toEqual([{ line: 3, reason: 'Volume "12.5" is not a whole number' }]);
    const dividends = parsePriceFileDividends(text, "prices/X.csv", { ticker: "X", lenient: true });
    expect(dividends.rows).toEqual([]);
    expect(dividends.skipped).toEqual([
      { line: 3, reason: 'dividend 0.5 left out: Volume "12.5" is not a whole number' },
    ]);
  });

  test("a quoted header is read as the parser reads it; without an adjustment the prices keep every digit", () => {
    const text = `"Date","Open","High","Low","Close","Volume","Dividends","Stock Splits"\n1980-12-12 00:00:00-05:00,0.09883450716733932,0.09926419856856675,0.09883450716733932,0.09883450716733932,469033600,0.0,0.0\n1980-12-15,0.1,0.1,0.1,0.1,1,0.01,0.0\n`;
    expect(carriesDividends("prices/X.csv", text)).toBe(true);
    expect(parsePriceFileDividends(text, "prices/X.csv", { ticker: "X" }).rows.map((r) => r.amount)).toEqual([
      0.01,
    ]);
    const [first, last] = parsePrices(text, "prices/X.csv").rows;
    // The day before the 0.01 dividend of 1980-12-15, as traded: its adjusted close + 0.01
    // (m = A / (A + d)), to 1e-8.
    expect(first?.close).toBe(Math.round((0.09883450716733932 + 0.01) * 1e8) / 1e8);
    expect(last?.close).toBe(0.1);
    expect(parsePrices(text.replace("0.01,0.0", "0.0,0.0"), "prices/X.csv").rows[0]?.close).toBe(
      0.09883450716733932,
    );
  });

  test("the dividend events of a yfinance file: the days with an amount, dated by the trading day", () => {
    const text = `${YFINANCE}\n2024-01-02 00:00:00-05:00,1,1,1,1,10,0.0,0.0\n2024-01-03 00:00:00-05:00,1,1,1,1,10,0.24,0.0\n`;
    expect(carriesDividends("prices/X.csv", text)).toBe(true);
    expect(carriesDividends("prices/X.csv", "Date,Open,High,Low,Close,Adj Close,Volume\n")).toBe(false);
    expect(carriesDividends("prices/X.json", "{")).toBe(true);
    expect(parsePriceFileDividends(text, "prices/X.csv", { ticker: "X" }).rows).toEqual([
      {
        ticker: "X",
        ex_date: "2024-01-03",
        pay_date: null,
        record_date: null,
        declaration_date: null,
        amount: 0.24,
        currency: null,
        split_adjusted: true,
      },
    ]);
  });
});

describe.skipIf(!FIXTURES)("yfinance auto-adjusted files against Yahoo's closes (STOCKD_FIXTURES)", () => {
  for (const ticker of ["AAPL", "KO", "XOM", "MSFT"]) {
    test(`${ticker}: the closes are Yahoo's split-adjusted, not dividend-adjusted, closes`, () => {
      const file = `variants/prices-adjusted-with-actions/${ticker}.csv`;
      const { rows, skipped } = parsePrices(readFileSync(join(FIXTURES ?? "", file), "utf8"), file);
      expect(skipped).toEqual([]);
      const yahoo = new Map(
        readPriceCsv(join(FIXTURES ?? "", "prices", `${ticker}.csv`)).map((p) => [p.date, p]),
      );
      const both = rows.filter((r) => yahoo.has(r.date));
      expect(both.length).toBeGreaterThan(6_000);
      const off = (r: (typeof rows)[number]) => Math.abs(r.close / (yahoo.get(r.date)?.close ?? 0) - 1);
      // Within 0.01% (KO before September 2001 is 0.006% apart: the factor of the ex-date after
      // the four closed days of September 2001), except KO's 2001-09-10 itself, 0.7% apart.
      expect(both.filter((r) => off(r) > 1e-4).map((r) => r.date)).toEqual(
        ticker === "KO" ? ["2001-09-10"] : [],
      );
      // The file's own Close (dividend-adjusted) stays as the adjusted close: 10% and more below in 2015.
      const old = both.find((r) => r.date === "2015-06-01");
      expect((old?.adj_close ?? 0) / (old?.close ?? 1)).toBeLessThan(0.92);
    });
  }
});
