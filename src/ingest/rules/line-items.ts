/**
 * Derived line items shared by every derived table: EBIT, EBITDA, free cash flow, total
 * debt, invested capital, ... each with its fallback chain, so that one definition is used
 * everywhere (docs/methodology.md, "Common line items"). Cash-flow outflows are stored
 * negative; the amounts here that are named as spending are returned as magnitudes.
 */
import {
  difference,
  differencePresent,
  finiteOrNull,
  magnitude,
  ratio,
  sumPresent,
} from "../../domain/ratios.ts";
import type { BalanceValues, CashFlowValues, IncomeValues, StatementValues } from "./inputs.ts";

/** Statutory US federal rate used when the effective tax rate is not meaningful. */
const STATUTORY_TAX_RATE = 0.21;

/** A field of a statement as a finite number, else null (missing statement, field or NaN). */
export function fieldValue<F extends string>(
  values: StatementValues<F> | null | undefined,
  field: F,
): number | null {
  return finiteOrNull(values?.[field]);
}

/** EBIT, else operating income. */
export function ebitOf(income: IncomeValues | null): number | null {
  return fieldValue(income, "ebit") ?? fieldValue(income, "operating_income");
}

/** Depreciation and amortization: income statement, else the cash-flow add-back. */
function depreciationOf(income: IncomeValues | null, cash: CashFlowValues | null): number | null {
  return (
    fieldValue(income, "depreciation_and_amortization") ??
    fieldValue(cash, "cash_flow_depreciation_depletion_amortization")
  );
}

/** EBITDA, else EBIT + depreciation and amortization. */
export function ebitdaOf(income: IncomeValues | null, cash: CashFlowValues | null): number | null {
  const reported = fieldValue(income, "ebitda");
  if (reported !== null) return reported;
  const ebit = ebitOf(income);
  const da = depreciationOf(income, cash);
  return ebit === null || da === null ? null : ebit + da;
}

/** Gross profit, else revenue − cost of revenue. */
export function grossProfitOf(income: IncomeValues | null): number | null {
  return (
    fieldValue(income, "gross_profit") ??
    difference(fieldValue(income, "revenue"), fieldValue(income, "cost_of_revenue"))
  );
}

/** Capital expenditure as a positive amount: |capital expenditure|, else |purchase of PP&E|. */
export function capexOf(cash: CashFlowValues | null): number | null {
  return magnitude(fieldValue(cash, "cash_flow_capital_expenditure") ?? fieldValue(cash, "purchase_of_ppe"));
}

/** Free cash flow: reported total, else operating cash flow − capex. */
export function freeCashFlowOf(cash: CashFlowValues | null): number | null {
  return (
    fieldValue(cash, "total_free_cash_flow") ??
    difference(fieldValue(cash, "cash_flow_from_operations"), capexOf(cash))
  );
}

/** Share repurchases minus share issuance (a missing side counts as 0; both missing → null). */
export function netBuybacksOf(cash: CashFlowValues | null): number | null {
  return differencePresent(
    magnitude(fieldValue(cash, "repurchase_of_stock")),
    fieldValue(cash, "issuance_of_stock"),
  );
}

/** Dividends paid as a positive amount: direct dividends paid, else total dividends. */
export function dividendsPaidOf(cash: CashFlowValues | null): number | null {
  return magnitude(fieldValue(cash, "dividends_paid_direct") ?? fieldValue(cash, "dividends"));
}

/**
 * Total debt including finance leases: (short-term debt and lease obligation, else short-term
 * debt) + (long-term debt and lease obligation, else long-term debt); missing parts count as
 * 0 (a company without debt reports no debt tag). Null without a balance sheet.
 */
export function totalDebtOf(balance: BalanceValues | null): number | null {
  if (balance === null) return null;
  const short =
    fieldValue(balance, "short_term_debt_and_capital_lease_obligation") ??
    fieldValue(balance, "short_term_debt");
  const long =
    fieldValue(balance, "long_term_debt_and_capital_lease_obligation") ??
    fieldValue(balance, "long_term_debt");
  return (short ?? 0) + (long ?? 0);
}

/**
 * Cash, cash equivalents and short-term investments: the reported total, else cash plus the
 * short-term investments reported (none counts as 0); null when neither total nor cash is reported.
 */
export function totalCashOf(balance: BalanceValues | null): number | null {
  const cash = fieldValue(balance, "cash_and_cash_equivalents");
  return (
    fieldValue(balance, "cash_equivalents_marketable_securities") ??
    (cash === null ? null : cash + (fieldValue(balance, "marketable_securities") ?? 0))
  );
}

/**
 * Net debt = total debt − total cash (cash and short-term investments, which enterprise value
 * is usually net of: a company holding its cash in Treasury bills is not more indebted than
 * one holding deposits); null when cash is not reported.
 */
export function netDebtOf(balance: BalanceValues | null): number | null {
  return difference(totalDebtOf(balance), totalCashOf(balance));
}

/**
 * Claims other than common equity, net of cash (enterprise value − market cap):
 * net debt + minority interest + preferred stock (missing minority/preferred count as 0).
 */
export function netClaimsOf(balance: BalanceValues | null): number | null {
  const netDebt = netDebtOf(balance);
  if (netDebt === null) return null;
  return (
    netDebt +
    (sumPresent(fieldValue(balance, "minority_interest"), fieldValue(balance, "preferred_stock")) ?? 0)
  );
}

/** Invested capital = total debt + stockholders' equity − cash and short-term investments (net debt + equity); null when equity or cash is missing. */
export function investedCapitalOf(balance: BalanceValues | null): number | null {
  const netDebt = netDebtOf(balance);
  const equity = fieldValue(balance, "total_stockholders_equity");
  return netDebt === null || equity === null ? null : netDebt + equity;
}

/** Capital employed = total assets − total current liabilities. */
export function capitalEmployedOf(balance: BalanceValues | null): number | null {
  return difference(fieldValue(balance, "total_assets"), fieldValue(balance, "total_current_liabilities"));
}

/** Receivables: accounts receivable, else total receivables. */
export function receivablesOf(balance: BalanceValues | null): number | null {
  return fieldValue(balance, "accounts_receivable") ?? fieldValue(balance, "total_receivables");
}

/**
 * Effective tax rate = tax provision / pretax income clamped to [0, 1]; the statutory 21%
 * when pretax income is ≤ 0 or either figure is missing.
 */
export function effectiveTaxRateOf(income: IncomeValues | null): number {
  const pretax = fieldValue(income, "pretax_income");
  const rate = pretax !== null && pretax > 0 ? ratio(fieldValue(income, "tax_provision"), pretax) : null;
  return rate === null ? STATUTORY_TAX_RATE : Math.min(1, Math.max(0, rate));
}
