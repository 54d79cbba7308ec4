import { t } from "elysia";
import { Nullable, NumOrNull, StrOrNull } from "./common.ts";

/** The derived documents' schemas: one definition, shared with the importer (src/snapshot/documents.ts). */
export {
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

export const CalendarRow = t.Object({
  cik: StrOrNull,
  ticker: t.String(),
  earning_date: t.String(),
  earning_time: t.String({ description: "pre-market, after-hours, during-market or not-supplied" }),
  eps_forecast: NumOrNull,
  eps_actual: NumOrNull,
  eps_surprise: NumOrNull,
  no_of_estimates: Nullable(t.Integer()),
  fiscal_quarter_ending: StrOrNull,
  currency: StrOrNull,
});
