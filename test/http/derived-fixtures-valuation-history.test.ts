/**
 * /securities/{ticker}/valuation/history and /stocks/{symbol}/valuation-history over the real
 * fixtures (STOCKD_FIXTURES): every month end's close × the share count filed by then, P/E
 * from the TTM known then, currencies. Expected values come from the raw files
 * (valuation-market.ts), as in derived-fixtures-valuation.test.ts.
 */

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { FIXTURES } from "../helpers/env.ts";
import type { CsvPrice, Json } from "../helpers/raw-sources.ts";
import { readPriceCsv } from "../helpers/raw-sources.ts";
import { serverOverImport } from "../helpers/server.ts";
import { monthEnds, relDiff, splitFactorAfter } from "./derived-facts.ts";
import {
  balanceSheetSharesAt,
  expectRel,
  isCurrentAt,
  market,
  netIncomeKnownAt,
  root,
  sharesAt,
  ttmDilutedEps,
} from "./valuation-market.ts";

describe.skipIf(!FIXTURES)("valuation on real data (STOCKD_FIXTURES)", () => {
  const fixtures = serverOverImport(root);
  const get = <T = Json>(path: string) => fixtures.get<T>(path);

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
});
