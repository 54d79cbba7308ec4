/**
 * The us-gaap concepts a demo company reports, with their taxonomy labels, and how each is
 * read from the financial model for a period. Names are those the importer's mapping table
 * (domain/xbrl-mapping.ts) lists, so every fact lands in a statement field.
 */
import { perShare } from "./financials.ts";
import {
  average,
  balance,
  type ConceptSpec,
  cashFlow,
  everyone,
  flow,
  general,
  sum,
} from "./xbrl-concept-spec.ts";
import { DETAIL_CONCEPTS } from "./xbrl-detail-concepts.ts";

export type { ConceptKind, ConceptSpec, PeriodView } from "./xbrl-concept-spec.ts";

/** The revenue concept: filers adopting ASC 606 moved from SalesRevenueNet; financials report Revenues. */
export function revenueConcept(name: string): ConceptSpec {
  const labels: Record<string, string> = {
    RevenueFromContractWithCustomerExcludingAssessedTax:
      "Revenue from Contract with Customer, Excluding Assessed Tax",
    SalesRevenueNet: "Revenue, Net",
    Revenues: "Revenues",
  };
  const spec = flow(name, labels[name] ?? name, "revenue");
  return { ...spec, value: (v) => sum(v, "revenue") - v.restatement };
}

/** Every concept but revenue, in statement order (the detail lines after the totals). */
export const CONCEPTS: readonly ConceptSpec[] = [
  {
    ...flow("CostOfRevenue", "Cost of Revenue", "costOfRevenue", general),
    value: (v) => sum(v, "costOfRevenue") - v.restatement,
  },
  flow("GrossProfit", "Gross Profit", "grossProfit", general),
  flow(
    "ResearchAndDevelopmentExpense",
    "Research and Development Expense",
    "researchAndDevelopment",
    (m) => general(m) && m.profile.rndShare > 0,
  ),
  flow(
    "SellingGeneralAndAdministrativeExpense",
    "Selling, General and Administrative Expense",
    "sellingGeneralAdministrative",
    general,
  ),
  flow("OperatingIncomeLoss", "Operating Income (Loss)", "operatingIncome", (m) =>
    ["general", "reit"].includes(m.profile.template),
  ),
  flow("InterestExpense", "Interest Expense", "interestExpense"),
  flow(
    "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
    "Income (Loss) from Continuing Operations before Income Taxes, Noncontrolling Interest",
    "pretaxIncome",
  ),
  flow("IncomeTaxExpenseBenefit", "Income Tax Expense (Benefit)", "incomeTax"),
  flow("NetIncomeLoss", "Net Income (Loss) Attributable to Parent", "netIncome"),
  {
    name: "EarningsPerShareBasic",
    label: "Earnings Per Share, Basic",
    unit: "USD/shares",
    kind: "income",
    value: (v) =>
      perShare(
        sum(v, "netIncome"),
        average(v, (q) => q.basicShares),
      ),
    reportedBy: everyone,
  },
  {
    name: "EarningsPerShareDiluted",
    label: "Earnings Per Share, Diluted",
    unit: "USD/shares",
    kind: "income",
    value: (v) =>
      perShare(
        sum(v, "netIncome"),
        average(v, (q) => q.dilutedShares),
      ),
    reportedBy: everyone,
  },
  {
    name: "WeightedAverageNumberOfSharesOutstandingBasic",
    label: "Weighted Average Number of Shares Outstanding, Basic",
    unit: "shares",
    kind: "income",
    value: (v) => average(v, (q) => q.basicShares),
    reportedBy: everyone,
  },
  {
    name: "WeightedAverageNumberOfDilutedSharesOutstanding",
    label: "Weighted Average Number of Shares Outstanding, Diluted",
    unit: "shares",
    kind: "income",
    value: (v) => average(v, (q) => q.dilutedShares),
    reportedBy: everyone,
  },
  cashFlow(
    "NetCashProvidedByUsedInOperatingActivities",
    "Net Cash Provided by (Used in) Operating Activities",
    "operatingCashFlow",
  ),
  cashFlow(
    "DepreciationDepletionAndAmortization",
    "Depreciation, Depletion and Amortization",
    "depreciation",
  ),
  cashFlow(
    "ShareBasedCompensation",
    "Share-Based Payment Arrangement, Noncash Expense",
    "shareBasedCompensation",
  ),
  cashFlow(
    "PaymentsToAcquirePropertyPlantAndEquipment",
    "Payments to Acquire Property, Plant, and Equipment",
    "capitalExpenditure",
  ),
  cashFlow(
    "NetCashProvidedByUsedInInvestingActivities",
    "Net Cash Provided by (Used in) Investing Activities",
    "investingCashFlow",
  ),
  cashFlow("PaymentsForRepurchaseOfCommonStock", "Payments for Repurchase of Common Stock", "repurchases"),
  cashFlow("PaymentsOfDividends", "Payments of Dividends", "dividendsPaid", (m) => m.dividends.length > 0),
  cashFlow(
    "NetCashProvidedByUsedInFinancingActivities",
    "Net Cash Provided by (Used in) Financing Activities",
    "financingCashFlow",
  ),
  balance("CashAndCashEquivalentsAtCarryingValue", "Cash and Cash Equivalents, at Carrying Value", "cash"),
  balance(
    "AccountsReceivableNetCurrent",
    "Accounts Receivable, after Allowance for Credit Loss, Current",
    "receivables",
    general,
  ),
  balance("InventoryNet", "Inventory, Net", "inventory", (m) => general(m) && m.profile.mix.inventory > 0),
  balance("AssetsCurrent", "Assets, Current", "currentAssets", general),
  balance("PropertyPlantAndEquipmentNet", "Property, Plant and Equipment, Net", "ppe"),
  balance("Goodwill", "Goodwill", "goodwill", (m) => m.profile.mix.goodwill >= 0.002),
  balance("Assets", "Assets", "assets"),
  balance("AccountsPayableCurrent", "Accounts Payable, Current", "payables", general),
  balance("LiabilitiesCurrent", "Liabilities, Current", "currentLiabilities", general),
  balance("LongTermDebtNoncurrent", "Long-Term Debt, Excluding Current Maturities", "longTermDebt"),
  balance("Liabilities", "Liabilities", "liabilities"),
  balance("StockholdersEquity", "Stockholders' Equity Attributable to Parent", "equity"),
  balance("LiabilitiesAndStockholdersEquity", "Liabilities and Equity", "assets"),
  ...DETAIL_CONCEPTS,
];
