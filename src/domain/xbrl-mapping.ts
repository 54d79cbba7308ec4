/**
 * Which XBRL concepts fill which statement field: the one mapping table of the importer.
 *
 * Each field has an ordered concept priority list, written as space-separated tokens:
 * `Name` is us-gaap:Name, `ifrs:Name` is ifrs-full:Name, a leading `-` negates the value, and
 * a leading `~` marks a fallback: a related measure used for a period only when no other
 * concept of the list has a value for it, reported or derived from year-to-date figures.
 * For every period the first concept of the list with a value for it wins (a restated value
 * of that concept replaces the earlier one), so a series keeps one basis: a filer that tags
 * a total and a part of it for a period gets the total, and one that moved from
 * SalesRevenueNet to RevenueFromContractWithCustomerExcludingAssessedTax keeps one line. Fields with an empty list are filled only by derivation rules
 * (`xbrl-derived.ts`) or stay null.
 *
 * Sign conventions (the statement as printed, as Yahoo and most data providers show it):
 * - Cash-flow statement: inflows positive, outflows negative. XBRL reports payments
 *   (PaymentsToAcquirePropertyPlantAndEquipment, PaymentsOfDividends, RepaymentsOfDebt, ...)
 *   and increases of working-capital assets (IncreaseDecreaseInAccountsReceivable, ...) as
 *   positive amounts, so those concepts carry `-`. Capital expenditure is therefore negative.
 * - Income statement: as reported; revenue, expenses (cost of revenue, R&D, interest
 *   expense, tax provision) are positive amounts, losses negative.
 * - Balance sheet: as reported; every asset, liability and equity line is a positive amount,
 *   including contra accounts (accumulated depreciation, treasury stock), which are
 *   subtracted by the derivation rules that need them.
 * Values are in the reporting currency's units (not thousands), shares in shares, per-share
 * amounts in currency per share.
 */
import type { BalanceSheetField, CashFlowField, IncomeStatementField, StatementKind } from "./statements.ts";

/** One concept of a priority list. */
export interface ConceptRef {
  taxonomy: "us-gaap" | "ifrs-full";
  name: string;
  /** -1 when the concept reports an outflow (or an asset increase) as a positive amount. */
  sign: 1 | -1;
  /** A related measure, used only when no other concept has the period (`~`). */
  fallback: boolean;
}

/** What the value of a field measures, which selects the unit of the facts used. */
export type FieldUnit = "money" | "per_share" | "shares";

/**
 * When a field's value is measured: over the period (`duration`), at its end (`instant`), or
 * at the day before it starts (`opening`, the cash-flow statement's beginning cash).
 */
export type FieldTiming = "duration" | "instant" | "opening";

/** Helper lines that no statement shows but derivation rules need. */
export type AuxField =
  | "aux_liabilities_and_equity"
  | "aux_debt_current"
  | "aux_current_debt_and_leases"
  | "aux_short_term_borrowings"
  | "aux_current_portion_long_term_debt"
  | "aux_long_term_debt_including_current"
  | "aux_net_short_term_debt"
  | "aux_depreciation"
  | "aux_amortization"
  | "aux_selling_and_marketing"
  | "aux_general_and_administrative"
  | "aux_net_interest_income"
  | "aux_noninterest_income"
  | "aux_bank_revenue"
  | "aux_ifrs_long_term_borrowings"
  | "aux_ifrs_noncurrent_bonds"
  | "aux_ifrs_borrowings"
  | "aux_property_sale_gain"
  | "aux_real_estate_impairment";

/** One row of the mapping table. */
export interface FieldMapping {
  statement: StatementKind | "aux";
  field: string;
  unit: FieldUnit;
  timing: FieldTiming;
  /** Per-share and share-count values are never summed or differenced. */
  additive: boolean;
  concepts: readonly ConceptRef[];
}

const BALANCE_SHEET: Record<BalanceSheetField, string> = {
  cash_and_cash_equivalents:
    "CashAndCashEquivalentsAtCarryingValue Cash CashAndDueFromBanks ifrs:CashAndCashEquivalents",
  cash_equivalents_marketable_securities: "CashCashEquivalentsAndShortTermInvestments",
  marketable_securities:
    "MarketableSecuritiesCurrent ShortTermInvestments AvailableForSaleSecuritiesDebtSecuritiesCurrent AvailableForSaleSecuritiesCurrent DebtSecuritiesCurrent",
  accounts_receivable: "AccountsReceivableNetCurrent AccountsReceivableNet ifrs:CurrentTradeReceivables",
  notes_receivable: "NotesAndLoansReceivableNetCurrent NotesReceivableNetCurrent",
  total_receivables:
    "ReceivablesNetCurrent AccountsNotesAndLoansReceivableNetCurrent ifrs:TradeAndOtherCurrentReceivables",
  other_current_receivables:
    "NontradeReceivablesCurrent OtherReceivablesNetCurrent ifrs:OtherCurrentReceivables",
  inventory: "InventoryNet ifrs:Inventories",
  raw_materials: "InventoryRawMaterialsNetOfReserves InventoryRawMaterials ifrs:RawMaterials",
  finished_goods: "InventoryFinishedGoodsNetOfReserves InventoryFinishedGoods ifrs:FinishedGoods",
  other_inventories: "OtherInventory",
  inventories_adjustments_allowances: "InventoryValuationReserves",
  other_current_assets: "OtherAssetsCurrent PrepaidExpenseAndOtherAssetsCurrent ifrs:OtherCurrentAssets",
  total_current_assets: "AssetsCurrent ifrs:CurrentAssets",
  gross_ppe:
    "PropertyPlantAndEquipmentGross PropertyPlantAndEquipmentAndFinanceLeaseRightOfUseAssetBeforeAccumulatedDepreciationAndAmortization",
  land_and_improvements: "LandAndLandImprovements Land",
  buildings_and_improvements: "BuildingsAndImprovementsGross",
  machinery_furniture_equipment: "MachineryAndEquipmentGross",
  construction_in_progress: "ConstructionInProgressGross ifrs:ConstructionInProgress",
  other_gross_ppe: "PropertyPlantAndEquipmentOther",
  accumulated_depreciation:
    "AccumulatedDepreciationDepletionAndAmortizationPropertyPlantAndEquipment PropertyPlantAndEquipmentAndFinanceLeaseRightOfUseAssetAccumulatedDepreciationAndAmortization",
  net_ppe:
    "PropertyPlantAndEquipmentNet PropertyPlantAndEquipmentAndFinanceLeaseRightOfUseAssetAfterAccumulatedDepreciationAndAmortization ifrs:PropertyPlantAndEquipment",
  good_will: "Goodwill ifrs:Goodwill",
  intangibles:
    "IntangibleAssetsNetExcludingGoodwill FiniteLivedIntangibleAssetsNet ifrs:IntangibleAssetsOtherThanGoodwill",
  investments_and_advances:
    "LongTermInvestments MarketableSecuritiesNoncurrent AvailableForSaleSecuritiesDebtSecuritiesNoncurrent ifrs:InvestmentAccountedForUsingEquityMethod",
  other_long_term_assets: "OtherAssetsNoncurrent ifrs:OtherNoncurrentAssets",
  // Not us-gaap:NoncurrentAssets: that is the long-lived assets of the geographic-area note
  // (Alphabet 2025: 261.8B against 389.2B of total non-current assets).
  total_non_current_assets: "AssetsNoncurrent ifrs:NoncurrentAssets",
  total_assets: "Assets ifrs:Assets",
  accounts_payable:
    "AccountsPayableCurrent AccountsPayableTradeCurrent ifrs:TradeAndOtherCurrentPayablesToTradeSuppliers",
  accounts_payable_accrued_expense:
    "AccountsPayableAndAccruedLiabilitiesCurrent ifrs:TradeAndOtherCurrentPayables",
  bs_payables_and_accrued_expenses:
    "AccountsPayableAndAccruedLiabilitiesCurrent ifrs:TradeAndOtherCurrentPayables",
  current_accrued_expenses:
    "AccruedLiabilitiesCurrent ifrs:AccrualsClassifiedAsCurrent ifrs:CurrentAccruedExpensesAndOtherCurrentLiabilities",
  other_current_payables: "AccountsPayableOtherCurrent ifrs:OtherCurrentPayables",
  other_current_liabilities: "OtherLiabilitiesCurrent ifrs:OtherCurrentLiabilities",
  current_deferred_revenue:
    "ContractWithCustomerLiabilityCurrent DeferredRevenueCurrent ifrs:CurrentContractLiabilities ifrs:ContractLiabilities",
  current_deferred_taxes_liabilities: "DeferredTaxLiabilitiesCurrent",
  // Rules (xbrl-derived.ts) add the short-term borrowings these lines leave out.
  short_term_debt: "",
  short_term_capital_lease_obligation:
    "FinanceLeaseLiabilityCurrent CapitalLeaseObligationsCurrent ifrs:CurrentLeaseLiabilities",
  short_term_debt_and_capital_lease_obligation: "",
  total_current_liabilities: "LiabilitiesCurrent ifrs:CurrentLiabilities",
  // IFRS filers' non-current debt is the sum of its parts (xbrl-derived.ts).
  long_term_debt: "LongTermDebtNoncurrent LongTermNotesPayable ConvertibleDebtNoncurrent",
  long_term_capital_lease_obligation:
    "FinanceLeaseLiabilityNoncurrent CapitalLeaseObligationsNoncurrent ifrs:NoncurrentLeaseLiabilities",
  long_term_debt_and_capital_lease_obligation: "LongTermDebtAndCapitalLeaseObligations",
  non_current_deferred_income_tax:
    "DeferredIncomeTaxLiabilitiesNet DeferredTaxLiabilitiesNoncurrent ifrs:DeferredTaxLiabilities",
  non_current_deferred_revenue: "ContractWithCustomerLiabilityNoncurrent DeferredRevenueNoncurrent",
  non_current_deferred_liabilities: "",
  other_long_term_liabilities: "OtherLiabilitiesNoncurrent ifrs:OtherNoncurrentLiabilities",
  total_non_current_liabilities_net_minority_interest: "LiabilitiesNoncurrent ifrs:NoncurrentLiabilities",
  total_liabilities: "Liabilities ifrs:Liabilities",
  common_stock: "CommonStockValue CommonStocksIncludingAdditionalPaidInCapital ifrs:IssuedCapital",
  preferred_stock: "PreferredStockValue",
  additional_paid_in_capital:
    "AdditionalPaidInCapital AdditionalPaidInCapitalCommonStock ifrs:AdditionalPaidinCapital",
  retained_earnings: "RetainedEarningsAccumulatedDeficit ifrs:RetainedEarnings",
  accumulated_other_comprehensive_income: "AccumulatedOtherComprehensiveIncomeLossNetOfTax",
  treasury_stock: "TreasuryStockValue TreasuryStockCommonValue ifrs:TreasuryShares",
  other_equity: "ifrs:OtherEquityInterest",
  total_stockholders_equity: "StockholdersEquity ifrs:EquityAttributableToOwnersOfParent",
  minority_interest: "MinorityInterest ifrs:NoncontrollingInterests",
  total_equity: "StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest ifrs:Equity",
  debt_to_equity: "",
  equity_to_asset: "",
};

const CASH_FLOW: Record<CashFlowField, string> = {
  net_income_from_continuing_operations:
    "IncomeLossFromContinuingOperations ProfitLoss NetIncomeLoss ifrs:ProfitLossFromContinuingOperations ifrs:ProfitLoss",
  // DepreciationAmortizationAndAccretionNet exists only as a cash-flow line; a filer that tags
  // it may tag DepreciationDepletionAndAmortization in a note for the same year, rounded or
  // for property alone (Apple FY2015: 11.257e9 on the statement, 9.2e9 in a note, same filing).
  cash_flow_depreciation_depletion_amortization:
    "DepreciationAmortizationAndAccretionNet DepreciationDepletionAndAmortization DepreciationAndAmortization ifrs:AdjustmentsForDepreciationAndAmortisationExpense",
  stock_based_compensation:
    // The expense of the notes is another measure (it includes capitalized amounts, rounded):
    // Alphabet's 2025 is 27.1B there against 24,953M on the cash-flow line.
    "ShareBasedCompensation ifrs:AdjustmentsForSharebasedPayments ~AllocatedShareBasedCompensationExpense",
  asset_impairment_charge: "AssetImpairmentCharges ImpairmentOfLongLivedAssetsHeldForUse",
  cash_flow_deferred_tax: "DeferredIncomeTaxExpenseBenefit DeferredIncomeTaxesAndTaxCredits",
  change_in_receivables:
    "-IncreaseDecreaseInAccountsReceivable -IncreaseDecreaseInReceivables ifrs:AdjustmentsForDecreaseIncreaseInTradeAccountReceivable",
  change_in_inventory: "-IncreaseDecreaseInInventories ifrs:AdjustmentsForDecreaseIncreaseInInventories",
  change_in_payables_and_accrued_expense:
    "IncreaseDecreaseInAccountsPayableAndAccruedLiabilities IncreaseDecreaseInAccountsPayable ifrs:AdjustmentsForIncreaseDecreaseInTradeAndOtherPayables ifrs:AdjustmentsForIncreaseDecreaseInTradeAccountPayable",
  change_in_prepaid_assets:
    "-IncreaseDecreaseInPrepaidDeferredExpenseAndOtherAssets -IncreaseDecreaseInPrepaidExpense",
  change_in_other_working_capital: "-IncreaseDecreaseInOtherOperatingCapitalNet",
  change_in_working_capital: "-IncreaseDecreaseInOperatingCapital",
  other_cash_receipts_from_operating_activities: "ifrs:OtherCashReceiptsFromOperatingActivities",
  other_cash_payments_from_operating_activities: "-ifrs:OtherCashPaymentsFromOperatingActivities",
  cash_flow_from_others:
    "-OtherNoncashIncomeExpense OtherNoncashExpense ifrs:OtherAdjustmentsForNoncashItems",
  cash_flow_from_operations:
    "NetCashProvidedByUsedInOperatingActivities NetCashProvidedByUsedInOperatingActivitiesContinuingOperations ifrs:CashFlowsFromUsedInOperatingActivities ifrs:CashFlowsFromUsedInOperations",
  purchase_of_ppe:
    "-PaymentsToAcquirePropertyPlantAndEquipment -PaymentsToAcquireProductiveAssets -ifrs:PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities",
  sale_of_ppe:
    "ProceedsFromSaleOfPropertyPlantAndEquipment ProceedsFromSaleOfProductiveAssets ifrs:ProceedsFromSalesOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities",
  cash_flow_capital_expenditure:
    "-PaymentsToAcquirePropertyPlantAndEquipment -PaymentsToAcquireProductiveAssets -ifrs:PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities",
  purchase_of_investment:
    "-PaymentsToAcquireInvestments -PaymentsToAcquireAvailableForSaleSecuritiesDebt -PaymentsToAcquireMarketableSecurities -PaymentsToAcquireAvailableForSaleSecurities -ifrs:PurchaseOfFinancialInstrumentsClassifiedAsInvestingActivities",
  sale_of_investment:
    "ProceedsFromSaleMaturityAndCollectionsOfInvestments ProceedsFromSaleAndMaturityOfMarketableSecurities ProceedsFromMaturitiesPrepaymentsAndCallsOfAvailableForSaleSecurities ifrs:ProceedsFromSalesOfInvestmentsOtherThanInvestmentsAccountedForUsingEquityMethod",
  net_intangibles_purchase_and_sale:
    "-PaymentsToAcquireIntangibleAssets -ifrs:PurchaseOfIntangibleAssetsClassifiedAsInvestingActivities",
  purchase_of_business:
    "-PaymentsToAcquireBusinessesNetOfCashAcquired -PaymentsToAcquireBusinessesGross -ifrs:CashFlowsUsedInObtainingControlOfSubsidiariesOrOtherBusinessesClassifiedAsInvestingActivities",
  sale_of_business:
    "ProceedsFromDivestitureOfBusinessesNetOfCashDivested ProceedsFromDivestitureOfBusinesses ifrs:CashFlowsFromLosingControlOfSubsidiariesOrOtherBusinessesClassifiedAsInvestingActivities",
  cash_from_other_investing_activities:
    "-PaymentsForProceedsFromOtherInvestingActivities ifrs:OtherInflowsOutflowsOfCashClassifiedAsInvestingActivities",
  cash_flow_from_investing:
    "NetCashProvidedByUsedInInvestingActivities NetCashProvidedByUsedInInvestingActivitiesContinuingOperations ifrs:CashFlowsFromUsedInInvestingActivities",
  debt_issuance:
    "ProceedsFromIssuanceOfDebt ProceedsFromDebtNetOfIssuanceCosts ProceedsFromIssuanceOfLongTermDebt ProceedsFromConvertibleDebt ifrs:ProceedsFromBorrowingsClassifiedAsFinancingActivities ifrs:ProceedsFromNoncurrentBorrowings ifrs:ProceedsFromIssueOfBondsNotesAndDebentures",
  debt_payments:
    "-RepaymentsOfDebt -RepaymentsOfLongTermDebt -RepaymentsOfDebtAndCapitalLeaseObligations -RepaymentsOfConvertibleDebt -ifrs:RepaymentsOfBorrowingsClassifiedAsFinancingActivities -ifrs:RepaymentsOfNoncurrentBorrowings -ifrs:RepaymentsOfBondsNotesAndDebentures",
  net_issuance_of_debt: "ProceedsFromRepaymentsOfDebt",
  issuance_of_stock:
    "ProceedsFromIssuanceOfCommonStock ProceedsFromIssuanceOrSaleOfEquity ifrs:ProceedsFromIssuingShares",
  repurchase_of_stock:
    "-PaymentsForRepurchaseOfCommonStock -PaymentsForRepurchaseOfEquity -ifrs:PaymentsToAcquireOrRedeemEntitysShares -ifrs:PurchaseOfTreasuryShares",
  net_issuance_of_preferred: "ProceedsFromIssuanceOfPreferredStockAndPreferenceStock",
  dividends_paid_direct:
    "-PaymentsOfDividends -PaymentsOfDividendsCommonStock -ifrs:DividendsPaidClassifiedAsFinancingActivities -ifrs:DividendsPaid",
  dividends:
    "-PaymentsOfDividends -PaymentsOfDividendsCommonStock -ifrs:DividendsPaidClassifiedAsFinancingActivities -ifrs:DividendsPaid",
  other_financing:
    "ProceedsFromPaymentsForOtherFinancingActivities ifrs:OtherInflowsOutflowsOfCashClassifiedAsFinancingActivities",
  cash_from_financing:
    "NetCashProvidedByUsedInFinancingActivities NetCashProvidedByUsedInFinancingActivitiesContinuingOperations ifrs:CashFlowsFromUsedInFinancingActivities",
  effect_of_exchange_rate_changes:
    "EffectOfExchangeRateOnCashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents EffectOfExchangeRateOnCashAndCashEquivalents ifrs:EffectOfExchangeRateChangesOnCashAndCashEquivalents",
  net_change_in_cash:
    "CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseIncludingExchangeRateEffect CashAndCashEquivalentsPeriodIncreaseDecrease ifrs:IncreaseDecreaseInCashAndCashEquivalents",
  beginning_cash_position:
    "CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents CashAndCashEquivalentsAtCarryingValue ifrs:CashAndCashEquivalents",
  ending_cash_position:
    "CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents CashAndCashEquivalentsAtCarryingValue ifrs:CashAndCashEquivalents",
  total_free_cash_flow: "",
  // Funds from operations, a REIT's measure, has no us-gaap or ifrs-full concept: a rule
  // computes it (xbrl-derived.ts).
  ffo: "",
};

const INCOME_STATEMENT: Record<IncomeStatementField, string> = {
  // The income statement's total line first: where a filer tags both, contract revenue is a
  // part of it (a payment network's gross revenue before incentives, an insurer's revenue
  // without premiums, an oil major's sales without its other income). Utilities' regulated and
  // unregulated revenue and banks' net revenue close the list (a filer that tags one tags no
  // other total); a bank's revenue is then the derivation rules' choice (xbrl-derived.ts),
  // which also replaces a contract-revenue concept covering its fees alone.
  revenue:
    "Revenues RevenueFromContractWithCustomerExcludingAssessedTax SalesRevenueNet RevenueFromContractWithCustomerIncludingAssessedTax SalesRevenueGoodsNet RegulatedAndUnregulatedOperatingRevenue RevenuesNetOfInterestExpense ifrs:Revenue ifrs:RevenueFromContractsWithCustomers",
  cost_of_revenue: "CostOfRevenue CostOfGoodsAndServicesSold CostOfGoodsSold ifrs:CostOfSales",
  gross_profit: "GrossProfit ifrs:GrossProfit",
  research_and_development:
    "ResearchAndDevelopmentExpense ResearchAndDevelopmentExpenseExcludingAcquiredInProcessCost ifrs:ResearchAndDevelopmentExpense",
  selling_general_and_administrative:
    "SellingGeneralAndAdministrativeExpense ifrs:SellingGeneralAndAdministrativeExpense",
  operating_expense: "OperatingExpenses ifrs:OperatingExpenseExcludingCostOfSales ifrs:OperatingExpense",
  operating_income: "OperatingIncomeLoss ifrs:ProfitLossFromOperatingActivities",
  interest_expense:
    "InterestExpense InterestExpenseNonoperating InterestExpenseDebt ifrs:InterestExpense ifrs:FinanceCosts",
  interest_income: "InvestmentIncomeInterest InvestmentIncomeInterestAndDividend ifrs:FinanceIncome",
  pretax_income:
    "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments ifrs:ProfitLossBeforeTax",
  tax_provision: "IncomeTaxExpenseBenefit ifrs:IncomeTaxExpenseContinuingOperations",
  // Attributable to the parent. The consolidated profit (noncontrolling interests included)
  // measures something else: only for a period without the parent's figure, and the period
  // says so (statements.ts, notes).
  net_income: "NetIncomeLoss ifrs:ProfitLossAttributableToOwnersOfParent ~ProfitLoss ~ifrs:ProfitLoss",
  net_income_common_stockholders:
    "NetIncomeLossAvailableToCommonStockholdersBasic ifrs:ProfitLossAttributableToOrdinaryEquityHoldersOfParentEntity",
  basic_eps: "EarningsPerShareBasic EarningsPerShareBasicAndDiluted ifrs:BasicEarningsLossPerShare",
  diluted_eps: "EarningsPerShareDiluted EarningsPerShareBasicAndDiluted ifrs:DilutedEarningsLossPerShare",
  basic_average_shares:
    "WeightedAverageNumberOfSharesOutstandingBasic WeightedAverageNumberOfShareOutstandingBasicAndDiluted ifrs:WeightedAverageShares",
  diluted_average_shares:
    "WeightedAverageNumberOfDilutedSharesOutstanding WeightedAverageNumberOfShareOutstandingBasicAndDiluted ifrs:AdjustedWeightedAverageShares",
  ebit: "",
  ebitda: "",
  // Not DepreciationAmortizationAndAccretionNet: its accretion (asset retirement obligations,
  // discounts on securities) is not D&A expense, which EBITDA adds back.
  depreciation_and_amortization:
    "DepreciationDepletionAndAmortization DepreciationAndAmortization ifrs:DepreciationAndAmortisationExpense",
};

const AUX: Record<AuxField, string> = {
  aux_liabilities_and_equity: "LiabilitiesAndStockholdersEquity ifrs:EquityAndLiabilities",
  aux_debt_current: "DebtCurrent",
  aux_current_debt_and_leases: "LongTermDebtAndCapitalLeaseObligationsCurrent",
  aux_short_term_borrowings: "ShortTermBorrowings CommercialPaper ifrs:ShorttermBorrowings",
  aux_current_portion_long_term_debt:
    "LongTermDebtCurrent ConvertibleDebtCurrent ifrs:CurrentPortionOfLongtermBorrowings",
  aux_long_term_debt_including_current: "LongTermDebt",
  // The parts of an IFRS filer's non-current debt, and its total borrowings (xbrl-derived.ts).
  aux_ifrs_long_term_borrowings: "ifrs:LongtermBorrowings",
  aux_ifrs_noncurrent_bonds: "ifrs:NoncurrentPortionOfNoncurrentBondsIssued",
  aux_ifrs_borrowings: "ifrs:Borrowings",
  // The parts of D&A, for filers that tag no combined concept (xbrl-derived.ts).
  aux_depreciation: "Depreciation ifrs:DepreciationExpense",
  aux_amortization: "AmortizationOfIntangibleAssets ifrs:AmortisationExpense",
  // Commercial paper and other short-term debt, shown net on one cash-flow line.
  aux_net_short_term_debt:
    "ProceedsFromRepaymentsOfCommercialPaper ProceedsFromRepaymentsOfShortTermDebt ifrs:CashFlowsFromUsedInIncreaseDecreaseInCurrentBorrowings",
  aux_selling_and_marketing: "SellingAndMarketingExpense ifrs:SalesAndMarketingExpense ifrs:SellingExpense",
  aux_general_and_administrative:
    "GeneralAndAdministrativeExpense ifrs:GeneralAndAdministrativeExpense ifrs:AdministrativeExpense",
  // A bank's revenue (xbrl-derived.ts): the sum of the two parts, else its net revenue total.
  aux_net_interest_income: "InterestIncomeExpenseNet",
  aux_noninterest_income: "NoninterestIncome",
  aux_bank_revenue: "Revenues RevenuesNetOfInterestExpense",
  // What a REIT's funds from operations take out of its net income (xbrl-derived.ts): gains on
  // selling property (a loss is negative) and write-downs of real estate.
  aux_property_sale_gain:
    "GainsLossesOnSalesOfInvestmentRealEstate GainLossOnSaleOfProperties GainLossOnSaleOfPropertiesNetOfApplicableIncomeTaxes GainLossOnDispositionOfAssets1",
  aux_real_estate_impairment: "ImpairmentOfRealEstate",
};

const PER_SHARE_FIELDS: ReadonlySet<string> = new Set(["basic_eps", "diluted_eps"]);
const SHARE_FIELDS: ReadonlySet<string> = new Set(["basic_average_shares", "diluted_average_shares"]);
const INSTANT_AUX: ReadonlySet<string> = new Set([
  "aux_liabilities_and_equity",
  "aux_debt_current",
  "aux_current_debt_and_leases",
  "aux_short_term_borrowings",
  "aux_current_portion_long_term_debt",
  "aux_long_term_debt_including_current",
  "aux_ifrs_long_term_borrowings",
  "aux_ifrs_noncurrent_bonds",
  "aux_ifrs_borrowings",
]);

/** Parses one priority list (see the file comment for the token syntax). */
function parseConceptList(list: string): ConceptRef[] {
  return list
    .split(" ")
    .filter((token) => token !== "")
    .map((token) => {
      const fallback = token.startsWith("~");
      const signed = fallback ? token.slice(1) : token;
      const sign = signed.startsWith("-") ? -1 : 1;
      const bare = sign === -1 ? signed.slice(1) : signed;
      return bare.startsWith("ifrs:")
        ? { taxonomy: "ifrs-full", name: bare.slice(5), sign, fallback }
        : { taxonomy: "us-gaap", name: bare, sign, fallback };
    });
}

function timingOf(statement: StatementKind | "aux", field: string): FieldTiming {
  if (field === "beginning_cash_position") return "opening";
  if (statement === "balance_sheet" || field === "ending_cash_position" || INSTANT_AUX.has(field)) {
    return "instant";
  }
  return "duration";
}

function rowsOf(statement: StatementKind | "aux", table: Record<string, string>): FieldMapping[] {
  return Object.entries(table).map(([field, list]) => {
    const unit: FieldUnit = PER_SHARE_FIELDS.has(field)
      ? "per_share"
      : SHARE_FIELDS.has(field)
        ? "shares"
        : "money";
    return {
      statement,
      field,
      unit,
      timing: timingOf(statement, field),
      additive: unit === "money",
      concepts: parseConceptList(list),
    };
  });
}

/** The mapping table: every statement field (and helper line) with its concept priority list. */
export const FIELD_MAPPINGS: readonly FieldMapping[] = [
  ...rowsOf("balance_sheet", BALANCE_SHEET),
  ...rowsOf("cash_flow_statement", CASH_FLOW),
  ...rowsOf("income_statement", INCOME_STATEMENT),
  ...rowsOf("aux", AUX),
];

/** What a fallback concept measures, where that differs from the field's own concepts. */
const FALLBACK_MEANING: Readonly<Record<string, string>> = {
  ProfitLoss: "consolidated net income, including noncontrolling interests",
  "ifrs:ProfitLoss": "consolidated profit, including non-controlling interests",
  AllocatedShareBasedCompensationExpense: "the expense of the notes, which may include capitalized amounts",
};

/** A statement period's note on a field filled by a fallback concept (as the mapping table names it). */
export function fallbackNote(field: string, concept: string): string {
  const meaning = FALLBACK_MEANING[concept];
  const measure = meaning === undefined ? "" : `: ${meaning}`;
  return `${field} is ${concept}${measure}; the filer reports none of the field's own concepts for the period`;
}

/** Fields whose concepts establish the company's reporting currency (its revenue and assets). */
export const CURRENCY_FIELDS: readonly string[] = ["revenue", "total_assets"];
