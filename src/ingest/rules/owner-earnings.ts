/**
 * The owner-earnings document: operating cash flow minus reported capex (taken as the
 * maintenance capex estimate), the imported source value where one exists, the yield on
 * market cap, and growth (imported signals, else the annual history of the estimate).
 */
import { CALCULATION_VERSION } from "../../domain/calculation-version.ts";
import { difference, finiteOrNull, ratioOverPositive } from "../../domain/ratios.ts";
import type { OwnerEarningsDocument, PeriodMetadata } from "../../snapshot/documents.ts";
import { annualGrowth, latestAnnual } from "./growth.ts";
import type { CashFlowValues, CompanyStatements, GrowthSignals } from "./inputs.ts";
import { capexOf, fieldValue } from "./line-items.ts";
import { StatementBook } from "./statement-book.ts";

/** The stored owner-earnings row: the document without the symbol and null reasons, which derive.ts adds. */
export interface OwnerEarningsResult {
  metadata: PeriodMetadata;
  owner_earnings: OwnerEarningsDocument["owner_earnings"];
}

/** Inputs: statements, current market cap (nullable) and imported growth signals (nullable). */
export interface OwnerEarningsInput {
  statements: CompanyStatements;
  market_cap: number | null;
  signals?: GrowthSignals | null;
}

/** Operating cash flow − reported capex (positive); null when either is missing. */
function estimatedOwnerEarnings(cash: CashFlowValues | null): number | null {
  return difference(fieldValue(cash, "cash_flow_from_operations"), capexOf(cash));
}

/**
 * Owner earnings of the latest TTM period (else latest annual); null without such a period.
 * Each growth field is the imported signal when present, else computed from the annual
 * history of the estimate (1y change, 3y/5y CAGR; null from a non-positive start).
 */
export function computeOwnerEarnings(input: OwnerEarningsInput): OwnerEarningsResult | null {
  const book = StatementBook.of(input.statements);
  const period = book.latestFlow();
  if (period === null) return null;
  const signals = input.signals ?? null;
  const source = finiteOrNull(signals?.owner_earnings);
  const estimated = estimatedOwnerEarnings(period.cash_flow);
  const annual = latestAnnual(book);
  const computed =
    annual === null ? null : annualGrowth(book, annual, (p) => estimatedOwnerEarnings(p.cash_flow));
  return {
    metadata: {
      as_of_date: period.period_end,
      period_type: period.period_type,
      currency: period.currency,
      calculation_version: CALCULATION_VERSION.owner_earnings,
    },
    owner_earnings: {
      owner_earnings_source: source,
      owner_earnings_estimated: estimated,
      maintenance_capex_estimate: capexOf(period.cash_flow),
      owner_earnings_yield: ratioOverPositive(source ?? estimated, input.market_cap),
      owner_earnings_growth_1y: finiteOrNull(signals?.owner_earnings_growth_1y) ?? computed?.y1 ?? null,
      owner_earnings_growth_3y: finiteOrNull(signals?.owner_earnings_growth_3y) ?? computed?.y3 ?? null,
      owner_earnings_growth_5y: finiteOrNull(signals?.owner_earnings_growth_5y) ?? computed?.y5 ?? null,
    },
  };
}
