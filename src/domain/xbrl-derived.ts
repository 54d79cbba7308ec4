/**
 * Statement fields computed from other fields when the filer does not report them. Each
 * rule fills its field only when no concept of the mapping table did (a rule marked
 * `replaces` decides the field whatever was reported: a bank's revenue), and runs in the order
 * listed, so later rules see earlier results (gross profit before operating expense, EBIT
 * before EBITDA). Rules run on each period's values, including TTM periods, whose flows are
 * sums of quarters; a ratio is therefore the ratio of the TTM sums, not a sum of ratios.
 * Signs follow `xbrl-mapping.ts`: capital expenditure and debt repayments are negative.
 */
import { decimalSum, difference, ratioOverPositive, sumPresent } from "./ratios.ts";

/** Reads a field of the same period (statement fields and aux helper lines alike). */
export type FieldReader = (field: string) => number | null;

/** What a rule may know of the company beyond the period it fills. */
export interface CompanyTraits {
  /** Whether the company reports a minority interest other than 0 in any period. */
  reportsMinorityInterest: boolean;
  /**
   * A bank: it reports net interest income and noninterest income (the two halves of its
   * revenue) in some period. Net interest income alone is no sign: many other companies tag
   * their net interest expense with the same concept.
   */
  isBank: boolean;
  /** A real estate investment trust: its SIC code is 6798 (submissions, listed-filer metadata). */
  isReit: boolean;
  /**
   * The period's fiscal year reports a D&A line smaller than its amortization of intangibles:
   * the line leaves that amortization out (Marvell's FY2023: 304.9M and 1,087.4M). Decided on
   * the year, so that one quarter's mistagged amortization (NVIDIA restated a 143M quarter as
   * 518M) decides nothing.
   */
  daWithoutAmortization: boolean;
}

/** One derivation: `field` = `compute(...)`, described in words by `rule`. */
export interface DerivedRule {
  field: string;
  rule: string;
  compute: (get: FieldReader, company: CompanyTraits) => number | null;
  /** The rule decides the field, null included, whatever was reported (else it only fills a gap). */
  replaces?: boolean;
}

const sumBoth = (a: number | null, b: number | null): number | null =>
  a === null || b === null ? null : a + b;

/** Short-term + long-term debt including finance leases; null when neither side is known. */
function totalDebt(get: FieldReader): number | null {
  const short = get("short_term_debt_and_capital_lease_obligation") ?? get("short_term_debt");
  const long = get("long_term_debt_and_capital_lease_obligation") ?? get("long_term_debt");
  return sumPresent(short, long);
}

/**
 * The current debt line plus short-term borrowings it cannot include: null without the line,
 * the line alone when the borrowings may be in it.
 */
function withBorrowingsApart(
  debtCurrent: number | null,
  borrowings: number | null,
  currentMaturities: number | null,
): number | null {
  if (debtCurrent === null) return null;
  if (borrowings === null || borrowings === 0 || borrowings === currentMaturities) return debtCurrent;
  const onlyMaturities =
    currentMaturities !== null && Math.abs(debtCurrent - currentMaturities) <= Math.abs(debtCurrent) * 1e-3;
  return borrowings > debtCurrent || onlyMaturities ? debtCurrent + borrowings : debtCurrent;
}

/** The derivation rules, in evaluation order. */
const DERIVED_RULES: readonly DerivedRule[] = [
  // Income statement.
  {
    field: "revenue",
    rule: "a bank's (a company that reports InterestIncomeExpenseNet and NoninterestIncome) net revenue, in every period that shows a bank line: the sum of those two, else Revenues or RevenuesNetOfInterestExpense, else none; never a contract-revenue concept, which at a bank covers its fees alone. Anyone else's, and a bank's period without a bank line, as reported",
    replaces: true,
    compute: (g, company) => {
      const parts = [g("aux_net_interest_income"), g("aux_noninterest_income"), g("aux_bank_revenue")];
      if (!company.isBank || parts.every((v) => v === null)) return g("revenue");
      return sumBoth(g("aux_net_interest_income"), g("aux_noninterest_income")) ?? g("aux_bank_revenue");
    },
  },
  {
    field: "gross_profit",
    rule: "revenue − cost_of_revenue",
    compute: (g) => difference(g("revenue"), g("cost_of_revenue")),
  },
  {
    field: "cost_of_revenue",
    rule: "revenue − gross_profit",
    compute: (g) => difference(g("revenue"), g("gross_profit")),
  },
  {
    field: "selling_general_and_administrative",
    rule: "selling and marketing + general and administrative, when both are reported",
    compute: (g) => sumBoth(g("aux_selling_and_marketing"), g("aux_general_and_administrative")),
  },
  {
    field: "operating_expense",
    rule: "gross_profit − operating_income",
    compute: (g) => difference(g("gross_profit"), g("operating_income")),
  },
  {
    field: "net_income_common_stockholders",
    rule: "net_income (a filer that reports no amount available to common has no preferred claims to deduct)",
    compute: (g) => g("net_income"),
  },
  {
    field: "ebit",
    rule: "operating_income; without one, a bank's pretax_income (its net revenue is after interest expense), anyone else's (insurers) pretax_income + interest_expense",
    compute: (g, company) =>
      g("operating_income") ??
      (company.isBank ? g("pretax_income") : sumBoth(g("pretax_income"), g("interest_expense"))),
  },
  {
    field: "cash_flow_depreciation_depletion_amortization",
    rule: "Depreciation + AmortizationOfIntangibleAssets (ifrs-full: DepreciationExpense + AmortisationExpense) when no combined concept is tagged; depreciation alone without amortization",
    compute: (g) => {
      const depreciation = g("aux_depreciation");
      return depreciation === null ? null : sumPresent(depreciation, g("aux_amortization"));
    },
  },
  ...(["cash_flow_depreciation_depletion_amortization", "depreciation_and_amortization"] as const).map(
    (field): DerivedRule => ({
      // A D&A line smaller than the amortization of intangibles cannot include it: it is
      // the depreciation of property with the acquired intangibles amortized on a line of
      // their own.
      field,
      rule: "as reported, plus AmortizationOfIntangibleAssets in a fiscal year whose annual D&A line is smaller than that amortization (so cannot include it)",
      replaces: true,
      compute: (g, company) => {
        const reported = g(field);
        const amortization = g("aux_amortization");
        return company.daWithoutAmortization && reported !== null && amortization !== null
          ? decimalSum([reported, amortization])
          : reported;
      },
    }),
  ),
  {
    field: "depreciation_and_amortization",
    rule: "the cash-flow add-back (few filers show D&A as an income-statement line)",
    compute: (g) => g("cash_flow_depreciation_depletion_amortization"),
  },
  {
    field: "ebitda",
    rule: "ebit + depreciation_and_amortization",
    compute: (g) => sumBoth(g("ebit"), g("depreciation_and_amortization")),
  },
  // Balance sheet.
  {
    field: "total_equity",
    rule: "total_stockholders_equity + minority_interest (none reported counts as 0)",
    compute: (g) => {
      const equity = g("total_stockholders_equity");
      return equity === null ? null : equity + (g("minority_interest") ?? 0);
    },
  },
  {
    field: "total_stockholders_equity",
    rule: "total_equity − minority_interest; none reported counts as 0 only for a company that reports no minority interest other than 0 in any period (else its total equity may include one: Logistic Properties of the Americas, 2020-2021)",
    compute: (g, company) => {
      const equity = g("total_equity");
      const minority = g("minority_interest") ?? (company.reportsMinorityInterest ? null : 0);
      return equity === null || minority === null ? null : equity - minority;
    },
  },
  {
    field: "total_liabilities",
    rule: "total liabilities and equity − total_equity",
    compute: (g) => difference(g("aux_liabilities_and_equity"), g("total_equity")),
  },
  {
    field: "total_non_current_assets",
    rule: "total_assets − total_current_assets",
    compute: (g) => difference(g("total_assets"), g("total_current_assets")),
  },
  {
    field: "total_non_current_liabilities_net_minority_interest",
    rule: "total_liabilities − total_current_liabilities",
    compute: (g) => difference(g("total_liabilities"), g("total_current_liabilities")),
  },
  {
    field: "net_ppe",
    rule: "gross_ppe − accumulated_depreciation",
    compute: (g) => difference(g("gross_ppe"), g("accumulated_depreciation")),
  },
  {
    field: "gross_ppe",
    rule: "net_ppe + accumulated_depreciation",
    compute: (g) => sumBoth(g("net_ppe"), g("accumulated_depreciation")),
  },
  {
    field: "total_receivables",
    rule: "accounts_receivable + notes_receivable + other_current_receivables (absent parts count as 0; accounts receivable required)",
    compute: (g) => {
      const ar = g("accounts_receivable");
      return ar === null ? null : ar + (g("notes_receivable") ?? 0) + (g("other_current_receivables") ?? 0);
    },
  },
  {
    field: "cash_equivalents_marketable_securities",
    rule: "cash_and_cash_equivalents + marketable_securities, when both are reported",
    compute: (g) => sumBoth(g("cash_and_cash_equivalents"), g("marketable_securities")),
  },
  {
    // The two concepts on one line (Marvell tags its 499.8M current debt with both) are one
    // amount: equal values count once. DebtCurrent is the whole current debt by definition, but
    // filers that tag commercial paper or other short-term borrowings on a line of their own
    // often tag only the current maturities of long-term debt with it: where those borrowings
    // exceed it, or it equals the current maturities, it cannot include them.
    field: "short_term_debt",
    replaces: true,
    rule: "DebtCurrent, plus short-term borrowings (or commercial paper) tagged apart when DebtCurrent cannot include them (they exceed it, or it equals the current portion of long-term debt); without DebtCurrent, short-term borrowings + current portion of long-term debt, whichever are reported, once when both are the same amount",
    compute: (g) => {
      const borrowings = g("aux_short_term_borrowings");
      const current = g("aux_current_portion_long_term_debt");
      const parts = borrowings === current ? borrowings : sumPresent(borrowings, current);
      return withBorrowingsApart(g("aux_debt_current"), borrowings, current) ?? parts;
    },
  },
  {
    // IFRS filers show bonds and loans on lines of their own (TSM: NT$927 billion of bonds
    // beside NT$32 billion of long-term bank loans). "Long-term borrowings" is the non-current
    // line for some (TSM) and all long-term debt including its current portion for others
    // (LPA: 265.9M = 253.2M non-current + 12.6M current): when it and the current portion add
    // up to more than all borrowings, the current portion is in it and comes out.
    field: "long_term_debt",
    rule: "IFRS: long-term borrowings (less their current portion when both together exceed total borrowings) + non-current bonds issued, whichever are reported",
    compute: (g) => {
      const loans = g("aux_ifrs_long_term_borrowings");
      const current = g("aux_current_portion_long_term_debt");
      const total = g("aux_ifrs_borrowings");
      const includesCurrent =
        loans !== null && current !== null && total !== null && loans + current > total * 1.001;
      const noncurrentLoans = loans === null ? null : loans - (includesCurrent ? (current as number) : 0);
      return sumPresent(noncurrentLoans, g("aux_ifrs_noncurrent_bonds"));
    },
  },
  {
    // Filers that tag no non-current debt concept often report LongTermDebt, which the
    // taxonomy defines as including current maturities (Tesla tags its non-current debt so
    // and its current debt as DebtCurrent; Apple and NVIDIA had no current maturities then).
    // A result above the reported debt including finance leases cannot be the non-current
    // debt alone (Alphabet's LongTermDebt is another measure): then the field stays null.
    field: "long_term_debt",
    rule: "LongTermDebt − current portion of long-term debt (0 when not reported); null when negative or above long_term_debt_and_capital_lease_obligation as reported",
    compute: (g) => {
      const total = g("aux_long_term_debt_including_current");
      if (total === null) return null;
      const value = total - (g("aux_current_portion_long_term_debt") ?? 0);
      const withLeases = g("long_term_debt_and_capital_lease_obligation");
      return value < 0 || (withLeases !== null && value > withLeases) ? null : value;
    },
  },
  {
    // The concept is the current part of long-term debt and leases: commercial paper and other
    // short-term borrowings tagged apart are never in it.
    field: "short_term_debt_and_capital_lease_obligation",
    replaces: true,
    rule: "LongTermDebtAndCapitalLeaseObligationsCurrent + short-term borrowings (or commercial paper) tagged apart; without it, short_term_debt + short_term_capital_lease_obligation, whichever are reported",
    compute: (g) => {
      const reported = g("aux_current_debt_and_leases");
      if (reported === null)
        return sumPresent(g("short_term_debt"), g("short_term_capital_lease_obligation"));
      const borrowings = g("aux_short_term_borrowings");
      const apart =
        borrowings !== null &&
        borrowings !== reported &&
        borrowings !== g("aux_current_portion_long_term_debt");
      return apart ? reported + borrowings : reported;
    },
  },
  {
    field: "long_term_debt_and_capital_lease_obligation",
    rule: "long_term_debt + long_term_capital_lease_obligation, whichever are reported",
    compute: (g) => sumPresent(g("long_term_debt"), g("long_term_capital_lease_obligation")),
  },
  {
    field: "accounts_payable_accrued_expense",
    rule: "accounts_payable + current_accrued_expenses, when both are reported",
    compute: (g) => sumBoth(g("accounts_payable"), g("current_accrued_expenses")),
  },
  {
    field: "bs_payables_and_accrued_expenses",
    rule: "accounts_payable + current_accrued_expenses, when both are reported",
    compute: (g) => sumBoth(g("accounts_payable"), g("current_accrued_expenses")),
  },
  {
    field: "non_current_deferred_liabilities",
    rule: "non_current_deferred_income_tax + non_current_deferred_revenue, whichever are reported",
    compute: (g) => sumPresent(g("non_current_deferred_income_tax"), g("non_current_deferred_revenue")),
  },
  {
    field: "debt_to_equity",
    rule: "(short-term + long-term debt incl. finance leases) / total_stockholders_equity; null when equity ≤ 0 or no debt line is reported",
    compute: (g) => ratioOverPositive(totalDebt(g), g("total_stockholders_equity")),
  },
  {
    field: "equity_to_asset",
    rule: "total_stockholders_equity / total_assets",
    compute: (g) => ratioOverPositive(g("total_stockholders_equity"), g("total_assets")),
  },
  // Cash-flow statement.
  {
    field: "total_free_cash_flow",
    rule: "cash_flow_from_operations + cash_flow_capital_expenditure (capex is negative, so CFO − |capex|)",
    compute: (g) => sumBoth(g("cash_flow_from_operations"), g("cash_flow_capital_expenditure")),
  },
  {
    field: "ffo",
    rule: "REITs only (SIC 6798), NAREIT's definition approximated (all D&A added back): net_income + cash_flow_depreciation_depletion_amortization + impairment of real estate (else asset_impairment_charge) − gains on property sales (a loss adds back); absent impairment or gains count as 0",
    compute: (g, company) => {
      if (!company.isReit) return null;
      const base = sumBoth(g("net_income"), g("cash_flow_depreciation_depletion_amortization"));
      if (base === null) return null;
      const impairment = g("aux_real_estate_impairment") ?? g("asset_impairment_charge") ?? 0;
      return base + impairment - (g("aux_property_sale_gain") ?? 0);
    },
  },
  {
    field: "net_issuance_of_debt",
    rule: "debt_issuance + debt_payments (payments are negative) + net short-term debt (commercial paper), whichever are reported",
    compute: (g) => sumPresent(g("debt_issuance"), g("debt_payments"), g("aux_net_short_term_debt")),
  },
  {
    field: "net_change_in_cash",
    rule: "operating + investing + financing cash flows + exchange-rate effect (absent effect counts as 0)",
    compute: (g) => {
      const three = sumBoth(
        sumBoth(g("cash_flow_from_operations"), g("cash_flow_from_investing")),
        g("cash_from_financing"),
      );
      return three === null ? null : three + (g("effect_of_exchange_rate_changes") ?? 0);
    },
  },
];

/** Fills every still-null field that a rule can compute, in rule order. */
export function applyDerivedRules(values: Map<string, number | null>, company: CompanyTraits): void {
  const get: FieldReader = (field) => values.get(field) ?? null;
  for (const { field, compute, replaces } of DERIVED_RULES) {
    if (get(field) !== null && !replaces) continue;
    const value = compute(get, company);
    if (value !== null && Number.isFinite(value)) values.set(field, value);
    else if (replaces) values.set(field, null);
  }
}
