/**
 * Price files in the layouts that need work to be on the snapshot's basis (split-adjusted, not
 * dividend-adjusted), imported from the real fixtures: Alpha Vantage daily adjusted series
 * (variants/alphavantage/, prices as traded; the ticker from the file's "Meta Data"), and a
 * yfinance file with actions (variants/prices-adjusted-with-actions/KO.csv, adjusted for
 * dividends too). HD also has a Yahoo CSV, which wins over its series. Expected values come
 * from Yahoo's prices/<T>.csv and the files' own dividend amounts.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { addDays } from "../../src/domain/dates.ts";
import { readCurrent, readManifest } from "../../src/snapshot/store.ts";
import { FIXTURES, fixtureSources } from "../helpers/env.ts";
import { type Json, readPriceCsv } from "../helpers/raw-sources.ts";
import { serverOverImport } from "../helpers/server.ts";
import { relDiff } from "./derived-facts.ts";

const root = FIXTURES ?? "";
const series = (t: string) => `variants/alphavantage/alphavantage_daily_adjusted_${t}.json`;

const sources = () =>
  fixtureSources("stockd-alphavantage-", {
    "edgar/company_tickers_exchange.json": "edgar/company_tickers_exchange.json",
    "prices/alphavantage_daily_adjusted_MSFT.json": series("MSFT"),
    "prices/alphavantage_daily_adjusted_HD.json": series("HD"),
    "prices/HD.csv": "prices/HD.csv",
    "prices/KO.csv": "variants/prices-adjusted-with-actions/KO.csv",
  });

describe.skipIf(!FIXTURES)(
  "prices and dividends from Alpha Vantage series and yfinance files (STOCKD_FIXTURES)",
  () => {
    const fixtures = serverOverImport(FIXTURES ? sources() : "");

    test("MSFT around its 2003 split: Yahoo's split-adjusted prices, volumes in post-split shares", async () => {
      const rows = await fixtures.get<Json[]>("/stocks/MSFT/price?start_date=2003-02-10&end_date=2003-02-14");
      const yahoo = readPriceCsv(join(root, "prices", "MSFT.csv")).filter(
        (p) => p.date >= "2003-02-10" && p.date <= "2003-02-14",
      );
      expect(rows.map((r) => r.date)).toEqual(yahoo.map((p) => p.date));
      for (const [i, y] of yahoo.entries()) {
        const r = rows[i] as Json;
        for (const field of ["open", "high", "low", "close"] as const)
          expect(Math.abs((r[field] as number) - y[field]), `${y.date} ${field}`).toBeLessThan(0.0051);
        expect(r.volume).toBe(y.volume);
      }
    });

    test("MSFT's dividends come from the series: dps_ttm is the year to its last day", async () => {
      const file = JSON.parse(readFileSync(join(root, series("MSFT")), "utf8")) as {
        "Time Series (Daily)": Record<string, Record<string, string>>;
      };
      const days = Object.entries(file["Time Series (Daily)"]).sort(([a], [b]) => a.localeCompare(b));
      const last = days.at(-1)?.[0] as string;
      const ttm = days
        .filter(([d]) => d > addDays(last, -365))
        .reduce((sum, [, v]) => sum + Number(v["7. dividend amount"]), 0);
      expect(ttm).toBeCloseTo(2.66, 10); // 0.62 + 3 × 0.68
      const body = await fixtures.get<{ metadata: Json; dividend: Json }>("/stocks/MSFT/dividend");
      expect(body.metadata.as_of_date).toBe(last);
      expect(relDiff(body.dividend.dps_ttm as number, ttm)).toBeLessThan(1e-12);
      expect(body.dividend.dividend_frequency).toBe("quarterly");
    });

    test("HD's CSV wins over its series, and the report says which file was passed over", async () => {
      const quote = await fixtures.get<{ quote: Json }>("/securities/HD/quote");
      const csv = readPriceCsv(join(root, "prices", "HD.csv"));
      expect(quote.quote.date).toBe(csv.at(-1)?.date); // 2024-03-08; the series ends 2023-07-19
      const dataDir = fixtures.server.dataDir;
      const manifest = readManifest(dataDir, readCurrent(dataDir) as string);
      expect(manifest.report.notes).toContain(
        "prices/alphavantage_daily_adjusted_HD.json: not read; prices/HD.csv holds the prices of HD",
      );
    });

    test("KO from yfinance: Yahoo's closes, not the dividend-adjusted ones; dividends from its Dividends column", async () => {
      const rows = await fixtures.get<Json[]>("/stocks/KO/price?start_date=2015-06-01&end_date=2015-06-05");
      const yahoo = readPriceCsv(join(root, "prices", "KO.csv")).filter(
        (p) => p.date >= "2015-06-01" && p.date <= "2015-06-05",
      );
      expect(rows.map((r) => r.date)).toEqual(yahoo.map((p) => p.date));
      for (const [i, y] of yahoo.entries())
        expect(relDiff((rows[i] as Json).close as number, y.close)).toBeLessThan(1e-5);
      const lines = readFileSync(join(root, "variants/prices-adjusted-with-actions/KO.csv"), "utf8")
        .trim()
        .split("\n")
        .slice(1);
      const days = lines
        .map((l) => l.split(","))
        .map((c) => ({ date: (c[0] as string).slice(0, 10), dividend: Number(c[6]) }));
      const last = days.at(-1)?.date as string;
      const ttm = days.filter((d) => d.date > addDays(last, -365)).reduce((sum, d) => sum + d.dividend, 0);
      const body = await fixtures.get<{ metadata: Json; dividend: Json }>("/stocks/KO/dividend");
      expect(body.metadata.as_of_date).toBe(last);
      expect(relDiff(body.dividend.dps_ttm as number, ttm)).toBeLessThan(1e-12);
    });
  },
);
