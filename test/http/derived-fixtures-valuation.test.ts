/**
 * /securities/{ticker}/valuation, /securities/{ticker}/valuation/history and
 * /stocks/{symbol}/valuation-history over the real fixtures (STOCKD_FIXTURES), and the share
 * basis of /stocks/{symbol}/growth and /capital-allocation across a split after the last
 * price. Expected values come from the raw files: closes from prices/<T>.csv, share counts
 * from dei:EntityCommonStockSharesOutstanding in edgar/companyfacts/CIK*.json (with their
 * `filed` dates; us-gaap:CommonStockSharesOutstanding for GOOGL, which has no cover count),
 * net income from us-gaap:NetIncomeLoss, and split events from the "Stock Splits" column of
 * variants/prices-adjusted-with-actions/<T>.csv.
 */

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { addYears, daysBetween } from "../../src/domain/dates.ts";
import { FIXTURES } from "../helpers/env.ts";
import {
  EQUITY,
  type Fact,
  factsOf,
  monthEnds,
  NET_INCOME,
  type RawFacts,
  readPriceCsv,
  relDiff,
  type Split,
  splitFactorAfter,
  splitsFromActions,
  totalDebt,
} from "./derived-facts.ts";
import { type CsvPrice, type Json, serverOverImport } from "./endpoint-helpers.ts";
import { ttmDilutedEps as rawTtmDilutedEps } from "./per-share-facts.ts";

const root = FIXTURES ?? "";

function expectRel(actual: unknown, expected: number, label: string, tolerance = 1e-9): void {
  expect(typeof actual, label).toBe("number");
  const diff = relDiff(actual as number, expected);
  if (diff > tolerance) throw new Error(`${label}: ${actual} vs expected ${expected} (rel ${diff})`);
}

interface Market {
  raw: RawFacts;
  prices: CsvPrice[];
  last: CsvPrice;
  /** Splits up to the last price date: the ones the split-adjusted closes reflect. */
  splits: Split[];
  /** Every split of the actions file, including those after the last price. */
  allSplits: Split[];
}

function market(ticker: string): Market {
  const prices = readPriceCsv(join(root, "prices", `${ticker}.csv`));
  const last = prices.at(-1) as CsvPrice;
  const allSplits = splitsFromActions(root, ticker);
  const splits = allSplits.filter((s) => s.date <= last.date);
  return { raw: factsOf(root, ticker), prices, last, splits, allSplits };
}

/**
 * Shares outstanding on `date` on the closes' basis: the cover-page count with the latest
 * as-of date among those filed on or before `date`, times the splits after its as-of date.
 */
function sharesAt(m: Market, date: string): { shares: number; asOf: string; filed: string } | null {
  const fact = m.raw.sharesKnownAt(date);
  if (fact === null) return null;
  return { shares: fact.val * splitFactorAfter(m.splits, fact.end), asOf: fact.end, filed: fact.filed };
}

/**
 * Shares on the closes' basis of a count reported on the basis of `from`: × the splits in
 * (from, last price], ÷ the splits in (last price, from].
 */
function onPriceBasis(m: Market, shares: number, from: string): number {
  return from <= m.last.date
    ? shares * splitFactorAfter(m.allSplits, from, m.last.date)
    : shares / splitFactorAfter(m.allSplits, m.last.date, from);
}

/**
 * GOOGL's balance-sheet count (us-gaap:CommonStockSharesOutstanding, all classes) known on
 * `date`: the latest balance-sheet date among the facts filed on or before it, as last filed
 * by then. A balance sheet issued after a split states its counts on the new basis, so the
 * count is on the basis of its filing date.
 */
function balanceSheetSharesAt(m: Market, date: string): { shares: number; fact: Fact } | null {
  const known = m.raw.all("CommonStockSharesOutstanding", "shares").filter((f) => f.filed <= date);
  const lastEnd = known
    .map((f) => f.end)
    .sort()
    .at(-1);
  const fact = known
    .filter((f) => f.end === lastEnd)
    .sort((a, b) => a.filed.localeCompare(b.filed))
    .at(-1);
  return fact === undefined ? null : { shares: onPriceBasis(m, fact.val, fact.filed), fact };
}

/**
 * TTM net income known on `date` (docs/methodology.md, "Point in time"): the latest period
 * end whose TTM (or fiscal-year) NetIncomeLoss had all its figures published on or before
 * `date`. Periods are memoised per company.
 */
const ttmCache = new Map<RawFacts, { end: string; value: number; known: string }[]>();
function netIncomeKnownAt(raw: RawFacts, date: string): { end: string; value: number } | null {
  let periods = ttmCache.get(raw);
  if (!periods) {
    const ends = [
      ...new Set(
        raw
          .all("NetIncomeLoss")
          .filter((f) => f.start !== undefined)
          .map((f) => f.end),
      ),
    ];
    periods = ends
      .map((end) => ({ end, ttm: raw.ttm(NET_INCOME, end) }))
      .filter((p) => p.ttm !== null)
      .map((p) => ({ end: p.end, value: p.ttm?.value as number, known: p.ttm?.known as string }))
      .sort((x, y) => y.end.localeCompare(x.end));
    ttmCache.set(raw, periods);
  }
  return periods.find((p) => p.known <= date) ?? null;
}

/**
 * docs/methodology.md, "Point in time": statements whose latest full-year period (a TTM for
 * these quarterly filers) ended more than 365 days before a date are not current there, and no
 * multiple combines them with that date's price.
 */
const isCurrentAt = (ni: { end: string }, date: string) => daysBetween(ni.end, date) <= 365;

/** Diluted EPS of the TTM ending `end` on the closes' basis, from raw facts (per-share-facts.ts). */
const ttmDilutedEps = (m: Market, end: string) => rawTtmDilutedEps(m.raw, m.allSplits, m.last.date, end);

describe.skipIf(!FIXTURES)("valuation on real data (STOCKD_FIXTURES)", () => {
  const fixtures = serverOverImport(root);
  const get = <T = Json>(path: string) => fixtures.get<T>(path);

  type Snapshot = { symbol: string; valuation: Record<string, number | string | null> };

  for (const ticker of ["AAPL", "NVDA", "TSLA"]) {
    test(`${ticker} snapshot: market cap = last close × the latest share count filed by then`, async () => {
      const m = market(ticker);
      const body = await get<Snapshot>(`/securities/${ticker}/valuation`);
      expect(body.symbol).toBe(ticker);
      expect(body.valuation.date).toBe(m.last.date);
      const s = sharesAt(m, m.last.date);
      if (!s) throw new Error(`${ticker}: no share count filed by ${m.last.date}`);
      expect(s.filed <= m.last.date).toBe(true);
      // No split between the share count's date and the last price for any of the three.
      expect(splitFactorAfter(m.splits, s.asOf)).toBe(1);
      expectRel(body.valuation.market_cap, m.last.close * s.shares, `${ticker} market_cap`);
      // P/E per share (issue 19: not market cap / net income): the last close / the diluted
      // EPS of the latest TTM first filed by the last price date, while it is current.
      const ni = netIncomeKnownAt(m.raw, m.last.date);
      if (!ni) throw new Error(`${ticker}: no net income known on ${m.last.date}`);
      if (ni.value > 0 && isCurrentAt(ni, m.last.date)) {
        const eps = ttmDilutedEps(m, ni.end) as number;
        expectRel(body.valuation.pe_ratio, m.last.close / eps, `${ticker} pe_ratio`, 1e-6);
      } else expect(body.valuation.pe_ratio).toBeNull();
      // No dividends/<T>.csv for these three: no dividend data, so no dividend yield.
      expect(body.valuation.dividend_yield).toBeNull();
    });
  }

  test("TSLA's statements end with the TTM to 2022-09-30: at the last price (2024-03-08) only the market cap is given", async () => {
    const m = market("TSLA");
    const ni = netIncomeKnownAt(m.raw, m.last.date);
    expect(ni?.end).toBe("2022-09-30");
    expect(daysBetween(ni?.end as string, m.last.date)).toBeGreaterThan(365);
    const { valuation } = await get<Snapshot>("/securities/TSLA/valuation");
    expect(valuation.market_cap as number).toBeGreaterThan(0);
    for (const field of ["pe_ratio", "ps_ratio", "pb_ratio", "enterprise_value", "ev_to_ebitda", "fcf_yield"])
      expect(valuation[field], field).toBeNull();
    // Market-based yields of the other tables are not computed on that market cap either.
    const owner = await get<{ owner_earnings: Record<string, unknown> }>("/stocks/TSLA/owner-earnings");
    expect(owner.owner_earnings.owner_earnings_yield).toBeNull();
  });

  test("NVDA snapshot ignores the 10:1 split of 2024-06-10, after the last price (2024-03-08)", async () => {
    const m = market("NVDA");
    // The split is in the actions file but after the last close, which is on the old basis.
    const later = splitsFromActions(root, "NVDA").find((s) => s.date > m.last.date);
    expect(later).toEqual({ date: "2024-06-10", ratio: 10 });
    const body = await get<Snapshot>("/securities/NVDA/valuation");
    const fact = m.raw.sharesKnownAt(m.last.date);
    if (!fact) throw new Error("no NVDA share count");
    // prices/NVDA.csv closes at 875.28 on 2024-03-08; the 2024-02 10-K cover says ~2.5e9 shares.
    expect(m.last.close).toBeCloseTo(875.28, 2);
    expect(fact.val).toBeGreaterThan(2.4e9);
    expect(fact.val).toBeLessThan(2.6e9);
    const expected = m.last.close * fact.val; // ≈ 2.19e12
    expectRel(body.valuation.market_cap, expected, "NVDA market_cap");
    expect(body.valuation.market_cap as number).toBeGreaterThan(1e12);
    expect(body.valuation.market_cap as number).toBeLessThan(1e13);
  });

  test("GOOGL snapshot: no cover-page count, so market cap = last close × the balance-sheet count filed by then", async () => {
    const m = market("GOOGL");
    // A multi-class filer: its companyfacts carry no dei:EntityCommonStockSharesOutstanding.
    expect(m.raw.sharesOutstanding()).toEqual([]);
    const s = balanceSheetSharesAt(m, m.last.date);
    if (!s) throw new Error("GOOGL: no balance-sheet count filed by the last price");
    // The 10-K for 2023 (filed 2024-01-31): 12.46e9 shares at 2023-12-31, after the 20:1
    // split of 2022-07-18, so on the closes' basis as filed. Close 135.41 on 2024-03-08.
    expect(s.fact).toMatchObject({ end: "2023-12-31", filed: "2024-01-31" });
    expect(s.shares).toBe(s.fact.val);
    expect(m.last.close).toBeCloseTo(135.41, 2);
    const body = await get<Snapshot>("/securities/GOOGL/valuation");
    expectRel(body.valuation.market_cap, m.last.close * s.shares, "GOOGL market_cap"); // ≈ 1.687e12
    // Not the diluted average shares of 2023 (first filed 2025-02-05, after the price date).
    const diluted = m.raw.annual(
      "WeightedAverageNumberOfDilutedSharesOutstanding",
      "2023-12-31",
      3,
      "shares",
    );
    expect((diluted?.filed as string) > m.last.date).toBe(true);
    expect(
      relDiff(body.valuation.market_cap as number, m.last.close * (diluted?.val as number)),
    ).toBeGreaterThan(1e-3);
  });

  test("GOOGL net debt is net of its marketable securities: debt − cash, cash equivalents and short-term investments", async () => {
    const m = market("GOOGL");
    // The 10-K for 2023 (filed 2024-01-31), the last balance sheet filed by the last price:
    // cash 24.048e9 and marketable securities 86.868e9, reported together as 110.916e9.
    const end = "2023-12-31";
    const cash = m.raw.instant("CashAndCashEquivalentsAtCarryingValue", end) as number;
    const securities = m.raw.instant("MarketableSecuritiesCurrent", end) as number;
    const total = m.raw.instant("CashCashEquivalentsAndShortTermInvestments", end);
    expect(total).toBe(cash + securities);
    const body = await get<Snapshot>("/securities/GOOGL/valuation");
    expectRel(body.valuation.net_debt, totalDebt(m.raw, end) - (total as number), "GOOGL net_debt");
    expect(relDiff(body.valuation.net_debt as number, totalDebt(m.raw, end) - cash)).toBeGreaterThan(1);
  });

  type HistoryRow = { date: string; market_cap: number; pe_ratio: number | null } & Record<string, unknown>;

  async function historyOf(ticker: string): Promise<HistoryRow[]> {
    const body = await get<{ symbol: string; valuation_history: HistoryRow[] }>(
      `/securities/${ticker}/valuation/history`,
    );
    expect(body.symbol).toBe(ticker);
    return body.valuation_history;
  }

  for (const ticker of ["TSLA", "NVDA", "AAPL"]) {
    test(`${ticker} history: every row = month-end close × a share count filed on or before the row`, async () => {
      const m = market(ticker);
      const rows = await historyOf(ticker);
      const ends = monthEnds(m.prices);
      // Rows are the month ends of the price file from the first one with a filed share count.
      const first = ends.findIndex((p) => sharesAt(m, p.date) !== null);
      expect(rows.map((r) => r.date)).toEqual(ends.slice(first).map((p) => p.date));
      const covers = m.raw.sharesOutstanding();
      const newest = sharesAt(m, "9999-12-31")?.shares as number;
      let lookAheadWouldDiffer = 0;
      for (const row of rows) {
        const close = ends.find((p) => p.date === row.date)?.close as number;
        // Some cover-page count filed on or before the row date (split-adjusted to the
        // closes' basis) gives exactly this market cap: nothing filed later was used.
        const used = covers.filter(
          (f) =>
            f.filed <= row.date &&
            relDiff(row.market_cap, close * f.val * splitFactorAfter(m.splits, f.end)) <= 1e-9,
        );
        expect(
          used.length,
          `${ticker} ${row.date}: no count filed by then gives ${row.market_cap}`,
        ).toBeGreaterThan(0);
        if (relDiff(close * newest, row.market_cap) > 1e-6) lookAheadWouldDiffer++;
      }
      // The check can fail: the newest count of all would give another value in many rows.
      expect(lookAheadWouldDiffer).toBeGreaterThan(rows.length / 2);
    });

    test(`${ticker} history: each row uses the latest cover count (by as-of date) filed on or before it`, async () => {
      const m = market(ticker);
      const rows = await historyOf(ticker);
      const ends = monthEnds(m.prices);
      for (const row of rows) {
        const close = ends.find((p) => p.date === row.date)?.close as number;
        const s = sharesAt(m, row.date);
        if (!s) throw new Error(`${ticker} ${row.date}: no share count`);
        expectRel(row.market_cap, close * s.shares, `${ticker} ${row.date} market_cap`);
      }
    });

    test(`${ticker} history: a pe_ratio is the close over the diluted EPS of the latest TTM first filed by the row date`, async () => {
      const m = market(ticker);
      const rows = await historyOf(ticker);
      let checked = 0;
      for (const row of rows) {
        if (row.pe_ratio === null) continue;
        const ni = netIncomeKnownAt(m.raw, row.date);
        if (ni === null) throw new Error(`${ticker} ${row.date}: a P/E without any TTM net income filed`);
        expect(ni.value).toBeGreaterThan(0);
        const close = m.prices.find((p) => p.date === row.date)?.close as number;
        const eps = ttmDilutedEps(m, ni.end);
        if (eps === null) continue;
        expectRel(row.pe_ratio, close / eps, `${ticker} ${row.date} pe_ratio (TTM ${ni.end})`, 1e-6);
        checked++;
      }
      expect(checked).toBeGreaterThan(12);
    });

    test(`${ticker} history: pe_ratio is null only when no positive, current TTM net income was filed by then`, async () => {
      const m = market(ticker);
      for (const row of await historyOf(ticker)) {
        const ni = netIncomeKnownAt(m.raw, row.date);
        if (ni === null || ni.value <= 0 || !isCurrentAt(ni, row.date))
          expect(row.pe_ratio, `${ticker} ${row.date}`).toBeNull();
        else expect(row.pe_ratio, `${ticker} ${row.date} (TTM ${ni.end})`).toBeGreaterThan(0);
      }
    });
  }

  test("GOOGL history: every month end from the first balance-sheet count filed = close × that count", async () => {
    const m = market("GOOGL");
    const rows = await historyOf("GOOGL");
    const ends = monthEnds(m.prices);
    const first = ends.findIndex((p) => balanceSheetSharesAt(m, p.date) !== null);
    expect(rows.map((r) => r.date)).toEqual(ends.slice(first).map((p) => p.date));
    expect(rows.length).toBeGreaterThan(90); // 2016-02 … 2024-03
    for (const row of rows) {
      const close = ends.find((p) => p.date === row.date)?.close as number;
      const s = balanceSheetSharesAt(m, row.date) as { shares: number };
      expectRel(row.market_cap, close * s.shares, `GOOGL ${row.date} market_cap`);
    }
    // 2022-06-30, before the split: the Q1 count (2022-03-31, filed 2022-04-27) × 20.
    const june = balanceSheetSharesAt(m, "2022-06-30");
    expect(june?.fact).toMatchObject({ end: "2022-03-31", filed: "2022-04-27" });
    expect(june?.shares).toBe((june?.fact.val as number) * 20);
  });

  test("TSLA rows between a split and the next 10-Q use the previous filing's count, split-adjusted", async () => {
    const m = market("TSLA");
    // Splits on record: 5:1 on 2020-08-31 and 3:1 on 2022-08-25.
    expect(m.splits.filter((s) => s.date >= "2020-01-01")).toEqual([
      { date: "2020-08-31", ratio: 5 },
      { date: "2022-08-25", ratio: 3 },
    ]);
    const rows = (await get<{ valuation_history: HistoryRow[] }>("/securities/TSLA/valuation/history"))
      .valuation_history;
    const row = (date: string) => rows.find((r) => r.date === date) as HistoryRow;
    const close = (date: string) => m.prices.find((p) => p.date === date)?.close as number;
    const covers = m.raw.sharesOutstanding();
    const cover = (asOf: string) => covers.find((f) => f.end === asOf);
    // 2022-09-30: after the 3:1 split, before the Q3 10-Q (filed 2022-10-24, cover as of
    // 2022-10-18, 3,157,752,449 shares). Known then: the Q2 10-Q cover (as of 2022-07-19,
    // filed 2022-07-25, 1,044,490,015 shares), × 3.
    expect(cover("2022-07-19")).toMatchObject({ val: 1_044_490_015, filed: "2022-07-25" });
    expect(cover("2022-10-18")).toMatchObject({ val: 3_157_752_449, filed: "2022-10-24" });
    expectRel(row("2022-09-30").market_cap, close("2022-09-30") * 1_044_490_015 * 3, "TSLA 2022-09-30");
    expect(relDiff(row("2022-09-30").market_cap, close("2022-09-30") * 3_157_752_449)).toBeGreaterThan(1e-3);
    // 2022-10-31: the Q3 cover is now filed; it is already on the post-split basis.
    expectRel(row("2022-10-31").market_cap, close("2022-10-31") * 3_157_752_449, "TSLA 2022-10-31");
    // 2020-09-30: after the 5:1 split, before the Q3 2020 10-Q: the Q2 cover × 5 × 3.
    const q2 = m.raw.sharesKnownAt("2020-09-30");
    expect((q2?.end as string) < "2020-08-31").toBe(true);
    expectRel(
      row("2020-09-30").market_cap,
      close("2020-09-30") * (q2?.val as number) * 15,
      "TSLA 2020-09-30",
    );
  });

  test("TSLA pe_ratio in the month before a 10-Q uses the previous quarter's TTM", async () => {
    const m = market("TSLA");
    const rows = (await get<{ valuation_history: HistoryRow[] }>("/securities/TSLA/valuation/history"))
      .valuation_history;
    const row = rows.find((r) => r.date === "2022-06-30") as HistoryRow;
    // Q2 2022 (ended 2022-06-30) was first filed on 2022-07-25: not known on 2022-06-30.
    expect(m.raw.firstFiled("NetIncomeLoss", "2022-06-30")).toBe("2022-07-25");
    expect(m.raw.firstFiled("NetIncomeLoss", "2022-03-31")).toBe("2022-04-25");
    // TTM to 2022-03-31 = Q2+Q3+Q4 2021 + Q1 2022 of NetIncomeLoss (raw facts) over the
    // quarters' mean diluted count: its EPS, on the closes' basis (after the 3:1 of 2022-08).
    const close = m.prices.find((p) => p.date === "2022-06-30")?.close as number;
    const known = ttmDilutedEps(m, "2022-03-31") as number;
    const future = ttmDilutedEps(m, "2022-06-30") as number;
    expectRel(row.pe_ratio, close / known, "TSLA 2022-06-30 pe_ratio", 1e-6);
    expect(relDiff(close / future, row.pe_ratio as number)).toBeGreaterThan(1e-3);
  });

  type Point = {
    date: string;
    price: number;
    market_cap: number | null;
    pe: number | null;
    valuation_percentile_3y: number | null;
    valuation_percentile_5y: number | null;
    valuation_percentile_10y: number | null;
  };

  test("TSM valuation-history: the points' currency is the ADR closes' (USD), not the statements' (TWD)", async () => {
    const body = await get<{ metadata: Json; points: Point[] }>("/stocks/TSM/valuation-history");
    const closes = readPriceCsv(join(root, "prices", "TSM.csv"));
    expect(body.points.at(-1)?.price).toBe((closes.at(-1) as CsvPrice).close);
    expect(body.metadata.currency).toBe("USD");
  });

  for (const ticker of ["TSLA", "NVDA", "AAPL"]) {
    test(`${ticker} valuation-history points: today's share count on every month-end close`, async () => {
      const m = market(ticker);
      const body = await get<{ metadata: Json; points: Point[] }>(`/stocks/${ticker}/valuation-history`);
      expect(body.metadata).toMatchObject({ symbol: ticker, as_of_date: m.last.date, frequency: "monthly" });
      expect(body.metadata.method as string).toMatch(/not a point-in-time/);
      const ends = monthEnds(m.prices);
      expect(body.points.map((p) => p.date)).toEqual(ends.map((p) => p.date));
      const today = sharesAt(m, m.last.date);
      if (!today) throw new Error("no share count");
      body.points.forEach((p, i) => {
        expect(p.price).toBe(ends[i]?.close as number);
        expectRel(p.market_cap, p.price * today.shares, `${ticker} ${p.date} market_cap`);
      });
    });

    test(`${ticker} percentiles lie in [0, 1], are null without pe or with < 12 values, match the definition`, async () => {
      const { points } = await get<{ points: Point[] }>(`/stocks/${ticker}/valuation-history`);
      const month = (d: string) => Number(d.slice(0, 4)) * 12 + Number(d.slice(5, 7)) - 1;
      // docs/methodology.md: rank = #(non-null pe in the trailing N months, own month
      // included, that are ≤ the point's pe) / #(non-null pe in the window); null when the
      // point's pe is null or the window has fewer than 12 non-null values.
      const rank = (i: number, months: number): number | null => {
        const p = points[i] as Point;
        if (p.pe === null) return null;
        const window = points
          .slice(0, i + 1)
          .filter((q) => month(q.date) > month(p.date) - months && q.pe !== null)
          .map((q) => q.pe as number);
        if (window.length < 12) return null;
        return window.filter((v) => v <= (p.pe as number)).length / window.length;
      };
      let ranked = 0;
      points.forEach((p, i) => {
        for (const [field, months] of [
          ["valuation_percentile_3y", 36],
          ["valuation_percentile_5y", 60],
          ["valuation_percentile_10y", 120],
        ] as const) {
          const v = p[field];
          if (v !== null) {
            expect(v).toBeGreaterThanOrEqual(0);
            expect(v).toBeLessThanOrEqual(1);
            ranked++;
          }
          if (p.pe === null) expect(v, `${p.date} ${field}`).toBeNull();
          const expected = rank(i, months);
          if (expected === null) expect(v, `${p.date} ${field}`).toBeNull();
          else expectRel(v, expected, `${ticker} ${p.date} ${field}`, 1e-12);
        }
      });
      // Points apply the fundamentals of the last price date: none when they are not current.
      const m = market(ticker);
      const today = netIncomeKnownAt(m.raw, m.last.date);
      if (today !== null && isCurrentAt(today, m.last.date)) expect(ranked).toBeGreaterThan(0);
      else expect(points.every((p) => p.pe === null)).toBe(true);
      // One by hand: the last point's 3-year rank over the 36 monthly pe values ending with it.
      const last = points.at(-1) as Point;
      const window = points.slice(-36).map((q) => q.pe);
      if (last.pe !== null && window.every((v) => v !== null)) {
        const below = window.filter((v) => (v as number) <= (last.pe as number)).length;
        expectRel(last.valuation_percentile_3y, below / 36, `${ticker} last 3y percentile`, 1e-12);
      }
    });
  }

  /**
   * NVDA's fiscal year ending near `end` on the closes' basis (2024-03-08: after the 4:1 split
   * of 2021-07-20, before the 10:1 of 2024-06-10): the latest-filed diluted average shares and
   * EPS, each on the basis of its filing date, and the year-end StockholdersEquity.
   */
  function nvdaYear(m: Market, end: string) {
    const shares = m.raw.annual("WeightedAverageNumberOfDilutedSharesOutstanding", end, 20, "shares");
    const eps = m.raw.annual("EarningsPerShareDiluted", end, 20, "USD/shares");
    if (!shares || !eps) throw new Error(`NVDA: no diluted shares or EPS for the year ending near ${end}`);
    const onBasis = onPriceBasis(m, shares.val, shares.filed);
    return {
      raw: shares.val,
      shares: onBasis,
      eps: eps.val / onPriceBasis(m, 1, eps.filed),
      bvps: (m.raw.firstInstant(EQUITY, shares.end) as number) / onBasis,
    };
  }

  test("NVDA growth across the 10:1 split after the last price: every year on the closes' basis", async () => {
    const m = market("NVDA");
    const body = await get<{ metadata: Json; growth: Record<string, number | null> }>("/stocks/NVDA/growth");
    const end = body.metadata.as_of_date as string;
    expect(m.raw.latestAnnualEnd("WeightedAverageNumberOfDilutedSharesOutstanding", "shares")).toBe(end);
    const now = nvdaYear(m, end);
    const y1 = nvdaYear(m, addYears(end, -1));
    const y5 = nvdaYear(m, addYears(end, -5));
    const g = body.growth;
    expectRel(g.share_count_growth_1y, now.shares / y1.shares - 1, "share_count_growth_1y");
    expectRel(g.share_count_growth_5y, (now.shares / y5.shares) ** (1 / 5) - 1, "share_count_growth_5y");
    expectRel(g.eps_growth_1y, now.eps / y1.eps - 1, "eps_growth_1y");
    expectRel(g.eps_cagr_5y, (now.eps / y5.eps) ** (1 / 5) - 1, "eps_cagr_5y");
    expectRel(g.book_value_per_share_cagr_5y, (now.bvps / y5.bvps) ** (1 / 5) - 1, "bvps_cagr_5y");
    // FY2026's 24.5e9 shares (filed 2026) and FY2021's 2.5e9 (filed 2023) are on bases ten
    // times apart: the true five-year change is within ±5% a year, not +57%.
    expect(now.raw / y5.raw).toBeGreaterThan(9);
    expect(Math.abs(g.share_count_growth_5y as number)).toBeLessThan(0.05);
  });

  test("NVDA capital allocation: diluted shares of the latest year on the closes' basis", async () => {
    const m = market("NVDA");
    const body = await get<{ metadata: Json; capital_allocation: Record<string, number | null> }>(
      "/stocks/NVDA/capital-allocation",
    );
    const end = body.metadata.as_of_date as string;
    const now = nvdaYear(m, end);
    const before = nvdaYear(m, addYears(end, -1));
    expectRel(body.capital_allocation.share_count_diluted, now.shares, "share_count_diluted");
    expectRel(
      body.capital_allocation.share_count_change_1y,
      now.shares - before.shares,
      "share_count_change_1y",
    );
  });
});
