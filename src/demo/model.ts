/**
 * The shape of a demo company's model: its income and cash-flow lines and one quarter's
 * figures. financials.ts builds the model; cash-flows.ts fills a quarter's cash-flow lines.
 */
import type { BalanceSheet } from "./balance-sheet.ts";
import type { FiscalQuarter } from "./periods.ts";
import type { PriceSeries } from "./price-series.ts";
import type { Profile } from "./profile.ts";
import type { DemoCompany } from "./universe.ts";

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
  "deferredTax",
  "otherNoncash",
  "changeReceivables",
  "changeInventory",
  "changePayables",
  "changePrepaid",
  "changeOtherWorkingCapital",
  "changeWorkingCapital",
  "operatingCashFlow",
  "capitalExpenditure",
  "saleOfPpe",
  "purchaseOfInvestments",
  "saleOfInvestments",
  "purchaseOfIntangibles",
  "acquisitions",
  "otherInvesting",
  "investingCashFlow",
  "debtIssued",
  "debtRepaid",
  "stockIssued",
  "repurchases",
  "dividendsPaid",
  "otherFinancing",
  "financingCashFlow",
  "exchangeRateEffect",
  "netChangeInCash",
  /** Not a cash flow: the quarter's other comprehensive income, for the equity roll-forward. */
  "otherComprehensiveIncome",
] as const;

export type Flow = (typeof INCOME_LINES)[number] | (typeof CASH_FLOW_LINES)[number];

/** One fiscal quarter's figures; balances are at the quarter end. */
export interface ModelQuarter extends FiscalQuarter {
  flows: Record<Flow, number>;
  balance: BalanceSheet;
  /** Weighted average shares of the quarter. */
  basicShares: number;
  dilutedShares: number;
}

/** What building a quarter needs of its company. */
export interface ModelBase {
  company: DemoCompany;
  profile: Profile;
  prices: PriceSeries;
  sharesAt: (date: string) => number;
  random: () => number;
}
