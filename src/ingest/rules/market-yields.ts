/**
 * The market cap the market-based yields of metrics, capital allocation and owner earnings
 * divide by, and why it is missing when it is (docs/methodology.md, "Market cap"). A yield
 * divides a flow by a market cap of the same moment: the valuation snapshot's market cap is
 * at the last price date, so it serves only while the latest statements were public then and
 * still current.
 */
import type { CompanyStatements } from "./inputs.ts";
import { isCurrent } from "./point-in-time.ts";
import { StatementBook } from "./statement-book.ts";

/** Why the market-based yields of a document are null; served in `metadata.null_reasons`. */
export type YieldNullReason =
  /** No market cap at all: no prices, no share count, or prices in another currency. */
  | "no_market_cap"
  /** The latest TTM or annual statements were first filed after the last price date. */
  | "statements_filed_after_last_price"
  /** The latest full-year period ended too long before the last price date (point-in-time.ts). */
  | "statements_not_current";

/** The market cap the yields use, or null and the reason. */
export interface YieldMarketCap {
  market_cap: number | null;
  null_reason: YieldNullReason | null;
}

/**
 * The valuation's market cap at `lastPriceDate` for the yields of the latest statements,
 * unless those were first filed after that date or are no longer current at it.
 */
export function yieldMarketCap(
  statements: CompanyStatements,
  lastPriceDate: string | null,
  marketCap: number | null,
): YieldMarketCap {
  const missing = (reason: YieldNullReason): YieldMarketCap => ({ market_cap: null, null_reason: reason });
  if (lastPriceDate === null || marketCap === null) return missing("no_market_cap");
  const filed = latestFiling(statements);
  if (filed !== null && filed > lastPriceDate) return missing("statements_filed_after_last_price");
  const flow = StatementBook.of(statements).latestFlow();
  if (flow !== null && !isCurrent(flow, lastPriceDate)) return missing("statements_not_current");
  return { market_cap: marketCap, null_reason: null };
}

/**
 * `metadata.null_reasons` of a document: each of its market-based `fields` that is null
 * because there is no market cap for its statements, with the reason; empty when the yields
 * had one (a yield that is null then lacks its own inputs, such as a buyback figure).
 */
export function yieldNullReasons<T extends object, K extends keyof T & string>(
  values: T,
  fields: readonly K[],
  cap: YieldMarketCap,
): Partial<Record<K, YieldNullReason>> {
  const reasons: Partial<Record<K, YieldNullReason>> = {};
  if (cap.null_reason === null) return reasons;
  for (const field of fields) if (values[field] === null) reasons[field] = cap.null_reason;
  return reasons;
}

/** The latest first-filed date of the TTM and annual periods (what the yields' documents use). */
function latestFiling(statements: CompanyStatements): string | null {
  let latest: string | null = null;
  for (const periods of [
    statements.income_statement,
    statements.balance_sheet,
    statements.cash_flow_statement,
  ]) {
    for (const p of periods)
      if (p.period_type !== "quarterly" && (latest === null || p.first_filed > latest))
        latest = p.first_filed;
  }
  return latest;
}
