/**
 * A Nasdaq dividend history (amounts as declared, before later splits) imported next to a
 * split-adjusted price file: /stocks/{symbol}/dividend divides each amount by the splits
 * after its ex-date. The sources are a small directory of links to the real fixtures: Apple's
 * companyfacts (its splits are inferred from the share counts), prices/AAPL.csv and
 * variants/dividends/AAPL-nasdaq.json as dividends/AAPL.json. Expected values come from the
 * raw files: amounts from the Nasdaq rows, splits from the "Stock Splits" column of
 * variants/prices-adjusted-with-actions/AAPL.csv, closes from prices/AAPL.csv.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { addDays } from "../../src/domain/dates.ts";
import { FIXTURES, fixtureSources } from "../helpers/env.ts";
import { type CsvPrice, type Json, readPriceCsv, splitsFromActions } from "../helpers/raw-sources.ts";
import { serverOverImport } from "../helpers/server.ts";
import { relDiff, splitFactorAfter, trailingYields } from "./derived-facts.ts";

const root = FIXTURES ?? "";

const sources = () =>
  fixtureSources("stockd-nasdaq-dividends-", {
    "edgar/company_tickers.json": "edgar/company_tickers.json",
    "edgar/company_tickers_exchange.json": "edgar/company_tickers_exchange.json",
    "edgar/companyfacts/CIK0000320193.json": "edgar/companyfacts/CIK0000320193.json",
    "prices/AAPL.csv": "prices/AAPL.csv",
    "dividends/AAPL.json": "variants/dividends/AAPL-nasdaq.json",
  });

describe.skipIf(!FIXTURES)("Nasdaq dividend amounts on the closes' split basis (STOCKD_FIXTURES)", () => {
  const fixtures = serverOverImport(FIXTURES ? sources() : "");

  test("AAPL: the yield range over five years divides the amounts declared before the 2020 4:1 split by 4", async () => {
    type Row = { exOrEffDate: string; type: string; amount: string };
    const file = JSON.parse(readFileSync(join(root, "variants/dividends/AAPL-nasdaq.json"), "utf8")) as {
      data: { dividends: { rows: Row[] } };
    };
    const iso = (us: string) => `${us.slice(6, 10)}-${us.slice(0, 2)}-${us.slice(3, 5)}`;
    const declared = file.data.dividends.rows
      .filter((r) => r.type === "Cash")
      .map((r) => ({ date: iso(r.exOrEffDate), amount: Number(r.amount.replace("$", "")) }));
    const prices = readPriceCsv(join(root, "prices", "AAPL.csv"));
    const last = prices.at(-1) as CsvPrice;
    const splits = splitsFromActions(root, "AAPL");
    expect(splits.filter((s) => s.date >= "2014-01-01")).toEqual([
      { date: "2014-06-09", ratio: 7 },
      { date: "2020-08-31", ratio: 4 },
    ]);
    // As declared: $0.73 to $0.82 a quarter before the split, $0.205 after.
    expect(declared.find((r) => r.date === "2019-05-10")?.amount).toBe(0.77);
    const adjusted = declared.map((r) => ({
      ...r,
      amount: r.amount / splitFactorAfter(splits, r.date, last.date),
    }));
    const body = await fixtures.get<{ dividend: Json }>("/stocks/AAPL/dividend");
    const d = body.dividend;
    const yields = trailingYields(
      prices,
      [...adjusted].sort((a, b) => a.date.localeCompare(b.date)),
      last.date,
    );
    const high = Math.max(...yields);
    expect(relDiff(d.dividend_yield_history_high as number, high)).toBeLessThan(1e-9);
    expect(high).toBeLessThan(0.02); // not the 0.068 of unadjusted amounts
    expect(relDiff(d.dividend_yield_history_low as number, Math.min(...yields))).toBeLessThan(1e-9);
    // After the split, nothing to adjust: the trailing year and the announced next payment.
    const ttm = adjusted.filter((r) => r.date > addDays(last.date, -365) && r.date <= last.date);
    expect(
      relDiff(
        d.dps_ttm as number,
        ttm.reduce((s, r) => s + r.amount, 0),
      ),
    ).toBeLessThan(1e-12);
    expect(d.payment_amount_next).toBe(0.25);
  });
});
