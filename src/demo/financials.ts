/**
 * The economics behind a demo company's filings, quarter by quarter: one model from which
 * the XBRL facts, dividends, earnings calendar and signals are all written, so that they
 * agree with each other and with the prices.
 *
 * Earnings are anchored to the share price (quarterly earnings = trailing-year average price ×
 * shares ÷ P/E ÷ 4, with seasonality and noise), revenue follows from the net margin and the balance
 * sheet from revenue. Amounts are whole thousands of dollars, and every subtotal is the exact
 * sum of its parts: gross profit = revenue − cost, pretax = net income + tax, operating
 * income = pretax + interest, assets = liabilities + equity, and the change in cash = the
 * three cash-flow sections. History starts two fiscal years before the first filing so that
 * the first 10-K has its comparative years.
 */

import { addDays } from "../domain/dates.ts";
import { type DividendEvent, dividendEvents, paidBetween } from "./dividend-events.ts";
import { FIRST_YEAR, type FiscalQuarter, fiscalQuarters } from "./periods.ts";
import type { PriceSeries } from "./price-series.ts";
import { type Profile, profileOf } from "./profile.ts";
import { type DemoCompany, rng } from "./universe.ts";

export const INCOME_LINES = [
  "revenue",
  "costOfRevenue",
  "grossProfit",
  "researchAndDevelopment",
  "sellingGeneralAdministrative",
  "operatingIncome",
  "interestExpense",
  "pretaxIncome",
  "incomeTax",
  "netIncome",
] as const;
export const CASH_FLOW_LINES = [
  "depreciation",
  "shareBasedCompensation",
  "operatingCashFlow",
  "capitalExpenditure",
  "repurchases",
  "dividendsPaid",
  "investingCashFlow",
  "financingCashFlow",
] as const;
export const BALANCE_LINES = [
  "cash",
  "receivables",
  "inventory",
  "currentAssets",
  "ppe",
  "goodwill",
  "assets",
  "payables",
  "currentLiabilities",
  "longTermDebt",
  "liabilities",
  "equity",
] as const;

export type Flow = (typeof INCOME_LINES)[number] | (typeof CASH_FLOW_LINES)[number];
export type Balance = (typeof BALANCE_LINES)[number];

/** One fiscal quarter's figures; balances are at the quarter end. */
export interface ModelQuarter extends FiscalQuarter {
  flows: Record<Flow, number>;
  balance: Record<Balance, number>;
  /** Weighted average shares of the quarter. */
  basicShares: number;
  dilutedShares: number;
}

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

/** Whole thousands of dollars. */
const thousands = (x: number): number => Math.round(x / 1000) * 1000;

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
  // A generator of its own, so that a later cut-off (more quarters) leaves earlier cash flows as they were.
  const cashBase = { ...base, random: rng(company.seed * 104_729 + 5) };
  let previous = balanceOf(cashBase, runRate(base, first), 1);
  const quarters = cores.map((core) => {
    const quarter = withCashFlows(cashBase, core, previous, dividends);
    previous = quarter.balance;
    return quarter;
  });
  return { company, profile, prices, quarters, dividends, sharesAt };
}

interface ModelBase {
  company: DemoCompany;
  profile: Profile;
  prices: PriceSeries;
  sharesAt: (date: string) => number;
  random: () => number;
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
  const balance = balanceOf(m, rate, 0.97 + 0.06 * random());
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

/** The balance sheet for an annual revenue run rate; `scale` is noise on total assets. */
function balanceOf(m: ModelBase, rate: number, scale: number): Record<Balance, number> {
  const { profile, random } = m;
  const assets = thousands(rate * profile.assetsToRevenue * scale);
  const part = (share: number) => thousands(assets * share);
  const cash = part(profile.mix.cash * (0.8 + 0.4 * random()));
  const receivables = part(profile.mix.receivables);
  const inventory = part(profile.mix.inventory);
  const currentAssets =
    profile.template === "general" ? cash + receivables + inventory + part(profile.mix.otherCurrent) : 0;
  const currentLiabilities = part(profile.currentLiabilities);
  const liabilities = part(profile.liabilities);
  return {
    cash,
    receivables,
    inventory,
    currentAssets,
    ppe: part(profile.mix.ppe),
    goodwill: part(profile.mix.goodwill),
    assets,
    payables: thousands(currentLiabilities * profile.payables),
    currentLiabilities,
    longTermDebt: part(profile.debt),
    liabilities,
    equity: assets - liabilities,
  };
}

/** Cash flows of a quarter from its income and the balance sheets at its start and end. */
function withCashFlows(
  m: ModelBase,
  core: ModelQuarter,
  opening: Record<Balance, number>,
  dividends: readonly DividendEvent[],
): ModelQuarter {
  const { profile, random } = m;
  const { flows, balance } = core;
  const workingCapital = (b: Record<Balance, number>) => b.receivables + b.inventory - b.payables;
  const depreciation = thousands(opening.ppe * profile.depreciationRate);
  const shareBasedCompensation = thousands(flows.revenue * profile.sbcRate);
  const operatingCashFlow =
    flows.netIncome +
    depreciation +
    shareBasedCompensation -
    (workingCapital(balance) - workingCapital(opening));
  // Maintenance plus some growth: steady, so that owner earnings are too.
  const capitalExpenditure = thousands(depreciation * (1.05 + 0.3 * random()));
  const investingCashFlow = -capitalExpenditure - thousands(capitalExpenditure * 0.15 * random());
  const retired = m.sharesAt(core.start) - m.sharesAt(core.end);
  const repurchases = retired > 0 ? thousands(retired * m.prices.average(core.start, core.end)) : 0;
  const dividendsPaid = thousands(paidBetween(dividends, core.start, core.end, m.sharesAt));
  const financingCashFlow = balance.cash - opening.cash - operatingCashFlow - investingCashFlow;
  return {
    ...core,
    flows: {
      ...flows,
      depreciation,
      shareBasedCompensation,
      operatingCashFlow,
      capitalExpenditure,
      repurchases,
      dividendsPaid,
      investingCashFlow,
      financingCashFlow,
    },
  };
}
