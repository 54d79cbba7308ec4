/**
 * The economics behind a demo company's filings, quarter by quarter: one model from which
 * the XBRL facts, dividends, earnings calendar and signals are all written, so that they
 * agree with each other and with the prices.
 *
 * Earnings are anchored to the share price (quarterly earnings = trailing-year average price ×
 * shares ÷ P/E ÷ 4, with seasonality and noise), revenue follows from the net margin and the balance
 * sheet from revenue (balance-sheet.ts), the cash flows and equity accounts from both
 * (cash-flows.ts). Amounts are whole thousands of dollars, and every subtotal is the exact sum
 * of its parts: gross profit = revenue − cost, pretax = net income + tax, operating income =
 * pretax + interest, assets = liabilities + equity, and the change in cash = the three
 * cash-flow sections. History starts two fiscal years before the
 * first filing so that the first 10-K has its comparative years.
 */

import { addDays } from "../domain/dates.ts";
import { balanceOf, thousands } from "./balance-sheet.ts";
import { openingEquity, withCashFlows } from "./cash-flows.ts";
import { type DividendEvent, dividendEvents } from "./dividend-events.ts";
import { CASH_FLOW_LINES, type Flow, INCOME_LINES, type ModelBase, type ModelQuarter } from "./model.ts";
import { FIRST_YEAR, type FiscalQuarter, fiscalQuarters } from "./periods.ts";
import type { PriceSeries } from "./price-series.ts";
import { type Profile, profileOf } from "./profile.ts";
import { type DemoCompany, rng } from "./universe.ts";

export type { Balance } from "./balance-sheet.ts";

export interface CompanyModel {
  company: DemoCompany;
  profile: Profile;
  prices: PriceSeries;
  /** Every fiscal quarter ended by the cut-off, oldest first. */
  quarters: ModelQuarter[];
  /** Quarterly dividends declared by the cut-off (the last may go ex after it); empty for non-payers. */
  dividends: DividendEvent[];
  /** Shares outstanding on a date. */
  sharesAt: (date: string) => number;
}

/** Share counts are anchored here, so the history does not move with the build date. */
const SHARES_REFERENCE = Date.parse("2024-01-01");

/** EPS as filers report it: net income per share, in cents. */
export const perShare = (amount: number, shares: number): number => Math.round((amount / shares) * 100) / 100;

/** Builds the model of one company from its prices, through the quarters ended by `until`. */
export function buildModel(company: DemoCompany, prices: PriceSeries, until: string): CompanyModel {
  const profile = profileOf(company);
  const random = rng(company.seed * 104_729 + 3);
  const sharesAt = (date: string) =>
    Math.round(
      company.sharesOutstanding *
        (1 + profile.shareGrowth) ** ((Date.parse(date) - SHARES_REFERENCE) / (365.25 * 86_400_000)),
    );
  const base = { company, profile, prices, sharesAt, random };
  const periods = fiscalQuarters(company, FIRST_YEAR - 2, until);
  const first = periods[0];
  if (first === undefined) throw new Error(`${company.name}: no fiscal quarter before ${until}`);
  const cores = periods.map((p) => quarterCore(base, p));
  const dividends = company.dividend > 0 ? dividendEvents(company, profile, cores, until) : [];
  // Generators of their own, so that a later cut-off (more quarters) leaves earlier cash flows
  // as they were, and the detail lines leave the older lines as they were.
  const cashBase = { ...base, random: rng(company.seed * 104_729 + 5) };
  const detail = rng(company.seed * 104_729 + 7);
  const opening = balanceOf(profile, cashBase.random, runRate(base, first), 1);
  let previous = openingEquity(base, opening, addDays(first.start, -1));
  const quarters = cores.map((core) => {
    const quarter = withCashFlows(cashBase, core, previous, dividends, detail);
    previous = quarter.balance;
    return quarter;
  });
  return { company, profile, prices, quarters, dividends, sharesAt };
}

/**
 * Annual revenue the share price implies at the end of a quarter: earnings at the company's
 * P/E on the average price of the trailing year (so earnings follow the price, smoothly).
 */
function runRate(m: ModelBase, p: FiscalQuarter): number {
  const price = m.prices.average(addDays(p.end, -365), p.end);
  return (price * m.sharesAt(p.end)) / m.profile.pe / m.profile.netMargin;
}

/** A quarter's income and closing balance sheet; its cash flows are filled in by withCashFlows. */
function quarterCore(m: ModelBase, p: FiscalQuarter): ModelQuarter {
  const { profile, random } = m;
  const mid = new Date((Date.parse(p.start) + Date.parse(p.end)) / 2).toISOString().slice(0, 10);
  const basicShares = m.sharesAt(mid);
  const rate = runRate(m, p);
  const balance = balanceOf(profile, random, rate, 0.97 + 0.06 * random());
  const season = profile.seasonal[p.q - 1] ?? 1;
  const netIncome = thousands(((rate * profile.netMargin) / 4) * season * (0.93 + 0.14 * random()));
  const incomeTax = thousands((netIncome * profile.taxRate) / (1 - profile.taxRate));
  const pretaxIncome = netIncome + incomeTax;
  const debtBase = profile.template === "bank" ? balance.liabilities : balance.longTermDebt;
  const interestExpense = thousands((debtBase * profile.interestRate) / 4);
  const operatingIncome = pretaxIncome + interestExpense;
  const revenue = thousands((netIncome / profile.netMargin) * (0.98 + 0.04 * random()));
  const general = profile.template === "general";
  const grossProfit = general
    ? Math.max(thousands(revenue * profile.grossMargin), operatingIncome + thousands(revenue * 0.08))
    : 0;
  const opex = general ? grossProfit - operatingIncome : 0;
  const researchAndDevelopment = thousands(opex * profile.rndShare);
  const flows = {
    ...emptyFlows(),
    revenue,
    costOfRevenue: general ? revenue - grossProfit : 0,
    grossProfit,
    researchAndDevelopment,
    sellingGeneralAdministrative: opex - researchAndDevelopment,
    operatingIncome,
    interestExpense,
    pretaxIncome,
    incomeTax,
    netIncome,
  };
  const dilutedShares = Math.round(basicShares * (1 + profile.dilution));
  return { ...p, flows, balance, basicShares, dilutedShares };
}

function emptyFlows(): Record<Flow, number> {
  const flows = {} as Record<Flow, number>;
  for (const line of [...INCOME_LINES, ...CASH_FLOW_LINES]) flows[line] = 0;
  return flows;
}
