/**
 * Methodology versions of the derived tables, stored with every computed row and served as
 * `metadata.calculation_version`. Bump the table's version whenever a formula, input or
 * null rule in docs/methodology.md changes, so clients can tell the series apart.
 */
export const CALCULATION_VERSION = {
  metrics: "metrics-2026.11.25",
  growth: "growth-2026.11.25",
  capital_allocation: "capital-allocation-2026.11.25",
  owner_earnings: "owner-earnings-2026.11.25",
  valuation: "valuation-2026.11.25",
  valuation_history: "valuation-history-2026.11.25",
  valuation_points: "valuation-points-2026.11.25",
  dividend: "dividend-2026.11.5",
} as const;
