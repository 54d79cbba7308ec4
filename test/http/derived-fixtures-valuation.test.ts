/**
 * /securities/{ticker}/valuation over the real fixtures (STOCKD_FIXTURES), and the share basis
 * of /stocks/{symbol}/growth and /capital-allocation across a split after the last price.
 * Expected values come from the raw files (valuation-market.ts): closes from prices/<T>.csv,
 * share counts from dei:EntityCommonStockSharesOutstanding in edgar/companyfacts/CIK*.json
 * (with their `filed` dates; us-gaap:CommonStockSharesOutstanding for GOOGL, which has no cover
 * count), net income from us-gaap:NetIncomeLoss, and split events from the "Stock Splits"
 * column of variants/prices-adjusted-with-actions/<T>.csv.
 */

import { describe, expect, test } from "bun:test";
import { addYears, daysBetween } from "../../src/domain/dates.ts";
import { FIXTURES } from "../helpers/env.ts";
import type { Json } from "../helpers/raw-sources.ts";
import { splitsFromActions } from "../helpers/raw-sources.ts";
import { serverOverImport } from "../helpers/server.ts";
import { EQUITY, relDiff, splitFactorAfter, totalDebt } from "./derived-facts.ts";
import {
  balanceSheetSharesAt,
  expectRel,
  isCurrentAt,
  type Market,
  market,
  netIncomeKnownAt,
  onPriceBasis,
  root,
  sharesAt,
  ttmDilutedEps,
} from "./valuation-market.ts";

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
