/**
 * Financial statements from a companyfacts file: balance sheet, cash-flow statement and
 * income statement for annual, quarterly and TTM periods, plus the filing list and share
 * counts (cover pages, else balance sheets: xbrl-filings.ts). Pure: facts in, rows out.
 *
 * - A fact's period comes from its own start/end, never from the filing that carried it; the
 *   fiscal year and quarter of a period come from the fiscal calendar (fiscal-calendar.ts).
 * - Quarterly flows are reported three-month values, else differences of year-to-date values
 *   (concept-series.ts); balances are instants at the period end, never summed.
 * - TTM: one row per quarter end that closes four consecutive quarters (each starting the day
 *   after the previous one ends, ±3 days); no row across a missing quarter. fiscal_year and
 *   fiscal_quarter are those of the quarter it ends with (statement-values.ts for per-share rules).
 * - Field values: the mapping table (domain/xbrl-mapping.ts), then the derivation rules
 *   (domain/xbrl-derived.ts). Money in the reporting currency: the currency unit most used by
 *   the company's revenue and total-assets facts (TSM reports TWD, with USD convenience
 *   translations of some figures that are ignored).
 * - Per-share amounts and average share counts are on the basis after every split inferred
 *   from the company's share counts (splits.ts), whatever filing reported them.
 * - A statement row is emitted only when at least one of its fields has a mapped value (for
 *   the cash-flow and income statements: a flow value).
 * - first_filed: the earliest filing date of any mapped value of the row (for a value derived
 *   from several periods, the date all of them were known; the opening cash balance does not
 *   count): the filing that first reported the period; last_filed: the latest filing date of a
 *   value used (a later report that repeated or restated it); each with its accession number.
 * - notes: one line per field whose value came from a fallback concept (xbrl-mapping.ts, `~`).
 */

import { fromDayNumber } from "../../domain/dates.ts";
import { industryTemplate } from "../../domain/industry.ts";
import { tidy } from "../../domain/ratios.ts";
import {
  BALANCE_SHEET_FIELDS,
  type BalanceSheetField,
  CASH_FLOW_FIELDS,
  type CashFlowField,
  INCOME_STATEMENT_FIELDS,
  type IncomeStatementField,
  type PeriodType,
  type StatementPeriod,
} from "../../domain/statements.ts";
import { applyDerivedRules } from "../../domain/xbrl-derived.ts";
import { CURRENCY_FIELDS, FIELD_MAPPINGS, fallbackNote } from "../../domain/xbrl-mapping.ts";
import type { CompanyFacts } from "../sources/companyfacts.ts";
import type { Sourced } from "./concept-series.ts";
import { buildFiscalCalendar, type FiscalCalendar, type QuarterSlot } from "./fiscal-calendar.ts";
import type { FiscalYear } from "./fiscal-quarters.ts";
import type { SharesObservation, SplitEvent } from "./inputs.ts";
import { type ShareBasis, splitFactor } from "./shares.ts";
import { inferSplits, mergeSplits, splitsFromRestatements } from "./splits.ts";
import { type BaseValues, FieldResolver, PER_SHARE_BASIS, trailingValues } from "./statement-values.ts";
import { type FilingSummary, listFilings, sharesOutstanding } from "./xbrl-filings.ts";
import { scanFacts } from "./xbrl-scan.ts";

export type { FilingSummary } from "./xbrl-filings.ts";

/** Everything computed from one companyfacts file. Statement periods are newest first. */
export interface ComputedStatements {
  /** The reporting currency; null when the company reported no monetary facts. */
  currency: string | null;
  balance_sheet: StatementPeriod<BalanceSheetField>[];
  cash_flow_statement: StatementPeriod<CashFlowField>[];
  income_statement: StatementPeriod<IncomeStatementField>[];
  filings: FilingSummary[];
  shares_outstanding: SharesObservation[];
  /** The company's splits: from its share counts and from its restated comparatives (splits.ts). */
  splits: SplitEvent[];
}

interface PeriodValues {
  type: PeriodType;
  fiscalYear: number;
  fiscalQuarter: number | null;
  start: number | null;
  end: number;
  base: BaseValues;
}

/** Days a quarter's start may differ from the day after the previous quarter's end. */
const CONSECUTIVE_TOLERANCE_DAYS = 3;
const TYPE_ORDER: Record<PeriodType, number> = { annual: 0, quarterly: 1, ttm: 2 };

/**
 * What the company's other sources say of it: its SIC code (submissions, listed-filer
 * metadata) and the splits its securities' price files record.
 */
export interface FilerProfile {
  sic: string | null;
  priceSplits?: readonly SplitEvent[];
}

/** Computes the statements, filings and share counts of one company. */
export function computeStatements(
  company: CompanyFacts,
  profile: FilerProfile = { sic: null },
): ComputedStatements {
  const scan = scanFacts(company);
  const currency = reportingCurrency(company);
  const out: ComputedStatements = {
    currency,
    balance_sheet: [],
    cash_flow_statement: [],
    income_statement: [],
    filings: listFilings(scan, company.documents),
    shares_outstanding: sharesOutstanding(company),
    splits: [],
  };
  if (currency === null) return out;
  // Price files date a split exactly; the filings' signals date it by a later report.
  const splits = mergeSplits(
    profile.priceSplits ?? [],
    inferSplits(out.shares_outstanding),
    splitsFromRestatements(company),
  );
  out.splits = splits;
  const periods = computePeriods(company, buildFiscalCalendar(scan), currency, splits);
  const reports = (field: string) => periods.some((p) => (p.base.get(field)?.value ?? null) !== null);
  const traits = {
    reportsMinorityInterest: periods.some((p) => (p.base.get("minority_interest")?.value ?? 0) !== 0),
    isBank: reports("aux_net_interest_income") && reports("aux_noninterest_income"),
    isReit: industryTemplate(profile.sic) === "reit",
  };
  const latest: ShareBasis = { splits, date: null };
  const daWithoutAmortization = yearsOfDaWithoutAmortization(periods);
  for (const period of periods) {
    const values = valuesOnLatestBasis(period, latest);
    applyDerivedRules(values, {
      ...traits,
      daWithoutAmortization: daWithoutAmortization.has(period.fiscalYear),
    });
    const row = <F extends string>(fields: readonly F[], needsFlow: boolean) =>
      rowOf(fields, needsFlow, period, values, company.cik, currency);
    pushIfPresent(out.balance_sheet, row(BALANCE_SHEET_FIELDS, false));
    pushIfPresent(out.cash_flow_statement, row(CASH_FLOW_FIELDS, true));
    pushIfPresent(out.income_statement, row(INCOME_STATEMENT_FIELDS, true));
  }
  const newestFirst = (a: StatementPeriod, b: StatementPeriod) =>
    b.period_end.localeCompare(a.period_end) || TYPE_ORDER[a.period_type] - TYPE_ORDER[b.period_type];
  out.balance_sheet.sort(newestFirst);
  out.cash_flow_statement.sort(newestFirst);
  out.income_statement.sort(newestFirst);
  return out;
}

/**
 * A period's values, with every EPS and average share count on the basis after every split of
 * the company: one filed before a split is put on the new basis (Alphabet's 2019 EPS of 49.16,
 * filed before its 20-for-1 split, is 2.458), as the company's later filings restate the years
 * they still show. An EPS and its count are on one basis within a period (statement-values.ts),
 * which the count's filing date tells; an EPS without a count goes by its own filing date.
 */
function valuesOnLatestBasis(period: PeriodValues, latest: ShareBasis): Map<string, number | null> {
  const values = new Map<string, number | null>();
  for (const [field, sourced] of period.base) values.set(field, sourced?.value ?? null);
  for (const [perShare, count] of Object.entries(PER_SHARE_BASIS)) {
    const shares = period.base.get(count) ?? null;
    const eps = period.base.get(perShare) ?? null;
    const from = (shares ?? eps)?.lastFiled;
    if (from === undefined) continue;
    const factor = splitFactor(latest, from);
    if (factor === 1) continue;
    if (shares) values.set(count, Math.round(shares.value * factor));
    if (eps) values.set(perShare, tidy(eps.value / factor));
  }
  return values;
}

/**
 * The fiscal years whose annual D&A line (as mapped) is smaller than their amortization of
 * intangibles: that line leaves the amortization out (xbrl-derived.ts).
 */
function yearsOfDaWithoutAmortization(periods: readonly PeriodValues[]): Set<number> {
  const years = new Set<number>();
  for (const p of periods) {
    if (p.type !== "annual") continue;
    const value = (field: string) => p.base.get(field)?.value ?? null;
    const da =
      value("cash_flow_depreciation_depletion_amortization") ?? value("depreciation_and_amortization");
    const amortization = value("aux_amortization");
    if (da !== null && amortization !== null && amortization > da) years.add(p.fiscalYear);
  }
  return years;
}

function computePeriods(
  company: CompanyFacts,
  calendar: FiscalCalendar,
  currency: string,
  splits: readonly SplitEvent[],
): PeriodValues[] {
  const slotsByYear = new Map<FiscalYear, Array<QuarterSlot | undefined>>();
  for (const slot of calendar.quarters) {
    const slots = slotsByYear.get(slot.year) ?? [undefined, undefined, undefined, undefined];
    slots[slot.quarter - 1] = slot;
    slotsByYear.set(slot.year, slots);
  }
  const resolver = new FieldResolver(
    company,
    currency,
    FIELD_MAPPINGS,
    (year) => slotsByYear.get(year) ?? [],
    splits,
  );
  const annual = new Map<FiscalYear, PeriodValues>();
  for (const year of calendar.years) {
    if (!year.known) continue;
    const base = resolver.annual(year);
    annual.set(year, {
      type: "annual",
      fiscalYear: year.label,
      fiscalQuarter: null,
      start: year.start,
      end: year.end,
      base,
    });
  }
  const quarterly = calendar.quarters.map(
    (slot): QuarterValues => ({
      type: "quarterly",
      fiscalYear: slot.year.label,
      fiscalQuarter: slot.quarter,
      start: slot.start,
      end: slot.end,
      base: resolver.quarterly(slot),
      slot,
    }),
  );
  return [...annual.values(), ...quarterly, ...trailingPeriods(quarterly, annual, splits)];
}

interface QuarterValues extends PeriodValues {
  slot: QuarterSlot;
}

/** One TTM period per quarter that closes four consecutive quarters with flow values. */
function trailingPeriods(
  quarterly: readonly QuarterValues[],
  annual: ReadonlyMap<FiscalYear, PeriodValues>,
  splits: readonly SplitEvent[],
): PeriodValues[] {
  // A quarter without any flow value is missing, even when its balance sheet is known.
  const hasFlow = quarterly.map((q) => [...FLOW_FIELDS].some((field) => q.base.get(field)));
  const periods: PeriodValues[] = [];
  for (let i = 3; i < quarterly.length; i++) {
    const window = quarterly.slice(i - 3, i + 1);
    const first = (window[0] as QuarterValues).slot;
    const last = (window[3] as QuarterValues).slot;
    if (!consecutive(window.map((q) => q.slot)) || !hasFlow.slice(i - 3, i + 1).every(Boolean)) continue;
    const wholeYear = first.quarter === 1 && last.quarter === 4 && first.year === last.year;
    const fullYear = wholeYear ? (annual.get(last.year)?.base ?? null) : null;
    periods.push({
      type: "ttm",
      fiscalYear: last.year.label,
      fiscalQuarter: last.quarter,
      start: first.start,
      end: last.end,
      base: trailingValues(
        FIELD_MAPPINGS,
        window.map((q) => q.base),
        fullYear,
        splits,
      ),
    });
  }
  return periods;
}

/** Whether each quarter starts the day after the previous one ends (within a tolerance). */
function consecutive(slots: readonly QuarterSlot[]): boolean {
  if (slots[0]?.start === null) return false;
  for (let i = 1; i < slots.length; i++) {
    const previous = slots[i - 1] as QuarterSlot;
    const start = (slots[i] as QuarterSlot).start;
    if (start === null || Math.abs(start - (previous.end + 1)) > CONSECUTIVE_TOLERANCE_DAYS) return false;
  }
  return true;
}

/** Fields measured at the day before the period (opening cash), known before the period is. */
const OPENING_FIELDS: ReadonlySet<string> = new Set(
  FIELD_MAPPINGS.filter((m) => m.timing === "opening").map((m) => m.field),
);
const FLOW_FIELDS: ReadonlySet<string> = new Set(
  FIELD_MAPPINGS.filter((m) => m.timing === "duration").map((m) => m.field),
);

/**
 * One statement's row of a period, or null when none of its fields has a mapped value. A
 * cash-flow or income row needs a flow value: cash balances alone are no cash-flow statement.
 * The opening balance does not count towards first_filed: it was filed with the period before.
 */
function rowOf<F extends string>(
  fields: readonly F[],
  needsFlow: boolean,
  period: PeriodValues,
  values: ReadonlyMap<string, number | null>,
  cik: string,
  currency: string,
): StatementPeriod<F> | null {
  const record = {} as Record<F, number | null>;
  let first: Sourced | null = null;
  let last: Sourced | null = null;
  let anchored = false;
  const notes: string[] = [];
  for (const field of fields) {
    record[field] = values.get(field) ?? null;
    const sourced = period.base.get(field);
    if (!sourced) continue;
    anchored ||= !needsFlow || FLOW_FIELDS.has(field);
    if (!OPENING_FIELDS.has(field) && (first === null || sourced.firstFiled < first.firstFiled))
      first = sourced;
    if (last === null || sourced.lastFiled > last.lastFiled) last = sourced;
    if (sourced.fallback !== undefined) notes.push(fallbackNote(field, sourced.fallback));
  }
  if (!anchored || first === null || last === null) return null;
  return {
    cik,
    period_type: period.type,
    fiscal_year: period.fiscalYear,
    fiscal_quarter: period.fiscalQuarter,
    period_start: period.start === null ? null : fromDayNumber(period.start),
    period_end: fromDayNumber(period.end),
    first_filed: first.firstFiled,
    first_accession: first.firstAccession,
    last_filed: last.lastFiled,
    last_accession: last.lastAccession,
    currency,
    notes,
    values: record,
  };
}

function pushIfPresent<T>(list: T[], row: T | null): void {
  if (row !== null) list.push(row);
}

const isCurrencyUnit = (unit: string): boolean => /^[A-Z]{3}$/.test(unit);

/** The currency unit most used by the revenue and total-assets concepts, else by any fact. */
function reportingCurrency(company: CompanyFacts): string | null {
  const counts = new Map<string, number>();
  for (const m of FIELD_MAPPINGS) {
    if (!CURRENCY_FIELDS.includes(m.field)) continue;
    for (const ref of m.concepts) {
      for (const [unit, facts] of company.facts.get(ref.taxonomy)?.get(ref.name) ?? []) {
        if (isCurrencyUnit(unit)) counts.set(unit, (counts.get(unit) ?? 0) + facts.length);
      }
    }
  }
  if (counts.size === 0) {
    for (const [taxonomy, concepts] of company.facts) {
      if (taxonomy === "dei") continue;
      for (const units of concepts.values()) {
        for (const [unit, facts] of units) {
          if (isCurrencyUnit(unit)) counts.set(unit, (counts.get(unit) ?? 0) + facts.length);
        }
      }
    }
  }
  let best: string | null = null;
  for (const [unit, count] of counts) {
    if (best === null || count > (counts.get(best) ?? 0) || (count === counts.get(best) && unit < best))
      best = unit;
  }
  return best;
}
