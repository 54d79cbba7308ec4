/**
 * The price providers end to end: Yahoo's chart API replayed from the demo's price and
 * dividend files (no fixtures needed), Alpha Vantage from the fixtures' recorded
 * TIME_SERIES_DAILY_ADJUSTED answer. What the mirror's price file gives the importer must
 * equal what the provider's own data says.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  parseAlphaVantageDividends,
  parseAlphaVantagePrices,
} from "../../src/ingest/sources/alphavantage-daily.ts";
import { parseDividends } from "../../src/ingest/sources/dividends.ts";
import { parsePriceFileDividends, parsePrices } from "../../src/ingest/sources/price-files.ts";
import { demoSourceDir } from "../helpers/demo-sources.ts";
import { FIXTURES, tempDir } from "../helpers/env.ts";
import { current, runSync } from "./helpers.ts";
import { ReplayServer } from "./replay.ts";

/** Closes and volumes of two parsed series agree day by day. */
function expectSameSeries(
  actual: { date: string; close: number; volume: number | null }[],
  expected: { date: string; close: number; volume: number | null }[],
) {
  expect(actual.map((r) => r.date)).toEqual(expected.map((r) => r.date));
  for (const [i, row] of actual.entries()) {
    const want = expected[i] as (typeof expected)[number];
    expect(Math.abs(row.close - want.close)).toBeLessThan(1e-5 * want.close);
    expect(Math.abs((row.volume ?? 0) - (want.volume ?? 0))).toBeLessThanOrEqual(1);
  }
}

describe("yahoo (keyless, opt-in)", () => {
  const demo = demoSourceDir();
  let replay: ReplayServer;
  beforeAll(() => {
    replay = new ReplayServer({ root: demo });
  });
  afterAll(() => replay?.stop());

  test("writes a price file whose closes, volumes and dividends are the provider's; a second run asks only for the last days", async () => {
    const dataDir = tempDir("stockd-sync-yahoo-");
    const env = {
      STOCKD_PRICE_PROVIDER: "yahoo",
      STOCKD_YAHOO_URL: replay.url,
      STOCKD_PRICE_REQUESTS_PER_MINUTE: "600",
    };
    const { result, summary } = await runSync(
      replay,
      dataDir,
      ["--tickers", "DWGT", "--form4-since", "2099-01-01"],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(summary?.prices).toMatchObject({ provider: "yahoo", updated: 1, tickers: 1 });
    expect(current(dataDir)).toBe(summary?.snapshot ?? null);
    const file = join(dataDir, "sources", "prices", "DWGT.csv");
    const text = readFileSync(file, "utf8");
    expectSameSeries(
      parsePrices(text, file).rows,
      parsePrices(readFileSync(join(demo, "prices", "DWGT.csv"), "utf8"), "DWGT.csv").rows,
    );
    const dividends = parsePriceFileDividends(text, file, { ticker: "DWGT" }).rows;
    const demoDividends = parseDividends(
      readFileSync(join(demo, "dividends", "DWGT.csv"), "utf8"),
      "DWGT.csv",
      {
        ticker: "DWGT",
      },
    ).rows;
    expect(dividends.length).toBeGreaterThan(10);
    // A dividend declared ahead has no chart event yet.
    const today = new Date().toISOString().slice(0, 10);
    expect(dividends.map((d) => [d.ex_date, d.amount])).toEqual(
      demoDividends.filter((d) => d.ex_date <= today).map((d) => [d.ex_date, d.amount]),
    );

    const from = replay.requests.length;
    const again = await runSync(replay, dataDir, [], env);
    expect(again.result.code, again.result.stderr).toBe(0);
    const asked = replay.requests.slice(from).filter((r) => r.path.startsWith("/v8/finance/chart/"));
    expect(asked.length).toBe(1);
    const lastDay = parsePrices(text, file).rows.at(-1)?.date as string;
    const period1 = Number(asked[0]?.query.get("period1")) * 1000;
    expect(new Date(period1).toISOString().slice(0, 10)).toBe(
      new Date(Date.parse(lastDay) - 10 * 86_400_000).toISOString().slice(0, 10),
    );
    // The same days again: the file is unchanged and nothing is imported.
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(again.summary?.snapshot).toBeNull();
  }, 40_000);
});

describe.skipIf(!FIXTURES)("alpha vantage (official, the user's key)", () => {
  const fixtures = FIXTURES ?? "";
  const recorded = join(fixtures, "variants", "alphavantage", "alphavantage_daily_adjusted_MSFT.json");
  const key = "test-key-never-logged-7f3a";
  let replay: ReplayServer;
  beforeAll(() => {
    replay = new ReplayServer({ root: fixtures, alphaVantage: { MSFT: recorded } });
  });
  afterAll(() => replay?.stop());

  test("its split-adjusted days and dividends reach the price file; the key is in no output", async () => {
    const dataDir = tempDir("stockd-sync-av-");
    const env = {
      STOCKD_PRICE_PROVIDER: "alphavantage",
      STOCKD_ALPHAVANTAGE_URL: replay.url,
      STOCKD_ALPHAVANTAGE_API_KEY: key,
      STOCKD_PRICE_REQUESTS_PER_MINUTE: "600",
      STOCKD_LOG_LEVEL: "debug",
    };
    const { result, summary } = await runSync(
      replay,
      dataDir,
      ["--tickers", "MSFT", "--form4-since", "2099-01-01"],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(summary?.prices).toMatchObject({ provider: "alphavantage", updated: 1 });
    const asked = replay.requests.filter((r) => r.path === "/query");
    expect(asked.map((r) => r.query.get("outputsize"))).toEqual(["full"]);
    expect(asked[0]?.query.get("apikey")).toBe(key);
    expect(result.stdout + result.stderr).not.toContain(key);

    const file = join(dataDir, "sources", "prices", "MSFT.csv");
    const text = readFileSync(file, "utf8");
    const json = readFileSync(recorded, "utf8");
    expectSameSeries(parsePrices(text, file).rows, parseAlphaVantagePrices(json, "MSFT.json").rows);
    expect(
      parsePriceFileDividends(text, file, { ticker: "MSFT" }).rows.map((d) => [d.ex_date, d.amount]),
    ).toEqual(
      parseAlphaVantageDividends(json, "MSFT.json", { ticker: "MSFT" }).rows.map((d) => [
        d.ex_date,
        d.amount,
      ]),
    );
  }, 40_000);

  test("a Note answer (its rate limit) stops the price stage; EDGAR is still imported (exit 3)", async () => {
    const dataDir = tempDir("stockd-sync-av-note-");
    replay.fault = (path) =>
      path === "/query"
        ? new Response(
            '{"Note":"Thank you for using Alpha Vantage! Our standard API rate limit is 25 requests per day."}',
          )
        : null;
    try {
      const { result, summary } = await runSync(
        replay,
        dataDir,
        ["--tickers", "MSFT", "--form4-since", "2099-01-01"],
        {
          STOCKD_PRICE_PROVIDER: "alphavantage",
          STOCKD_ALPHAVANTAGE_URL: replay.url,
          STOCKD_ALPHAVANTAGE_API_KEY: key,
          STOCKD_PRICE_REQUESTS_PER_MINUTE: "600",
        },
      );
      expect(result.code, result.stderr).toBe(3);
      expect(summary?.prices?.updated).toBe(0);
      expect(summary?.snapshot).not.toBeNull();
    } finally {
      replay.fault = null;
    }
  }, 40_000);
});
