/**
 * Quarterly dividends of a demo payer. The rate is set once a calendar year: it starts at the
 * universe's dividend (capped at a 4.4% yield on the first price), and each January grows by
 * the company's dividend growth unless the new annual rate would exceed 75% of the trailing
 * four quarters' earnings per share, in which case it is held (and halved when the current
 * rate exceeds 125% of those earnings). A dividend is declared five
 * weeks before its ex-date; payment follows within two weeks, in the same month.
 */
import { addDays } from "../domain/dates.ts";
import { FIRST_YEAR, weekdayOnOrAfter } from "./periods.ts";
import type { Profile } from "./profile.ts";
import type { DemoCompany } from "./universe.ts";

export interface DividendEvent {
  declared: string;
  exDate: string;
  payDate: string;
  /** Cash per share, split-adjusted (the demo has no splits). */
  amount: number;
}

/** What the dividend rule needs of the income model. */
interface EarningsQuarter {
  end: string;
  flows: { netIncome: number };
  basicShares: number;
}

const DECLARATION_LEAD_DAYS = 35;

/** Per-share amounts as boards declare them: quarter cents above 10 cents, tenths below. */
function roundAmount(x: number): number {
  return x >= 0.1 ? Math.round(x * 400) / 400 : Math.round(x * 1000) / 1000;
}

/** Earnings per share over the four quarters ended before `date`, or null without them. */
function trailingEps(quarters: readonly EarningsQuarter[], date: string): number | null {
  const before = quarters.filter((q) => q.end < date).slice(-4);
  const last = before[3];
  if (last === undefined) return null;
  return before.reduce((sum, q) => sum + q.flows.netIncome, 0) / last.basicShares;
}

/** The annual dividend rate per year, from two years before the history through `lastYear`. */
function ratesByYear(
  company: DemoCompany,
  profile: Profile,
  quarters: readonly EarningsQuarter[],
  lastYear: number,
): Map<number, number> {
  const rates = new Map<number, number>();
  let rate = roundAmount(Math.min(company.dividend, company.startPrice * 0.011));
  rates.set(FIRST_YEAR, rate);
  for (let year = FIRST_YEAR - 1; year >= FIRST_YEAR - 2; year--) {
    rates.set(year, roundAmount((rates.get(year + 1) ?? rate) / (1 + profile.dividendGrowth)));
  }
  for (let year = FIRST_YEAR + 1; year <= lastYear; year++) {
    const raised = roundAmount(rate * (1 + profile.dividendGrowth));
    const eps = trailingEps(quarters, `${year}-01-01`);
    if (eps === null || raised * 4 <= 0.75 * eps) rate = raised;
    else if (rate * 4 > 1.25 * eps) rate = roundAmount(rate / 2);
    rates.set(year, rate);
  }
  return rates;
}

/** Every dividend declared on or before `until`, oldest first. */
export function dividendEvents(
  company: DemoCompany,
  profile: Profile,
  quarters: readonly EarningsQuarter[],
  until: string,
): DividendEvent[] {
  const lastYear = Number(until.slice(0, 4)) + 1;
  const rates = ratesByYear(company, profile, quarters, lastYear);
  const events: DividendEvent[] = [];
  for (let year = FIRST_YEAR - 2; year <= lastYear; year++) {
    for (let k = 0; k < 4; k++) {
      const month = String(profile.dividendMonth + 3 * k).padStart(2, "0");
      const day = String(profile.dividendDay).padStart(2, "0");
      const exDate = weekdayOnOrAfter(`${year}-${month}-${day}`);
      const declared = addDays(exDate, -DECLARATION_LEAD_DAYS);
      if (declared > until) return events;
      const payDate = weekdayOnOrAfter(addDays(exDate, profile.dividendPayLag));
      events.push({ declared, exDate, payDate, amount: rates.get(year) ?? 0 });
    }
  }
  return events;
}

/** Cash paid to shareholders by dividends with a pay date in [start, end]. */
export function paidBetween(
  events: readonly DividendEvent[],
  start: string,
  end: string,
  sharesAt: (date: string) => number,
): number {
  let paid = 0;
  for (const e of events) if (e.payDate >= start && e.payDate <= end) paid += e.amount * sharesAt(e.payDate);
  return paid;
}

/** Dividends that went ex before `date`, oldest first. */
export function dividendsBefore(events: readonly DividendEvent[], date: string): DividendEvent[] {
  return events.filter((e) => e.exDate < date);
}
