/**
 * Small builders for rule tests: statement periods with every field null except the
 * ones a test names, so each test states exactly the figures its hand computation uses.
 */

import { addDays } from "../../../src/domain/dates.ts";
import {
  BALANCE_SHEET_FIELDS,
  type BalanceSheetField,
  CASH_FLOW_FIELDS,
  type CashFlowField,
  INCOME_STATEMENT_FIELDS,
  type IncomeStatementField,
  type PeriodType,
  type StatementPeriod,
} from "../../../src/domain/statements.ts";
import type { SecurityInputs } from "../../../src/ingest/pipeline/derive.ts";
import type { CompanyStatements } from "../../../src/ingest/rules/inputs.ts";

/** Options of a built period; filing dates default to 45 days after the period end. */
export interface PeriodOptions {
  type?: PeriodType;
  first_filed?: string;
  last_filed?: string;
  fiscal_year?: number;
}

function filedAfter(end: string): string {
  return addDays(end, 45);
}

function build<F extends string>(
  fields: readonly F[],
  end: string,
  values: Partial<Record<F, number | null>>,
  options: PeriodOptions,
): StatementPeriod<F> {
  const all = Object.fromEntries(fields.map((f) => [f, values[f] ?? null])) as Record<F, number | null>;
  const firstFiled = options.first_filed ?? filedAfter(end);
  return {
    cik: "0000000001",
    period_type: options.type ?? "annual",
    fiscal_year: options.fiscal_year ?? Number(end.slice(0, 4)),
    fiscal_quarter: null,
    period_start: null,
    period_end: end,
    first_filed: firstFiled,
    first_accession: "0000000001-00-000001",
    last_filed: options.last_filed ?? firstFiled,
    last_accession: "0000000001-00-000001",
    currency: "USD",
    notes: [],
    values: all,
  };
}

/** An income statement period ending on `end`. */
export function income(
  end: string,
  values: Partial<Record<IncomeStatementField, number | null>>,
  options: PeriodOptions = {},
): StatementPeriod<IncomeStatementField> {
  return build(INCOME_STATEMENT_FIELDS, end, values, options);
}

/** A balance sheet dated `end`. */
export function balance(
  end: string,
  values: Partial<Record<BalanceSheetField, number | null>>,
  options: PeriodOptions = {},
): StatementPeriod<BalanceSheetField> {
  return build(BALANCE_SHEET_FIELDS, end, values, options);
}

/** A cash-flow period ending on `end`. */
export function cashFlow(
  end: string,
  values: Partial<Record<CashFlowField, number | null>>,
  options: PeriodOptions = {},
): StatementPeriod<CashFlowField> {
  return build(CASH_FLOW_FIELDS, end, values, options);
}

/** A company's statements from lists (missing lists are empty). */
export function statements(parts: Partial<CompanyStatements>): CompanyStatements {
  return {
    income_statement: parts.income_statement ?? [],
    balance_sheet: parts.balance_sheet ?? [],
    cash_flow_statement: parts.cash_flow_statement ?? [],
  };
}

/** A security's inputs to deriveSecurity with no statements, prices or market sources but what `over` names. */
export function securityInputs(over: Partial<SecurityInputs>): SecurityInputs {
  return {
    securityId: "sec_1",
    symbol: "TEST",
    priceCurrency: "USD",
    statements: null,
    shares: [],
    prices: [],
    dividends: null,
    calendar: [],
    reportDates: [],
    resultsDates: [],
    estimates: null,
    history: null,
    growth: null,
    ...over,
  };
}
