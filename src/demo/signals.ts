/**
 * Forward estimate signals (`estimates/demo-estimates.csv`) and owner-earnings and dividend
 * growth signals (`growth/demo-growth.csv`) for subsets of the demo universe, so that both a
 * company with and one without each source exist. Figures come from the financial model:
 * estimates extrapolate the last fiscal year's EPS at the company's expected growth; owner
 * earnings are net income + depreciation − capital expenditure of each fiscal year, as the
 * 10-K reports them.
 */
import { join } from "node:path";
import { addDays } from "../domain/dates.ts";
import { dividendsBefore } from "./dividend-events.ts";
import type { CompanyModel } from "./financials.ts";
import type { ModelQuarter } from "./model.ts";
import { type DemoPeriod, monthEnd } from "./periods.ts";
import { write } from "./sources.ts";
import { rng } from "./universe.ts";

/** Which companies (by index in the universe) have estimates and growth signals. */
export const hasEstimates = (index: number): boolean => index % 4 !== 3;
export const hasGrowthSignals = (index: number): boolean => index % 3 !== 2;

const fraction = (x: number) => String(Math.round(x * 10_000) / 10_000);
const csv = (header: string, rows: readonly string[]) => `${[header, ...rows].join("\n")}\n`;

/** The fiscal years (four quarters each) completed on or before `date`, oldest first. */
function completedYears(model: CompanyModel, date: string): ModelQuarter[][] {
  const years = new Map<number, ModelQuarter[]>();
  for (const q of model.quarters) if (q.end <= date) years.set(q.fy, [...(years.get(q.fy) ?? []), q]);
  return [...years.values()].filter((quarters) => quarters.length === 4);
}

const ESTIMATES_HEADER =
  "ticker,as_of_date,eps_growth_yoy_est_next_q,eps_growth_yoy_est_next_fy,rvn_growth_yoy_est_next_q,rvn_growth_yoy_est_next_fy,earning_growth_5y_est,total_rvn_growth_5y_est,eps_est_next_fy";

/** Month ends of the last four months before `until`, and `until` itself. */
function estimateDates(until: string): string[] {
  const ends = [4, 3, 2, 1].map((k) => monthEnd(until, -k));
  return [...ends, until];
}

function estimateRow(model: CompanyModel, date: string, random: () => number): string | null {
  const last = completedYears(model, date).at(-1);
  const lastQuarter = last?.[3];
  if (last === undefined || lastQuarter === undefined) return null;
  const eps = last.reduce((sum, q) => sum + q.flows.netIncome, 0) / lastQuarter.dilutedShares;
  const growth = model.company.drift - 0.03 + 0.06 * random();
  const revenueGrowth = growth * 0.8 + 0.02 * random();
  const large = model.prices.closeOn(date) * model.sharesAt(date) >= 20e9;
  return [
    model.company.tickers[0],
    date,
    fraction(growth - 0.04 + 0.08 * random()),
    fraction(growth),
    fraction(revenueGrowth - 0.02 + 0.04 * random()),
    fraction(revenueGrowth),
    fraction(model.company.drift + 0.02 * random()),
    large ? fraction(revenueGrowth * 0.9) : "",
    (eps * (1 + growth)).toFixed(2),
  ].join(",");
}

/** `estimates/demo-estimates.csv`: a short monthly history of signals per covered company. */
export function writeEstimates(dir: string, models: readonly CompanyModel[], until: string): void {
  const rows = models.flatMap((model, index) => {
    if (!hasEstimates(index)) return [];
    const random = rng(model.company.seed * 17 + 9);
    return estimateDates(until).flatMap((date) => estimateRow(model, date, random) ?? []);
  });
  write(join(dir, "estimates", "demo-estimates.csv"), csv(ESTIMATES_HEADER, rows));
}

const GROWTH_HEADER =
  "ticker,as_of_date,owner_earnings,owner_earnings_growth_1y,owner_earnings_growth_3y,owner_earnings_growth_5y,dividend_growth_3y,dividend_growth_5y";

/** Compound annual growth from `from` to `to` over `years`; empty when either is not positive. */
function cagr(from: number | undefined, to: number | undefined, years: number): string {
  if (from === undefined || to === undefined || from <= 0 || to <= 0) return "";
  return fraction((to / from) ** (1 / years) - 1);
}

/** One row per 10-K: owner earnings of the year it reports and their growth. */
function growthRows(model: CompanyModel, periods: readonly DemoPeriod[]): string[] {
  const ownerEarnings = (quarters: readonly ModelQuarter[]) =>
    quarters.reduce(
      (sum, q) => sum + q.flows.netIncome + q.flows.depreciation - q.flows.capitalExpenditure,
      0,
    );
  const annualDividends = (date: string) => {
    const last4 = dividendsBefore(model.dividends, date).slice(-4);
    return last4.length === 4 ? last4.reduce((sum, d) => sum + d.amount, 0) : undefined;
  };
  return periods
    .filter((p) => p.fp === "FY")
    .map((p) => {
      const series = completedYears(model, p.end).map(ownerEarnings);
      const now = series.at(-1) ?? 0;
      const dividendsIn = (yearsAgo: number) => annualDividends(addDays(p.filed, -365 * yearsAgo));
      return [
        model.company.tickers[0],
        p.filed,
        now,
        cagr(series.at(-2), now, 1),
        cagr(series.at(-4), now, 3),
        cagr(series.at(-6), now, 5),
        cagr(dividendsIn(3), dividendsIn(0), 3),
        cagr(dividendsIn(5), dividendsIn(0), 5),
      ].join(",");
    });
}

/** `growth/demo-growth.csv`: a history of growth signals, one row per 10-K, per covered company. */
export function writeGrowthSignals(
  dir: string,
  companies: readonly { model: CompanyModel; periods: readonly DemoPeriod[] }[],
): void {
  const rows = companies.flatMap(({ model, periods }, index) =>
    hasGrowthSignals(index) ? growthRows(model, periods) : [],
  );
  write(join(dir, "growth", "demo-growth.csv"), csv(GROWTH_HEADER, rows));
}
