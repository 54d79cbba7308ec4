/**
 * Issue 19 on the real fixtures (STOCKD_FIXTURES): P/E per share (close ÷ TTM diluted EPS on
 * the closes' basis) for a buyback-heavy and a multi-class filer, the basis of the valuation
 * percentiles of companies without earnings, why the market-based yields are null, and what
 * the Alpha Vantage EARNINGS files give. Expected values come from the raw files: closes from
 * prices/<T>.csv, facts from edgar/companyfacts, splits from the "Stock Splits" column of
 * variants/prices-adjusted-with-actions, estimates from estimates/alphavantage_earnings_<T>.json.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { daysBetween } from "../../src/domain/dates.ts";
import { readCurrent, readManifest } from "../../src/snapshot/store.ts";
import { FIXTURES, fixtureSources } from "../helpers/env.ts";
import { type CsvPrice, type Json, readPriceCsv, splitsFromActions } from "../helpers/raw-sources.ts";
import { expectProblem } from "../helpers/responses.ts";
import { serverOverImport } from "../helpers/server.ts";
import { NET_INCOME, rawFactsOf, relDiff } from "./derived-facts.ts";
import { ttmDilutedEps } from "./per-share-facts.ts";

const root = FIXTURES ?? "";

function expectRel(actual: unknown, expected: number, label: string, tolerance = 1e-6): void {
  expect(typeof actual, label).toBe("number");
  const diff = relDiff(actual as number, expected);
  if (diff > tolerance) throw new Error(`${label}: ${actual} vs expected ${expected} (rel ${diff})`);
}

/** The close series of a ticker and the TTM known at its last date (its end and net income). */
function market(ticker: string) {
  const prices = readPriceCsv(join(root, "prices", `${ticker}.csv`));
  const last = prices.at(-1) as CsvPrice;
  const raw = rawFactsOf(root, ticker);
  // SNOW and MRVL have no actions file: no split on record.
  const actions = join(root, "variants", "prices-adjusted-with-actions", `${ticker}.csv`);
  const splits = existsSync(actions) ? splitsFromActions(root, ticker) : [];
  // The latest quarter end whose TTM net income was public by the last close.
  const ends = [...new Set(raw.all("NetIncomeLoss").map((f) => f.end))].sort().reverse();
  const ttm = ends
    .map((end) => ({ end, ttm: raw.ttm(NET_INCOME, end) }))
    .find((t) => t.ttm !== null && t.ttm.known <= last.date);
  if (!ttm?.ttm) throw new Error(`${ticker}: no TTM known on ${last.date}`);
  const eps = ttmDilutedEps(raw, splits, last.date, ttm.end);
  return { prices, last, raw, end: ttm.end, netIncome: ttm.ttm.value, eps };
}

type Valuation = { valuation: Record<string, number | string | null> };
type Points = { metadata: Json; points: Record<string, number | string | null>[] };

describe.skipIf(!FIXTURES)(
  "P/E per share and what is null for a reason, on real data (STOCKD_FIXTURES)",
  () => {
    const fixtures = serverOverImport(root);
    const get = <T = Json>(path: string) => fixtures.get<T>(path);

    for (const [ticker, why] of [
      ["AAPL", "buys back ~3% of its shares a year: today's count is below the TTM's average"],
      ["GOOGL", "three share classes: no cover count, the balance sheets' count of all classes"],
    ] as const) {
      test(`${ticker} P/E = last close / TTM diluted EPS, not market cap / net income (${why})`, async () => {
        const m = market(ticker);
        if (m.eps === null) throw new Error(`${ticker}: no TTM diluted EPS to ${m.end}`);
        const { valuation: v } = await get<Valuation>(`/securities/${ticker}/valuation`);
        expect(v.date).toBe(m.last.date);
        expectRel(v.pe_ratio, m.last.close / m.eps, `${ticker} pe_ratio (TTM ${m.end})`);
        // The test can fail: the old basis differs by more than 1% here.
        const old = (v.market_cap as number) / m.netIncome;
        expect(
          relDiff(v.pe_ratio as number, old),
          `${ticker}: market cap / net income = ${old}`,
        ).toBeGreaterThan(0.01);
        // PEG divides that P/E: pe_ratio / (EPS growth × 100) whenever it is given.
        if (v.peg_ratio !== null) expect((v.pe_ratio as number) / (v.peg_ratio as number)).toBeGreaterThan(0);
      });
    }

    test("AAPL valuation-history points: every pe is the month-end price / today's TTM diluted EPS; percentiles rank P/E", async () => {
      const m = market("AAPL");
      const body = await get<Points>("/stocks/AAPL/valuation-history");
      expect(body.metadata.percentile_basis).toBe("pe");
      expect(body.points.length).toBeGreaterThan(100);
      for (const p of body.points)
        expectRel(p.pe, (p.price as number) / (m.eps as number), `AAPL ${p.date} pe`);
    });

    for (const ticker of ["SNOW", "MRVL"]) {
      test(`${ticker}, without earnings (TTM net income ≤ 0): percentiles rank EV/revenue and say so`, async () => {
        const m = market(ticker);
        expect(m.netIncome, `${ticker} TTM net income to ${m.end}`).toBeLessThanOrEqual(0);
        const body = await get<Points>(`/stocks/${ticker}/valuation-history`);
        expect(body.metadata.percentile_basis).toBe("ev_to_revenue");
        const points = body.points;
        expect(points.every((p) => p.pe === null)).toBe(true);
        const month = (d: string) => Number(d.slice(0, 4)) * 12 + Number(d.slice(5, 7)) - 1;
        let ranked = 0;
        points.forEach((p, i) => {
          const value = p.ev_to_revenue as number | null;
          const window = points
            .slice(0, i + 1)
            .filter((q) => month(q.date as string) > month(p.date as string) - 36 && q.ev_to_revenue !== null)
            .map((q) => q.ev_to_revenue as number);
          const expected =
            value === null || window.length < 12
              ? null
              : window.filter((v) => v <= value).length / window.length;
          if (expected === null) expect(p.valuation_percentile_3y, `${ticker} ${p.date}`).toBeNull();
          else {
            expectRel(p.valuation_percentile_3y, expected, `${ticker} ${p.date} 3y percentile`, 1e-12);
            ranked++;
          }
        });
        expect(ranked).toBeGreaterThan(12);
      });
    }

    for (const ticker of ["AAPL", "NVDA"]) {
      test(`${ticker}: the market-based yields are null because the statements were filed after the last price, and metadata says so`, async () => {
        const m = market(ticker);
        // Its companyfacts run past the price file (to 2025–2026), prices end on 2024-03-08.
        const latestFiled = m.raw
          .all("NetIncomeLoss")
          .map((f) => f.filed)
          .sort()
          .at(-1) as string;
        expect(latestFiled > m.last.date).toBe(true);
        const reason = "statements_filed_after_last_price";
        const metrics = await get<{ metadata: Json; metrics: Json }>(`/stocks/${ticker}/fundamental-metrics`);
        expect(metrics.metadata.null_reasons).toEqual({
          shareholder_yield: reason,
          buyback_yield: reason,
          dividend_yield_ttm: reason,
        });
        expect(metrics.metrics.buyback_yield).toBeNull();
        const capital = await get<{ metadata: Json }>(`/stocks/${ticker}/capital-allocation`);
        expect(capital.metadata.null_reasons).toEqual({ buyback_yield: reason });
        const owner = await get<{ metadata: Json }>(`/stocks/${ticker}/owner-earnings`);
        expect(owner.metadata.null_reasons).toEqual({ owner_earnings_yield: reason });
        // Yet the valuation, at the last price with the statements public then, has a market cap.
        const { valuation } = await get<Valuation>(`/securities/${ticker}/valuation`);
        expect(valuation.market_cap as number).toBeGreaterThan(0);
      });
    }

    test("TSLA: the statements end in 2022, over a year before the last price: statements_not_current", async () => {
      const m = market("TSLA");
      expect(daysBetween(m.end, m.last.date)).toBeGreaterThan(365);
      const owner = await get<{ metadata: Json }>("/stocks/TSLA/owner-earnings");
      expect(owner.metadata.null_reasons).toEqual({ owner_earnings_yield: "statements_not_current" });
    });

    test("Alpha Vantage EARNINGS files: no /estimates document, and the import report says why for each", async () => {
      const dir = join(root, "estimates");
      const files = readdirSync(dir).filter((f) => f.startsWith("alphavantage_earnings_"));
      expect(files.length).toBe(9);
      const dataDir = fixtures.server.dataDir;
      const notes = readManifest(dataDir, readCurrent(dataDir) as string).report.notes;
      const note = notes.find((n) => n.startsWith("estimates: no /estimates document"));
      if (note === undefined) throw new Error(`no estimates note among ${notes.join(" | ")}`);
      const { key } = fixtures.server.newKey(10);
      for (const file of files) {
        const json = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
          symbol: string;
          quarterlyEarnings: Record<string, string>[];
        };
        // The newest quarter with an estimate (an estimate "0" without a surprise percentage is
        // none: RIO's and UL's quarters without an EPS) has a reported EPS: nothing is upcoming.
        const estimated = (q: Record<string, string>) =>
          q.estimatedEPS !== "None" && !(q.estimatedEPS === "0" && q.surprisePercentage === "None");
        const newest = json.quarterlyEarnings
          .filter(estimated)
          .sort((a, b) => (b.fiscalDateEnding as string).localeCompare(a.fiscalDateEnding as string))[0];
        expect(json.quarterlyEarnings.every((q) => q.reportedEPS !== "None")).toBe(true);
        expect(note).toContain(`${json.symbol} (newest estimate ${newest?.fiscalDateEnding}`);
        await expectProblem(await fixtures.server.get(`/stocks/${json.symbol}/estimates`, key), 404, {
          code: "not_found",
        });
      }
    });
  },
);

/**
 * Cloudflare (more-filers/): two share classes tagged by class on the cover page, so its
 * companyfacts (facts without dimensions) carry no share count at all, only the public float.
 * With a price (a close of 200 on 2025-11-03, after its 10-Q of 2025-10-30), its market cap is
 * the close × the diluted average shares of its latest TTM, which count both classes.
 */
describe.skipIf(!FIXTURES)("a multi-class filer without any share count (more-filers/ NET)", () => {
  const facts = "more-filers/edgar/companyfacts/CIK0001477333.json";
  const dir = FIXTURES
    ? fixtureSources("stockd-net-", {
        "edgar/companyfacts/CIK0001477333.json": facts,
        "edgar/company_tickers.json": "more-filers/edgar/company_tickers.json",
        "edgar/company_tickers_exchange.json": "more-filers/edgar/company_tickers_exchange.json",
      })
    : "";
  if (dir !== "") {
    mkdirSync(join(dir, "prices"));
    writeFileSync(
      join(dir, "prices", "NET.csv"),
      "Date,Open,High,Low,Close,Adj Close,Volume\n2025-11-03,200,200,200,200,200,1000000\n",
    );
  }
  const fixtures = dir === "" ? null : serverOverImport(dir);

  test("market cap = close × the diluted average shares of the latest TTM; no P/E for a loss", async () => {
    const raw = JSON.parse(readFileSync(join(root, facts), "utf8")) as {
      facts: Record<
        string,
        Record<string, { units: Record<string, { start?: string; end: string; val: number }[]> }>
      >;
    };
    expect(raw.facts.dei?.EntityCommonStockSharesOutstanding).toBeUndefined();
    expect(raw.facts["us-gaap"]?.CommonStockSharesOutstanding).toBeUndefined();
    // The public float is a dollar amount of the non-affiliates' shares: no count.
    expect(Object.keys(raw.facts.dei?.EntityPublicFloat?.units ?? {})).toEqual(["USD"]);
    // TTM to 2025-09-30: Q4 2024 has no three-month count (the 10-K reports the year), so the
    // mean of the 2025 quarters' three-month diluted counts.
    const diluted = raw.facts["us-gaap"]?.WeightedAverageNumberOfDilutedSharesOutstanding?.units.shares ?? [];
    const quarter = (start: string, end: string) =>
      diluted.find((f) => f.start === start && f.end === end)?.val as number;
    const mean =
      (quarter("2025-01-01", "2025-03-31") +
        quarter("2025-04-01", "2025-06-30") +
        quarter("2025-07-01", "2025-09-30")) /
      3;
    const { valuation } = await (fixtures as NonNullable<typeof fixtures>).get<Valuation>(
      "/securities/NET/valuation",
    );
    expect(valuation.date).toBe("2025-11-03");
    expectRel(valuation.market_cap, 200 * mean, "NET market_cap", 1e-9);
    expect(valuation.pe_ratio).toBeNull();
  });
});
