/**
 * The capital-allocation document from the latest annual period. Spending is returned as
 * positive amounts although the cash-flow statement stores outflows as negative values.
 */
import { CALCULATION_VERSION } from "../../domain/calculation-version.ts";
import { difference, differencePresent, magnitude, ratioOverPositive } from "../../domain/ratios.ts";
import type { AnnualMetadata, CapitalAllocationDocument } from "../../snapshot/documents.ts";
import { annualMetadata, latestAnnual } from "./growth.ts";
import type { CompanyStatements } from "./inputs.ts";
import { capexOf, dividendsPaidOf, fieldValue, freeCashFlowOf, netBuybacksOf } from "./line-items.ts";
import { AFTER_EVERY_SPLIT, NO_SPLITS, type ShareBasis, sharesOnBasis } from "./shares.ts";
import { type FlowPeriod, StatementBook } from "./statement-book.ts";

/** The stored capital-allocation row: the document without the symbol and null reasons, which derive.ts adds. */
export interface CapitalAllocationResult {
  metadata: AnnualMetadata;
  capital_allocation: CapitalAllocationDocument["capital_allocation"];
}

/** Inputs: statements and the latest market cap (null when there is no quote data). */
export interface CapitalAllocationInput {
  statements: CompanyStatements;
  market_cap: number | null;
  /** The share basis of the share counts (default: no splits). */
  basis?: ShareBasis;
}

/** Diluted average shares of a period on `basis`. */
function dilutedShares(period: FlowPeriod | null, basis: ShareBasis): number | null {
  if (period === null) return null;
  return sharesOnBasis(fieldValue(period.income, "diluted_average_shares"), AFTER_EVERY_SPLIT, basis);
}

/** Capital allocation of the latest annual period; null without annual periods. */
export function computeCapitalAllocation(input: CapitalAllocationInput): CapitalAllocationResult | null {
  const book = StatementBook.of(input.statements);
  const latest = latestAnnual(book);
  if (latest === null) return null;
  const basis = input.basis ?? NO_SPLITS;
  const cash = latest.cash_flow;
  const debtIssued = fieldValue(cash, "debt_issuance");
  const debtRepaid = magnitude(fieldValue(cash, "debt_payments"));
  const netBuybacks = netBuybacksOf(cash);
  const dividends = dividendsPaidOf(cash);
  const shares = dilutedShares(latest, basis);
  return {
    metadata: annualMetadata(latest, CALCULATION_VERSION.capital_allocation),
    capital_allocation: {
      operating_cash_flow: fieldValue(cash, "cash_flow_from_operations"),
      capex: capexOf(cash),
      free_cash_flow: freeCashFlowOf(cash),
      stock_based_compensation: fieldValue(cash, "stock_based_compensation"),
      share_repurchases: magnitude(fieldValue(cash, "repurchase_of_stock")),
      share_issuance: fieldValue(cash, "issuance_of_stock"),
      net_buyback_amount: netBuybacks,
      dividends_paid: dividends,
      acquisition_spend: magnitude(fieldValue(cash, "purchase_of_business")),
      debt_issued: debtIssued,
      debt_repaid: debtRepaid,
      net_debt_change: fieldValue(cash, "net_issuance_of_debt") ?? differencePresent(debtIssued, debtRepaid),
      share_count_diluted: shares,
      share_count_change_1y: difference(shares, dilutedShares(book.flowYearsBefore(latest, 1), basis)),
      buyback_yield: ratioOverPositive(netBuybacks, input.market_cap),
      dividend_payout_ratio: ratioOverPositive(dividends, fieldValue(latest.income, "net_income")),
    },
  };
}
