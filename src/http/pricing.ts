/**
 * The one pricing table: credits per successful call, by endpoint. Failed calls (any non-2xx)
 * cost nothing. Shown per operation in the OpenAPI document as `x-credit-cost`.
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
} as const satisfies Record<string, number>;

export type Endpoint = keyof typeof PRICING;
