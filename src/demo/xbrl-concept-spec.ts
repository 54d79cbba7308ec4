/**
 * How a demo concept is read from the financial model for a period, and the builders of the
 * concept lists (xbrl-concepts.ts, xbrl-detail-concepts.ts).
 */
import type { Balance, CompanyModel } from "./financials.ts";
import type { Flow, ModelQuarter } from "./model.ts";

/** The quarters a reported figure covers: one quarter, the year to date, or a fiscal year. */
export interface PeriodView {
  quarters: readonly ModelQuarter[];
  /** Amount subtracted from revenue and cost of revenue (a restated comparative), else 0. */
  restatement: number;
}

export type ConceptKind = "income" | "cashFlow" | "instant";

export interface ConceptSpec {
  name: string;
  label: string;
  unit: "USD" | "USD/shares" | "shares";
  /**
   * income: a 10-Q reports the quarter and the year to date; cashFlow: the year to date only
   * (as cash-flow statements are presented); instant: balances at the period end.
   */
  kind: ConceptKind;
  value: (v: PeriodView) => number;
  /** Whether the company reports the concept at all. */
  reportedBy: (m: CompanyModel) => boolean;
}

export const sum = (v: PeriodView, flow: Flow) => v.quarters.reduce((total, q) => total + q.flows[flow], 0);
export const average = (v: PeriodView, pick: (q: ModelQuarter) => number) =>
  Math.round(v.quarters.reduce((total, q) => total + pick(q), 0) / v.quarters.length);
export const closing = (v: PeriodView, line: Balance) =>
  (v.quarters[v.quarters.length - 1] as ModelQuarter).balance[line];

export const everyone = (_m: CompanyModel): boolean => true;
export const general = (m: CompanyModel) => m.profile.template === "general";

export function flow(
  name: string,
  label: string,
  line: Flow,
  reportedBy: ConceptSpec["reportedBy"] = everyone,
  kind: ConceptKind = "income",
): ConceptSpec {
  return { name, label, unit: "USD", kind, value: (v) => sum(v, line), reportedBy };
}

export function balance(name: string, label: string, line: Balance, reportedBy = everyone): ConceptSpec {
  return { name, label, unit: "USD", kind: "instant", value: (v) => closing(v, line), reportedBy };
}

export const cashFlow = (name: string, label: string, line: Flow, reportedBy = everyone) =>
  flow(name, label, line, reportedBy, "cashFlow");

/** A concept whose sign is the opposite of the model line's (an increase of an asset, a cash use). */
export function negated(spec: ConceptSpec): ConceptSpec {
  return { ...spec, value: (v) => -spec.value(v) };
}
