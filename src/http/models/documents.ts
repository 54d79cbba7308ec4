/** The derived documents' and the calendar rows' schemas: one definition, shared with the importer (src/snapshot/documents.ts). */
export {
  CalendarRow,
  CapitalAllocation,
  Dividend,
  Earnings,
  Estimates,
  FundamentalMetrics,
  Growth,
  OwnerEarnings,
  Valuation,
  ValuationHistory,
  ValuationPoints,
} from "../../snapshot/documents.ts";
