/**
 * Alpha Vantage daily adjusted series as price files: small synthetic series for each rule
 * (split basis, dividends, what fails), and the real MSFT and HD files in STOCKD_FIXTURES
 * (variants/alphavantage/) against the split-adjusted Yahoo closes of prices/<T>.csv.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  alphaVantageSymbol,
  parseAlphaVantageDividends,
  parseAlphaVantagePrices,
} from "../../src/ingest/sources/alphavantage-daily.ts";
import { FIXTURES } from "../helpers/env.ts";
import { importErrorOf } from "../helpers/import-error.ts";
import { readPriceCsv } from "../helpers/raw-sources.ts";

type Day = Record<string, string>;

function day(close: number, extra: Partial<Record<"split" | "dividend" | "volume", string>> = {}): Day {
  return {
    "1. open": String(close - 1),
    "2. high": String(close + 1),
    "3. low": String(close - 2),
    "4. close": String(close),
    "5. adjusted close": String(close / 2),
    "6. volume": extra.volume ?? "1000",
    "7. dividend amount": extra.dividend ?? "0.0000",
    "8. split coefficient": extra.split ?? "1.0",
  };
}

const series = (days: Record<string, Day>) =>
  JSON.stringify({ "Meta Data": { "2. Symbol": "XYZ" }, "Time Series (Daily)": days });

describe("Alpha Vantage daily adjusted series", () => {
  // A 2:1 split on 2024-01-04: that day's prices are already post-split.
  const text = series({
    "2024-01-05": day(51),
    "2024-01-04": day(50, { split: "2.0" }),
    "2024-01-03": day(100, { dividend: "0.5000", volume: "300" }),
    "2024-01-02": day(98),
  });

  test("prices before a split are divided by it and volumes multiplied; the adjusted close is kept", () => {
    const { rows, skipped } = parseAlphaVantagePrices(text, "prices/XYZ.json");
    expect(skipped).toEqual([]);
    expect(rows.map((r) => [r.date, r.open, r.high, r.low, r.close, r.adj_close, r.volume])).toEqual([
      ["2024-01-02", 48.5, 49.5, 48, 49, 49, 2000],
      ["2024-01-03", 49.5, 50.5, 49, 50, 50, 600],
      ["2024-01-04", 49, 51, 48, 50, 25, 1000],
      ["2024-01-05", 50, 52, 49, 51, 25.5, 1000],
    ]);
  });

  test("dividends are the days with an amount, on the same split basis", () => {
    const { rows } = parseAlphaVantageDividends(text, "prices/XYZ.json", { ticker: "XYZ" });
    expect(rows).toEqual([
      {
        ticker: "XYZ",
        ex_date: "2024-01-03",
        pay_date: null,
        record_date: null,
        declaration_date: null,
        amount: 0.25,
        currency: null,
        split_adjusted: true,
      },
    ]);
  });

  test("the symbol is read from the first bytes of the file", () => {
    expect(alphaVantageSymbol(text.slice(0, 60))).toBe("XYZ");
    expect(alphaVantageSymbol('{"Time Series (Daily)": {}}')).toBeNull();
  });

  test("a series without split coefficients, an error answer, or no series fails the file", () => {
    const plain = JSON.stringify({
      "Time Series (Daily)": { "2024-01-02": { "1. open": "1", "4. close": "1", "5. volume": "10" } },
    });
    expect(String(importErrorOf(() => parseAlphaVantagePrices(plain, "prices/A.json")))).toBe(
      'prices/A.json: no "8. split coefficient": prices as traded cannot be split-adjusted; use TIME_SERIES_DAILY_ADJUSTED',
    );
    const limited = JSON.stringify({
      Note: "Thank you for using Alpha Vantage! Our standard API call frequency is 5 calls per minute.",
    });
    expect(String(importErrorOf(() => parseAlphaVantagePrices(limited, "prices/B.json")))).toContain(
      "prices/B.json: Alpha Vantage answered instead of a series: Thank you",
    );
    expect(String(importErrorOf(() => parseAlphaVantagePrices("[]", "prices/C.json")))).toBe(
      "prices/C.json: expected a JSON object",
    );
  });

  test("a bad day with a split or a dividend fails the file even when lenient: every earlier price depends on it", () => {
    const bad = series({
      "2024-01-03": day(10),
      "2024-01-02": { ...day(40, { split: "4.0" }), "6. volume": "12.5" },
      "2024-01-01": day(40),
    });
    expect(
      String(importErrorOf(() => parseAlphaVantagePrices(bad, "prices/E.json", { lenient: true }))),
    ).toBe(
      'prices/E.json: Time Series (Daily).2024-01-02: "6. volume" 12.5 is not a whole number (a day with a split or a dividend cannot be skipped)',
    );
  });

  test("a bad day names its date; lenient skips it", () => {
    const bad = series({ "2024-01-03": day(10), "2024-01-02": { ...day(10), "4. close": "0" } });
    expect(String(importErrorOf(() => parseAlphaVantagePrices(bad, "prices/D.json")))).toBe(
      'prices/D.json: Time Series (Daily).2024-01-02: "4. close" must be a positive price',
    );
    const { rows, skipped } = parseAlphaVantagePrices(bad, "prices/D.json", { lenient: true });
    expect(rows.map((r) => r.date)).toEqual(["2024-01-03"]);
    expect(skipped).toEqual([
      { line: null, reason: 'Time Series (Daily).2024-01-02: "4. close" must be a positive price' },
    ]);
  });
});

describe.skipIf(!FIXTURES)("the real Alpha Vantage files (STOCKD_FIXTURES)", () => {
  for (const ticker of ["MSFT", "HD"]) {
    test(`${ticker}: the closes are Yahoo's split-adjusted closes, before and after the split`, () => {
      const file = `variants/alphavantage/alphavantage_daily_adjusted_${ticker}.json`;
      const text = readFileSync(join(FIXTURES ?? "", file), "utf8");
      expect(alphaVantageSymbol(text.slice(0, 4096))).toBe(ticker);
      const { rows, skipped } = parseAlphaVantagePrices(text, file);
      expect(skipped).toEqual([]);
      const yahoo = new Map(
        readPriceCsv(join(FIXTURES ?? "", "prices", `${ticker}.csv`)).map((p) => [p.date, p]),
      );
      const both = rows.filter((r) => yahoo.has(r.date));
      // Alpha Vantage rounds to cents what Yahoo keeps in sixteenths (116.56 for 116.5625 on
      // MSFT's 2000-01-03) and Yahoo writes 24.959999 for 24.96: half a cent apart at most,
      // except on a few days the two vendors disagree (MSFT 2005-04-21: 25.24 against 25.28).
      const apart = both.filter(
        (r) => Math.abs(r.close - (yahoo.get(r.date)?.close ?? 0)) > 0.005 + 1e-6 * r.close,
      );
      expect(both.length).toBeGreaterThan(5_000);
      expect(apart.length / both.length).toBeLessThan(0.005);
      if (ticker === "MSFT") {
        // Before the 2:1 split of 2003-02-18 as much as after it.
        const before = both.filter((r) => r.date < "2003-02-18");
        expect(before.length).toBeGreaterThan(700);
        expect(before.filter((r) => apart.includes(r)).length / before.length).toBeLessThan(0.01);
      } else {
        // Yahoo's HD starts after the 3:2 split of 1999-12-31; "1999-11-01" closed at 76.25 as traded.
        const raw = JSON.parse(text)["Time Series (Daily)"]["1999-11-01"]["4. close"];
        expect(rows[0]?.date).toBe("1999-11-01");
        expect(rows[0]?.close).toBeCloseTo(Number(raw) / 1.5, 7);
      }
    });
  }

  test("MSFT's 2003 2:1 split: the dividend of 2003-02-19 stays 0.08, HD's 1999 dividend is divided by 1.5", () => {
    const read = (t: string) => {
      const file = `variants/alphavantage/alphavantage_daily_adjusted_${t}.json`;
      return parseAlphaVantageDividends(readFileSync(join(FIXTURES ?? "", file), "utf8"), file, { ticker: t })
        .rows;
    };
    const msft = read("MSFT");
    expect(msft[0]).toMatchObject({ ex_date: "2003-02-19", amount: 0.08 });
    expect(msft).toHaveLength(78);
    // "1999-11-30": "7. dividend amount": "0.0600", before the 1.5 split of 1999-12-31.
    expect(read("HD")[0]).toMatchObject({ ex_date: "1999-11-30", amount: 0.04 });
  });
});
