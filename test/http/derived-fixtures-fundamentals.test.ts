/**
 * /stocks/{symbol}/fundamental-metrics, /growth, /capital-allocation and /owner-earnings over
 * a snapshot imported from the real fixtures (STOCKD_FIXTURES). Every expected value is
 * recomputed here from the raw SEC companyfacts file (edgar/companyfacts/CIK*.json), by
 * concept and period, with the formulas of docs/methodology.md; never from the service.
 */

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { addYears, daysBetween } from "../../src/domain/dates.ts";
import { FIXTURES } from "../helpers/env.ts";
import { type CsvPrice, type Json, readPriceCsv } from "../helpers/raw-sources.ts";
import { serverOverImport } from "../helpers/server.ts";
import {
  balanceDateYearBefore,
  CAPEX,
  CFO,
  COST_OF_REVENUE,
  EQUITY,
  GROSS_PROFIT,
  NET_INCOME,
  OPERATING_INCOME,
  type RawFacts,
  REVENUE,
  rawFactsOf,
  relDiff,
  totalDebt,
} from "./derived-facts.ts";

const root = FIXTURES ?? "";
const TOLERANCE = 1e-9;

function expectRel(actual: unknown, expected: number, label: string): void {
  expect(typeof actual, label).toBe("number");
  const diff = relDiff(actual as number, expected);
  if (diff > TOLERANCE) throw new Error(`${label}: ${actual} vs expected ${expected} (rel ${diff})`);
}

/** A TTM figure from the raw facts, required to exist. */
function ttmOf(raw: RawFacts, concepts: string[], end: string, what: string): number {
  const t = raw.ttm(concepts, end);
  if (t === null) throw new Error(`no raw TTM ${what} ending ${end}`);
  return t.value;
}

describe.skipIf(!FIXTURES)("derived fundamentals on real data (STOCKD_FIXTURES)", () => {
  const fixtures = serverOverImport(root);
  const get = <T = Json>(path: string) => fixtures.get<T>(path);

  type Metrics = { metadata: Json; metrics: Record<string, number | null> };

  // GOOGL is included as a fourth filer; TSLA's facts end in 2022 (a stale TTM).
  for (const ticker of ["AAPL", "NVDA", "TSLA", "GOOGL"]) {
    test(`${ticker}: fundamental-metrics recomputed from the raw TTM facts`, async () => {
      const raw = rawFactsOf(root, ticker);
      const body = await get<Metrics>(`/stocks/${ticker}/fundamental-metrics`);
      // The latest reported period: the latest end of a us-gaap:NetIncomeLoss duration fact.
      const end = raw.latestPeriodEnd("NetIncomeLoss") as string;
      expect(body.metadata.symbol).toBe(ticker);
      expect(body.metadata.as_of_date).toBe(end);
      expect(body.metadata.period_type).toBe("ttm");
      expect(body.metadata.currency).toBe("USD");
      expect(body.metadata.calculation_version as string).toMatch(/^metrics-/);
      // TTM flows: FY + YTD − YTD a year earlier, concepts per docs/methodology.md.
      const revenue = ttmOf(raw, REVENUE, end, "revenue");
      // Gross profit: GrossProfit, else revenue − cost of revenue (GOOGL reports no GrossProfit).
      const gross =
        raw.ttm(GROSS_PROFIT, end)?.value ?? revenue - ttmOf(raw, COST_OF_REVENUE, end, "CostOfRevenue");
      const operating = ttmOf(raw, OPERATING_INCOME, end, "OperatingIncomeLoss");
      const net = ttmOf(raw, NET_INCOME, end, "NetIncomeLoss");
      const cfo = ttmOf(raw, CFO, end, "NetCashProvidedByUsedInOperatingActivities");
      const capex = ttmOf(raw, CAPEX, end, "PaymentsToAcquirePropertyPlantAndEquipment");
      // Balances: us-gaap:AssetsCurrent, LiabilitiesCurrent, StockholdersEquity at `end`.
      const ca = raw.instant("AssetsCurrent", end) as number;
      const cl = raw.instant("LiabilitiesCurrent", end) as number;
      const equity = raw.firstInstant(EQUITY, end) as number;
      // Equity one year earlier: the balance sheet dated within 20 days of end − 1 year.
      const priorDate = balanceDateYearBefore(raw, "StockholdersEquity", end);
      const priorEquity = priorDate === null ? null : raw.instant("StockholdersEquity", priorDate);
      const m = body.metrics;
      expectRel(m.gross_margin, gross / revenue, `${ticker} gross_margin`);
      expectRel(m.operating_margin, operating / revenue, `${ticker} operating_margin`);
      expectRel(m.net_margin, net / revenue, `${ticker} net_margin`);
      expectRel(m.fcf_margin, (cfo - capex) / revenue, `${ticker} fcf_margin`);
      expectRel(m.current_ratio, ca / cl, `${ticker} current_ratio`);
      // ROE: net income / average of equity at the period end and a year earlier (both > 0).
      expect(priorEquity, `${ticker} equity a year before ${end}`).not.toBeNull();
      if (equity > 0 && (priorEquity as number) > 0)
        expectRel(m.roe, net / ((equity + (priorEquity as number)) / 2), `${ticker} roe`);
      else expect(m.roe).toBeNull();
      expectRel(m.debt_to_equity, totalDebt(raw, end) / equity, `${ticker} debt_to_equity`);
    });
  }

  test("market-based yields are null when the statements were filed after the last price (AAPL)", async () => {
    const raw = rawFactsOf(root, "AAPL");
    const body = await get<Metrics>("/stocks/AAPL/fundamental-metrics");
    const end = body.metadata.as_of_date as string;
    // The TTM period ending `end` was first filed after 2024-03-08, the last row of prices/AAPL.csv.
    expect((raw.firstFiled("NetIncomeLoss", end) as string) > "2024-03-08").toBe(true);
    expect(body.metrics.shareholder_yield).toBeNull();
    expect(body.metrics.buyback_yield).toBeNull();
    expect(body.metrics.dividend_yield_ttm).toBeNull();
  });

  test("AAPL capital-allocation: the latest fiscal year's raw cash-flow facts, as positive amounts", async () => {
    const raw = rawFactsOf(root, "AAPL");
    const body = await get<{ metadata: Json; capital_allocation: Record<string, number | null> }>(
      "/stocks/AAPL/capital-allocation",
    );
    // Latest fiscal year: the latest full-year NetCashProvidedByUsedInOperatingActivities fact.
    const end = raw.latestAnnualEnd("NetCashProvidedByUsedInOperatingActivities") as string;
    expect(body.metadata.as_of_date).toBe(end);
    expect(body.metadata.period_type).toBe("annual");
    const year = (concept: string) => raw.annual(concept, end)?.val as number;
    const capex = year("PaymentsToAcquirePropertyPlantAndEquipment");
    const buybacks = year("PaymentsForRepurchaseOfCommonStock");
    const dividends = year("PaymentsOfDividends");
    const cfo = year("NetCashProvidedByUsedInOperatingActivities");
    const c = body.capital_allocation;
    for (const v of [capex, buybacks, dividends]) expect(v).toBeGreaterThan(0);
    expect(c.capex).toBe(capex);
    expect(c.share_repurchases).toBe(buybacks);
    expect(c.dividends_paid).toBe(dividends);
    expect(c.operating_cash_flow).toBe(cfo);
    expect(c.free_cash_flow).toBe(cfo - capex);
    // Payout: dividends paid / NetIncomeLoss of the year.
    expectRel(c.dividend_payout_ratio, dividends / year("NetIncomeLoss"), "AAPL dividend_payout_ratio");
    // share_count_change_1y: absolute change of WeightedAverageNumberOfDilutedSharesOutstanding
    // (no split in either year, so no basis conversion).
    const shares = (e: string) =>
      raw.annual("WeightedAverageNumberOfDilutedSharesOutstanding", e, 20, "shares");
    const now = shares(end)?.val as number;
    const before = shares(addYears(end, -1))?.val as number;
    expect(c.share_count_diluted).toBe(now);
    expect(c.share_count_change_1y).toBe(now - before);
    // Net new borrowing: long-term debt issued − repaid + the net commercial paper line.
    expect(c.debt_issued).toBe(year("ProceedsFromIssuanceOfLongTermDebt"));
    expect(c.debt_repaid).toBe(year("RepaymentsOfLongTermDebt"));
    expect(c.net_debt_change).toBe(
      year("ProceedsFromIssuanceOfLongTermDebt") -
        year("RepaymentsOfLongTermDebt") +
        year("ProceedsFromRepaymentsOfCommercialPaper"),
    );
    // Prices end 2024-03-08, long before this fiscal year was filed: no market cap to divide by.
    expect(c.buyback_yield).toBeNull();
  });

  test("SNOW: convertible notes issued are debt issued (ProceedsFromConvertibleDebt, its only borrowing line)", async () => {
    const raw = rawFactsOf(root, "SNOW");
    // The 10-K for fiscal 2025 (filed 2025-03-21): 2.3e9 of convertible senior notes issued in
    // the year to 2025-01-31, none in the two years before.
    const year = (end: string) => raw.annual("ProceedsFromConvertibleDebt", end)?.val;
    expect(year("2025-01-31")).toBe(2_300_000_000);
    const body = await get<{ periods: { snapshot_date: string; cash_flow_statement: Json }[] }>(
      "/stocks/SNOW/cash-flow-statement?limit=100",
    );
    for (const end of ["2025-01-31", "2024-01-31", "2023-01-31"]) {
      const period = body.periods.find((p) => p.snapshot_date === end);
      expect(period?.cash_flow_statement.debt_issuance, end).toBe(year(end) as number);
    }
  });

  test("AAPL growth: revenue_growth_1y and revenue_cagr_3y from the raw annual revenue facts", async () => {
    const raw = rawFactsOf(root, "AAPL");
    const body = await get<{ metadata: Json; growth: Record<string, number | null> }>("/stocks/AAPL/growth");
    const concept = "RevenueFromContractWithCustomerExcludingAssessedTax";
    const end = raw.latestAnnualEnd(concept) as string;
    expect(body.metadata.as_of_date).toBe(end);
    expect(body.metadata.period_type).toBe("annual");
    expect(body.metadata.calculation_version as string).toMatch(/^growth-/);
    // Fiscal years end on the last Saturday of September: a year earlier is within 20 days.
    const revenue = (years: number) => raw.annual(concept, addYears(end, -years), 20)?.val as number;
    const [r0, r1, r3, r5] = [revenue(0), revenue(1), revenue(3), revenue(5)];
    expectRel(body.growth.revenue_growth_1y, r0 / r1 - 1, "revenue_growth_1y");
    expectRel(body.growth.revenue_cagr_3y, (r0 / r3) ** (1 / 3) - 1, "revenue_cagr_3y");
    expectRel(body.growth.revenue_cagr_5y, (r0 / r5) ** (1 / 5) - 1, "revenue_cagr_5y");
    // No dividends/AAPL.csv and no growth signals: dividend growth is unknown.
    expect(body.growth.dividend_growth_3y).toBeNull();
    expect(body.growth.dividend_growth_5y).toBeNull();
  });

  for (const ticker of ["AAPL", "NVDA", "TSLA"]) {
    test(`${ticker} owner-earnings: CFO − capex of the period named in metadata`, async () => {
      const raw = rawFactsOf(root, ticker);
      const body = await get<{
        symbol: string;
        metadata: Json;
        owner_earnings: Record<string, number | null>;
      }>(`/stocks/${ticker}/owner-earnings`);
      expect(body.symbol).toBe(ticker);
      expect(body.metadata.period_type).toBe("ttm");
      const end = body.metadata.as_of_date as string;
      expect(end).toBe(raw.latestPeriodEnd("NetIncomeLoss") as string);
      const cfo = ttmOf(raw, CFO, end, "CFO");
      const capex = ttmOf(raw, CAPEX, end, "capex");
      const o = body.owner_earnings;
      expect(o.maintenance_capex_estimate).toBe(capex);
      expect(o.owner_earnings_estimated).toBe(cfo - capex);
      // No imported owner-earnings source for real filers.
      expect(o.owner_earnings_source).toBeNull();
    });
  }

  test("TSLA: statements that are no longer current at the last price give no market-based yield", async () => {
    // TSLA's companyfacts end with the TTM to 2022-09-30, more than a year before the last
    // close in prices/TSLA.csv (docs/methodology.md, "Point in time"): owner earnings are
    // still estimated from those statements, but not divided by the 2024 market cap.
    const raw = rawFactsOf(root, "TSLA");
    const last = readPriceCsv(join(root, "prices", "TSLA.csv")).at(-1) as CsvPrice;
    const end = "2022-09-30";
    expect(raw.latestPeriodEnd("NetIncomeLoss")).toBe(end);
    expect(daysBetween(end, last.date)).toBeGreaterThan(365);
    const oe = await get<{ owner_earnings: Record<string, number | null> }>("/stocks/TSLA/owner-earnings");
    expect(oe.owner_earnings.owner_earnings_estimated).toBe(
      ttmOf(raw, CFO, end, "CFO") - ttmOf(raw, CAPEX, end, "capex"),
    );
    expect(oe.owner_earnings.owner_earnings_yield).toBeNull();
    const metrics = await get<Metrics>("/stocks/TSLA/fundamental-metrics");
    expect(metrics.metrics.shareholder_yield).toBeNull();
    expect(metrics.metrics.buyback_yield).toBeNull();
    expect(metrics.metrics.dividend_yield_ttm).toBeNull();
  });
});
