/** The derived documents of a snapshot (see ingest/pipeline/derive.ts), by the endpoint that serves them. */
export type DerivedKind =
  | "valuation"
  | "valuation_history"
  | "valuation_points"
  | "metrics"
  | "growth"
  | "capital_allocation"
  | "owner_earnings"
  | "dividend"
  | "earnings"
  | "estimates";
