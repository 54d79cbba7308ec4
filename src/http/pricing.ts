/**
 * The one pricing table: credits per successful call, by endpoint. Failed calls (any non-2xx)
 * cost nothing. Shown per operation in the OpenAPI document as `x-credit-cost`. Two prices
 * depend on the call (their route's `price`, route.ts), and their entry is the unit:
 * - `batch`: per symbol found, what its single-symbol endpoint costs (1 for each endpoint a
 *   batch repeats); a symbol not found costs nothing (routes/batch.ts).
 * - `export`: per started MiB of the table's Parquet file, at least 1, for its Parquet or its
 *   CSV file alike; once per user, snapshot, table and format: repeated reads of the same
 *   file (a range, or the whole) within 24 hours of the one that was charged and delivered
 *   cost nothing, and a HEAD costs nothing (routes/exports.ts).
 */
export const PRICING = {
  health: 0,
  account: 0,
  search: 1,
  quote: 1,
  profile: 1,
  price: 1,
  secfiling: 1,
  sec_filings: 1,
  balance_sheet: 1,
  cash_flow_statement: 1,
  income_statement: 1,
  insider_tradings: 1,
  valuation: 1,
  valuation_history: 2,
  valuation_points: 2,
  fundamental_metrics: 1,
  growth: 1,
  capital_allocation: 1,
  owner_earnings: 1,
  dividend: 1,
  earnings: 1,
  estimates: 1,
  calendar: 1,
  // A query over every security's figures: priced as the two monthly series, the other calls
  // that read a table from disk rather than a body held in memory.
  screener: 2,
  batch: 1,
  exports: 0,
  export: 1,
} as const satisfies Record<string, number>;

export type Endpoint = keyof typeof PRICING;
