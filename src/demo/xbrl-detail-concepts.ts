/**
 * The detail lines of a demo company's balance sheet and cash-flow statement that a typical
 * filer reports beside the totals (balance-sheet.ts, cash-flows.ts), as us-gaap concepts of
 * the importer's mapping table, plus the unmapped lines that make a financial company's
 * totals add up (a bank's loans and deposits, an insurer's policy reserves).
 */
import type { CompanyModel } from "./financials.ts";
import { balance, type ConceptSpec, cashFlow, everyone, general, negated } from "./xbrl-concept-spec.ts";

const withInventory = (m: CompanyModel) => general(m) && m.profile.mix.inventory > 0;
const template = (name: string) => (m: CompanyModel) => m.profile.template === name;
const leases = (m: CompanyModel) => general(m) || m.profile.template === "reit";

const BALANCE_DETAIL: readonly ConceptSpec[] = [
  balance("MarketableSecuritiesCurrent", "Marketable Securities, Current", "marketableSecurities", general),
  balance("NontradeReceivablesCurrent", "Nontrade Receivables, Current", "otherReceivables", general),
  balance("InventoryRawMaterials", "Inventory, Raw Materials, Gross", "rawMaterials", withInventory),
  balance("InventoryFinishedGoods", "Inventory, Finished Goods, Gross", "finishedGoods", withInventory),
  balance("OtherInventory", "Other Inventory, Gross", "otherInventory", withInventory),
  balance("InventoryValuationReserves", "Inventory Valuation Reserves", "inventoryReserve", withInventory),
  balance(
    "PrepaidExpenseAndOtherAssetsCurrent",
    "Prepaid Expense and Other Assets, Current",
    "otherCurrentAssets",
    general,
  ),
  balance("LandAndLandImprovements", "Land and Land Improvements", "land"),
  balance("BuildingsAndImprovementsGross", "Buildings and Improvements, Gross", "buildings"),
  balance("MachineryAndEquipmentGross", "Machinery and Equipment, Gross", "machinery"),
  balance("ConstructionInProgressGross", "Construction in Progress, Gross", "constructionInProgress"),
  balance("PropertyPlantAndEquipmentOther", "Property, Plant and Equipment, Other, Gross", "otherPpe"),
  balance("PropertyPlantAndEquipmentGross", "Property, Plant and Equipment, Gross", "grossPpe"),
  balance(
    "AccumulatedDepreciationDepletionAndAmortizationPropertyPlantAndEquipment",
    "Accumulated Depreciation, Depletion and Amortization, Property, Plant, and Equipment",
    "accumulatedDepreciation",
  ),
  balance(
    "IntangibleAssetsNetExcludingGoodwill",
    "Intangible Assets, Net (Excluding Goodwill)",
    "intangibles",
  ),
  balance("LongTermInvestments", "Long-Term Investments", "longTermInvestments"),
  balance(
    "LoansAndLeasesReceivableNetReportedAmount",
    "Loans and Leases Receivable, after Allowance for Credit Loss",
    "loans",
    template("bank"),
  ),
  balance("OtherAssetsNoncurrent", "Other Assets, Noncurrent", "otherLongTermAssets"),
  balance("AccruedLiabilitiesCurrent", "Accrued Liabilities, Current", "accruedLiabilities", general),
  balance(
    "ContractWithCustomerLiabilityCurrent",
    "Contract with Customer, Liability, Current",
    "deferredRevenue",
    general,
  ),
  balance("LongTermDebtCurrent", "Long-Term Debt, Current Maturities", "currentDebt", general),
  balance("ShortTermBorrowings", "Short-Term Debt", "currentDebt", template("bank")),
  balance("FinanceLeaseLiabilityCurrent", "Finance Lease, Liability, Current", "currentLeases", general),
  balance("OtherLiabilitiesCurrent", "Other Liabilities, Current", "otherCurrentLiabilities", general),
  balance(
    "FinanceLeaseLiabilityNoncurrent",
    "Finance Lease, Liability, Noncurrent",
    "longTermLeases",
    leases,
  ),
  balance(
    "DeferredIncomeTaxLiabilitiesNet",
    "Deferred Income Tax Liabilities, Net",
    "deferredTaxLiabilities",
  ),
  balance(
    "ContractWithCustomerLiabilityNoncurrent",
    "Contract with Customer, Liability, Noncurrent",
    "deferredRevenueNoncurrent",
    general,
  ),
  balance("Deposits", "Deposits", "deposits", template("bank")),
  balance(
    "LiabilityForFuturePolicyBenefits",
    "Liability for Future Policy Benefit, before Reinsurance",
    "policyReserves",
    template("insurance"),
  ),
  balance("OtherLiabilitiesNoncurrent", "Other Liabilities, Noncurrent", "otherLongTermLiabilities"),
  balance("CommonStockValue", "Common Stock, Value, Issued", "commonStock"),
  balance("PreferredStockValue", "Preferred Stock, Value, Issued", "preferredStock"),
  balance("AdditionalPaidInCapital", "Additional Paid in Capital", "additionalPaidInCapital"),
  balance(
    "RetainedEarningsAccumulatedDeficit",
    "Retained Earnings (Accumulated Deficit)",
    "retainedEarnings",
  ),
  balance(
    "AccumulatedOtherComprehensiveIncomeLossNetOfTax",
    "Accumulated Other Comprehensive Income (Loss), Net of Tax",
    "accumulatedOtherComprehensiveIncome",
  ),
  balance("TreasuryStockValue", "Treasury Stock, Value", "treasuryStock"),
];

const CASH_FLOW_DETAIL: readonly ConceptSpec[] = [
  cashFlow("DeferredIncomeTaxExpenseBenefit", "Deferred Income Tax Expense (Benefit)", "deferredTax"),
  // The concept is an income: a positive value is taken out of operating cash flow.
  negated(cashFlow("OtherNoncashIncomeExpense", "Other Noncash Income (Expense)", "otherNoncash")),
  negated(
    cashFlow(
      "IncreaseDecreaseInAccountsReceivable",
      "Increase (Decrease) in Accounts Receivable",
      "changeReceivables",
      general,
    ),
  ),
  negated(
    cashFlow(
      "IncreaseDecreaseInInventories",
      "Increase (Decrease) in Inventories",
      "changeInventory",
      withInventory,
    ),
  ),
  cashFlow(
    "IncreaseDecreaseInAccountsPayableAndAccruedLiabilities",
    "Increase (Decrease) in Accounts Payable and Accrued Liabilities",
    "changePayables",
    general,
  ),
  negated(
    cashFlow(
      "IncreaseDecreaseInPrepaidDeferredExpenseAndOtherAssets",
      "Increase (Decrease) in Prepaid Expense and Other Assets",
      "changePrepaid",
      general,
    ),
  ),
  negated(
    cashFlow(
      "IncreaseDecreaseInOtherOperatingCapitalNet",
      "Increase (Decrease) in Other Operating Capital, Net",
      "changeOtherWorkingCapital",
      general,
    ),
  ),
  negated(
    cashFlow(
      "IncreaseDecreaseInOperatingCapital",
      "Increase (Decrease) in Operating Capital",
      "changeWorkingCapital",
      general,
    ),
  ),
  cashFlow(
    "ProceedsFromSaleOfPropertyPlantAndEquipment",
    "Proceeds from Sale of Property, Plant, and Equipment",
    "saleOfPpe",
  ),
  cashFlow("PaymentsToAcquireInvestments", "Payments to Acquire Investments", "purchaseOfInvestments"),
  cashFlow(
    "ProceedsFromSaleMaturityAndCollectionsOfInvestments",
    "Proceeds from Sale, Maturity and Collection of Investments",
    "saleOfInvestments",
  ),
  cashFlow(
    "PaymentsToAcquireIntangibleAssets",
    "Payments to Acquire Intangible Assets",
    "purchaseOfIntangibles",
  ),
  cashFlow(
    "PaymentsToAcquireBusinessesNetOfCashAcquired",
    "Payments to Acquire Businesses, Net of Cash Acquired",
    "acquisitions",
  ),
  negated(
    cashFlow(
      "PaymentsForProceedsFromOtherInvestingActivities",
      "Payments for (Proceeds from) Other Investing Activities",
      "otherInvesting",
    ),
  ),
  cashFlow("ProceedsFromIssuanceOfLongTermDebt", "Proceeds from Issuance of Long-Term Debt", "debtIssued"),
  cashFlow("RepaymentsOfLongTermDebt", "Repayments of Long-Term Debt", "debtRepaid"),
  cashFlow("ProceedsFromIssuanceOfCommonStock", "Proceeds from Issuance of Common Stock", "stockIssued"),
  cashFlow(
    "ProceedsFromPaymentsForOtherFinancingActivities",
    "Proceeds from (Payments for) Other Financing Activities",
    "otherFinancing",
  ),
  cashFlow(
    "CashAndCashEquivalentsPeriodIncreaseDecrease",
    "Cash and Cash Equivalents, Period Increase (Decrease)",
    "netChangeInCash",
    everyone,
  ),
];

/** The detail concepts, balance sheet then cash flows. */
export const DETAIL_CONCEPTS: readonly ConceptSpec[] = [...BALANCE_DETAIL, ...CASH_FLOW_DETAIL];
