/**
 * Statement field lists and the period record shared by the importer (which computes
 * periods from XBRL facts) and the read side (which serves them). Field names are the
 * response field names of the balance-sheet and cash-flow periods (/openapi.json); the
 * income statement's are named in the same style.
 */

export const BALANCE_SHEET_FIELDS = [
  "cash_and_cash_equivalents",
  "cash_equivalents_marketable_securities",
  "marketable_securities",
  "accounts_receivable",
  "notes_receivable",
  "total_receivables",
  "other_current_receivables",
  "inventory",
  "raw_materials",
  "finished_goods",
  "other_inventories",
  "inventories_adjustments_allowances",
  "other_current_assets",
  "total_current_assets",
  "gross_ppe",
  "land_and_improvements",
  "buildings_and_improvements",
  "machinery_furniture_equipment",
  "construction_in_progress",
  "other_gross_ppe",
  "accumulated_depreciation",
  "net_ppe",
  "good_will",
  "intangibles",
  "investments_and_advances",
  "other_long_term_assets",
  "total_non_current_assets",
  "total_assets",
  "accounts_payable",
  "accounts_payable_accrued_expense",
  "bs_payables_and_accrued_expenses",
  "current_accrued_expenses",
  "other_current_payables",
  "other_current_liabilities",
  "current_deferred_revenue",
  "current_deferred_taxes_liabilities",
  "short_term_debt",
  "short_term_capital_lease_obligation",
  "short_term_debt_and_capital_lease_obligation",
  "total_current_liabilities",
  "long_term_debt",
  "long_term_capital_lease_obligation",
  "long_term_debt_and_capital_lease_obligation",
  "non_current_deferred_income_tax",
  "non_current_deferred_revenue",
  "non_current_deferred_liabilities",
  "other_long_term_liabilities",
  "total_non_current_liabilities_net_minority_interest",
  "total_liabilities",
  "common_stock",
  "preferred_stock",
  "additional_paid_in_capital",
  "retained_earnings",
  "accumulated_other_comprehensive_income",
  "treasury_stock",
  "other_equity",
  "total_stockholders_equity",
  "minority_interest",
  "total_equity",
  "debt_to_equity",
  "equity_to_asset",
] as const;

export const CASH_FLOW_FIELDS = [
  "net_income_from_continuing_operations",
  "cash_flow_depreciation_depletion_amortization",
  "stock_based_compensation",
  "asset_impairment_charge",
  "cash_flow_deferred_tax",
  "change_in_receivables",
  "change_in_inventory",
  "change_in_payables_and_accrued_expense",
  "change_in_prepaid_assets",
  "change_in_other_working_capital",
  "change_in_working_capital",
  "other_cash_receipts_from_operating_activities",
  "other_cash_payments_from_operating_activities",
  "cash_flow_from_others",
  "cash_flow_from_operations",
  "purchase_of_ppe",
  "sale_of_ppe",
  "cash_flow_capital_expenditure",
  "purchase_of_investment",
  "sale_of_investment",
  "net_intangibles_purchase_and_sale",
  "purchase_of_business",
  "sale_of_business",
  "cash_from_other_investing_activities",
  "cash_flow_from_investing",
  "debt_issuance",
  "debt_payments",
  "net_issuance_of_debt",
  "issuance_of_stock",
  "repurchase_of_stock",
  "net_issuance_of_preferred",
  "dividends_paid_direct",
  "dividends",
  "other_financing",
  "cash_from_financing",
  "effect_of_exchange_rate_changes",
  "net_change_in_cash",
  "beginning_cash_position",
  "ending_cash_position",
  "total_free_cash_flow",
  "ffo",
] as const;

export const INCOME_STATEMENT_FIELDS = [
  "revenue",
  "cost_of_revenue",
  "gross_profit",
  "research_and_development",
  "selling_general_and_administrative",
  "operating_expense",
  "operating_income",
  "interest_expense",
  "interest_income",
  "pretax_income",
  "tax_provision",
  "net_income",
  "net_income_common_stockholders",
  "basic_eps",
  "diluted_eps",
  "basic_average_shares",
  "diluted_average_shares",
  "ebit",
  "ebitda",
  "depreciation_and_amortization",
] as const;

export type BalanceSheetField = (typeof BALANCE_SHEET_FIELDS)[number];
export type CashFlowField = (typeof CASH_FLOW_FIELDS)[number];
export type IncomeStatementField = (typeof INCOME_STATEMENT_FIELDS)[number];

export type StatementKind = "balance_sheet" | "cash_flow_statement" | "income_statement";
export type PeriodType = "annual" | "quarterly" | "ttm";

export const STATEMENT_FIELDS = {
  balance_sheet: BALANCE_SHEET_FIELDS,
  cash_flow_statement: CASH_FLOW_FIELDS,
  income_statement: INCOME_STATEMENT_FIELDS,
} as const;

/**
 * One statement period of one company, as stored in the snapshot (one Parquet row).
 * `period_end` is served as `snapshot_date`. `first_filed` is the filing date of the first
 * filing that reported any value of this period (point-in-time availability); `last_filed`
 * the filing date of the latest (restated) value used.
 */
export interface StatementPeriod<F extends string = string> {
  cik: string;
  period_type: PeriodType;
  fiscal_year: number;
  fiscal_quarter: number | null;
  period_start: string | null;
  period_end: string;
  /** The filing that first reported the period, and the latest one whose values are used. */
  first_filed: string;
  first_accession: string;
  last_filed: string;
  last_accession: string;
  currency: string;
  /** Values not obtained the usual way, in words (a fallback concept); empty when none. */
  notes: string[];
  values: Record<F, number | null>;
}
