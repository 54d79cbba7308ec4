/**
 * The fundamental-metrics document from the latest TTM period, else the latest annual one.
 * Returns and turnovers divide by the average of the balance at period end and one year
 * earlier when both exist, else by the ending balance; a ratio whose denominator is
 * missing, zero or not meaningful (negative equity, EBITDA, invested capital) is null.
 */
import { CALCULATION_VERSION } from "../../domain/calculation-version.ts";
import { averageBalance, finiteOrNull, ratioOverPositive, sumPresent } from "../../domain/ratios.ts";
import type { FundamentalMetricsDocument, PeriodMetadata } from "../../snapshot/documents.ts";
import type { BalanceValues, CompanyStatements } from "./inputs.ts";
import {
  capitalEmployedOf,
  dividendsPaidOf,
  ebitdaOf,
  ebitOf,
  effectiveTaxRateOf,
  fieldValue,
  freeCashFlowOf,
  grossProfitOf,
  investedCapitalOf,
  netBuybacksOf,
  netDebtOf,
  receivablesOf,
  totalCashOf,
  totalDebtOf,
} from "./line-items.ts";
import { type FlowPeriod, StatementBook } from "./statement-book.ts";

/** The stored metrics row: the document without the symbol and null reasons, which derive.ts adds. */
export interface MetricsResult {
  /** Period end as as_of_date, ttm or annual. */
  metadata: PeriodMetadata;
  metrics: FundamentalMetricsDocument["metrics"];
}

/** Inputs: statements and the current market cap (null without quote data). */
export interface MetricsInput {
  statements: CompanyStatements;
  market_cap: number | null;
}

type Balances = { end: BalanceValues | null; prior: BalanceValues | null };

/**
 * Average of a balance at period end and a year earlier (ending alone when the earlier one
 * is missing); null when the balance used at either date is missing (at end) or ≤ 0.
 */
function averagePositive(b: Balances, pick: (v: BalanceValues | null) => number | null): number | null {
  const end = pick(b.end);
  const prior = b.prior === null ? null : pick(b.prior);
  if (end === null || end <= 0 || (prior !== null && prior <= 0)) return null;
  return averageBalance(end, prior);
}

function marginMetrics(flow: FlowPeriod) {
  const { income, cash_flow: cash } = flow;
  const revenue = fieldValue(income, "revenue");
  const over = (x: number | null) => ratioOverPositive(x, revenue);
  return {
    gross_margin: over(grossProfitOf(income)),
    operating_margin: over(fieldValue(income, "operating_income")),
    net_margin: over(fieldValue(income, "net_income")),
    fcf_margin: over(freeCashFlowOf(cash)),
    ebit_margin: over(ebitOf(income)),
    ebitda_margin: over(ebitdaOf(income, cash)),
  };
}

function returnMetrics(flow: FlowPeriod, b: Balances) {
  const { income } = flow;
  const ebit = ebitOf(income);
  const nopat = ebit === null ? null : ebit * (1 - effectiveTaxRateOf(income));
  const netIncome = fieldValue(income, "net_income");
  const revenue = fieldValue(income, "revenue");
  const assets = averagePositive(b, (v) => fieldValue(v, "total_assets"));
  return {
    roic: ratioOverPositive(nopat, averagePositive(b, investedCapitalOf)),
    roce: ratioOverPositive(ebit, averagePositive(b, capitalEmployedOf)),
    roe: ratioOverPositive(
      netIncome,
      averagePositive(b, (v) => fieldValue(v, "total_stockholders_equity")),
    ),
    roa: ratioOverPositive(netIncome, assets),
    asset_turnover: ratioOverPositive(revenue, assets),
    inventory_turnover: ratioOverPositive(
      fieldValue(income, "cost_of_revenue"),
      averagePositive(b, (v) => fieldValue(v, "inventory")),
    ),
    receivables_turnover: ratioOverPositive(revenue, averagePositive(b, receivablesOf)),
  };
}

/** Cash + short-term investments + receivables (the "acid test" numerator). */
function quickAssetsOf(balance: BalanceValues | null): number | null {
  const cash = totalCashOf(balance);
  return cash === null ? null : cash + (receivablesOf(balance) ?? 0);
}

function balanceMetrics(flow: FlowPeriod, balance: BalanceValues | null) {
  const { income, cash_flow: cash } = flow;
  const liabilities = fieldValue(balance, "total_current_liabilities");
  const interest = fieldValue(income, "interest_expense");
  return {
    debt_to_equity: ratioOverPositive(totalDebtOf(balance), fieldValue(balance, "total_stockholders_equity")),
    net_debt_to_ebitda: ratioOverPositive(netDebtOf(balance), ebitdaOf(income, cash)),
    interest_coverage: ratioOverPositive(ebitOf(income), interest),
    current_ratio: ratioOverPositive(fieldValue(balance, "total_current_assets"), liabilities),
    quick_ratio: ratioOverPositive(quickAssetsOf(balance), liabilities),
    cash_conversion_ratio: ratioOverPositive(
      fieldValue(cash, "cash_flow_from_operations"),
      fieldValue(income, "net_income"),
    ),
  };
}

function yieldMetrics(flow: FlowPeriod, marketCap: number | null) {
  const buybacks = netBuybacksOf(flow.cash_flow);
  const dividends = dividendsPaidOf(flow.cash_flow);
  const returned = buybacks === null && dividends === null ? null : sumPresent(buybacks, dividends);
  return {
    shareholder_yield: ratioOverPositive(returned, marketCap),
    buyback_yield: ratioOverPositive(buybacks, marketCap),
    dividend_yield_ttm: ratioOverPositive(dividends, marketCap),
  };
}

/** The metrics row of the latest TTM (else annual) period; null without such a period. */
export function computeMetrics(input: MetricsInput): MetricsResult | null {
  const book = StatementBook.of(input.statements);
  const flow = book.latestFlow();
  if (flow === null) return null;
  const balances: Balances = {
    end: book.balanceYearsBefore(flow.period_end, 0),
    prior: book.balanceYearsBefore(flow.period_end, 1),
  };
  return {
    metadata: {
      as_of_date: flow.period_end,
      period_type: flow.period_type,
      currency: flow.currency,
      calculation_version: CALCULATION_VERSION.metrics,
    },
    metrics: {
      ...marginMetrics(flow),
      ...returnMetrics(flow, balances),
      ...balanceMetrics(flow, balances.end),
      ...yieldMetrics(flow, finiteOrNull(input.market_cap)),
    },
  };
}
