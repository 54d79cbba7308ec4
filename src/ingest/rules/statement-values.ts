/**
 * The mapped (not derived) value of every mapping-table field for each annual, quarterly
 * and TTM period of the fiscal calendar. A field takes, per period, the first concept of its
 * priority list that has a value for that period; signs come from the mapping table.
 */

import { tidy } from "../../domain/ratios.ts";
import type { FieldMapping } from "../../domain/xbrl-mapping.ts";
import type { CompanyFacts } from "../sources/companyfacts.ts";
import {
  annualValue,
  ConceptSeries,
  combine,
  filedAfterBoth,
  quarterValues,
  type Sourced,
} from "./concept-series.ts";
import type { QuarterSlot } from "./fiscal-calendar.ts";
import type { FiscalYear } from "./fiscal-quarters.ts";
import type { SplitEvent } from "./inputs.ts";
import { splitRatio } from "./splits.ts";

/** Mapped values of one period, by field; null where no concept had a value. */
export type BaseValues = Map<string, Sourced | null>;

/** A concept of a field's priority list that the company reported, in the field's unit. */
interface ReportedConcept {
  /** The concept as the mapping table names it. */
  concept: string;
  key: string;
  series: ConceptSeries;
  sign: 1 | -1;
  /** Used only when no other concept of the field has the period (xbrl-mapping.ts, `~`). */
  fallback: boolean;
}

/** Resolves mapped field values of one company in one reporting currency. */
export class FieldResolver {
  /** Per mapping (same order as `mappings`): its reported concepts, in priority order. */
  private readonly reported: ReportedConcept[][];
  private readonly quarters = new Map<string, Array<Sourced | null>>();

  constructor(
    company: CompanyFacts,
    currency: string,
    private readonly mappings: readonly FieldMapping[],
    /** The quarters of each fiscal year, index 0..3, as in the calendar. */
    private readonly slotsOf: (year: FiscalYear) => ReadonlyArray<QuarterSlot | undefined>,
    /** The company's splits, inferred from its shares outstanding (splits.ts). */
    private readonly splits: readonly SplitEvent[],
  ) {
    const series = new Map<string, ConceptSeries>();
    this.reported = mappings.map((m) => {
      const unit = m.unit === "money" ? currency : m.unit === "per_share" ? `${currency}/shares` : "shares";
      const found: ReportedConcept[] = [];
      for (const ref of m.concepts) {
        const facts = company.facts.get(ref.taxonomy)?.get(ref.name)?.get(unit);
        if (facts === undefined) continue;
        const key = `${ref.taxonomy}:${ref.name}:${unit}`;
        let s = series.get(key);
        if (s === undefined) {
          s = new ConceptSeries(facts);
          series.set(key, s);
        }
        const concept = ref.taxonomy === "us-gaap" ? ref.name : `${ref.taxonomy}:${ref.name}`;
        found.push({ concept, key, series: s, sign: ref.sign, fallback: ref.fallback });
      }
      return found;
    });
  }

  /** Mapped values of a known fiscal year. */
  annual(year: FiscalYear): BaseValues {
    return alignPerShareBasis(
      this.splits,
      this.resolve((m, s) => {
        if (m.timing === "instant") return s.instantAt(year.end);
        if (m.timing === "opening") return s.instantAt(year.start - 1);
        return annualValue(s, year);
      }),
    );
  }

  /** Mapped values of one fiscal quarter. */
  quarterly(slot: QuarterSlot): BaseValues {
    return alignPerShareBasis(
      this.splits,
      this.resolve((m, s, key) => {
        if (m.timing === "instant") return s.instantAt(slot.end);
        if (m.timing === "opening") return slot.start === null ? null : s.instantAt(slot.start - 1);
        return this.quarterValuesOf(key, s, slot.year, m.additive)[slot.quarter - 1] ?? null;
      }),
    );
  }

  private resolve(read: (m: FieldMapping, series: ConceptSeries, key: string) => Sourced | null): BaseValues {
    const out: BaseValues = new Map();
    this.mappings.forEach((m, i) => {
      const concepts = this.reported[i] ?? [];
      out.set(m.field, firstValue(m, concepts, false, read) ?? firstValue(m, concepts, true, read));
    });
    return out;
  }

  private quarterValuesOf(key: string, series: ConceptSeries, year: FiscalYear, additive: boolean) {
    const cacheKey = `${key}@${year.label}`;
    let values = this.quarters.get(cacheKey);
    if (values === undefined) {
      values = quarterValues(series, year, this.slotsOf(year), additive);
      this.quarters.set(cacheKey, values);
    }
    return values;
  }
}

/**
 * The value of the first concept (of the main or of the fallback measures, in priority order)
 * with a value for the period, reported or derived from year-to-date figures: a series keeps
 * one basis, never a total in one period and a part a later filing tagged in the next (a
 * restatement of the same concept still wins, concept-series.ts).
 */
function firstValue(
  m: FieldMapping,
  concepts: readonly ReportedConcept[],
  fallback: boolean,
  read: (m: FieldMapping, series: ConceptSeries, key: string) => Sourced | null,
): Sourced | null {
  for (const c of concepts) {
    if (c.fallback !== fallback) continue;
    const value = read(m, c.series, c.key);
    if (value === null) continue;
    const signed = c.sign === 1 ? value : { ...value, value: -value.value };
    return fallback ? { ...signed, fallback: c.concept } : signed;
  }
  return null;
}

/** The share count each per-share amount is computed on (one split basis for both in a period). */
export const PER_SHARE_BASIS: Readonly<Record<string, string>> = {
  basic_eps: "basic_average_shares",
  diluted_eps: "diluted_average_shares",
};

/**
 * A period's EPS and its share count on one split basis. Each takes the latest filing that
 * reports it, and a filing after a split may restate one and not the other (Apple's FY2020
 * 10-K restated FY2019's quarterly EPS on the 4-for-1 basis; the counts stayed as the 10-Qs
 * filed them). When EPS × count / earnings matches the ratio of a split that happened between
 * the two filings, the earlier-filed of the two is converted to the later one's basis. Values
 * of one filing are never touched: their mismatch is rounding (an EPS of 0.01 for 0.005),
 * preferred dividends or ADS units, not a split.
 */
function alignPerShareBasis(splits: readonly SplitEvent[], values: BaseValues): BaseValues {
  const earnings = values.get("net_income_common_stockholders") ?? values.get("net_income") ?? null;
  if (earnings === null || earnings.value === 0) return values;
  for (const [perShare, basis] of Object.entries(PER_SHARE_BASIS)) {
    const eps = values.get(perShare) ?? null;
    const shares = values.get(basis) ?? null;
    if (eps === null || shares === null || eps.lastFiled === shares.lastFiled) continue;
    const ratio = splitRatio((eps.value * shares.value) / earnings.value);
    const epsLater = eps.lastFiled > shares.lastFiled;
    // EPS restated after an n-for-1 split is 1/n of the old one: EPS × old count / earnings = 1/n.
    if (
      ratio === null ||
      !splitBetween(splits, epsLater ? 1 / ratio : ratio, eps.lastFiled, shares.lastFiled)
    )
      continue;
    const filed = filedAfterBoth(eps, shares);
    if (epsLater) values.set(basis, { ...filed, value: Math.round(shares.value / ratio) });
    else values.set(perShare, { ...filed, value: tidy(eps.value / ratio) });
  }
  return values;
}

/** Whether a split of `ratio` is dated after the earlier of two filing dates and by the later. */
function splitBetween(splits: readonly SplitEvent[], ratio: number, a: string, b: string): boolean {
  const [from, to] = a < b ? [a, b] : [b, a];
  return splits.some((s) => s.date > from && s.date <= to && Math.abs(s.ratio / ratio - 1) < 1e-9);
}

/**
 * Mapped values of the trailing twelve months ending with the last of four consecutive
 * quarters (`window`, oldest first): flows are the sum of the four quarters (null when one is
 * missing), balances the latest instant, the opening cash balance that of the first quarter.
 *
 * Share counts and per-share amounts are not summed. When the window is exactly a fiscal year
 * (`annual` given) they are the reported full-year values. Otherwise the average share count
 * is the mean of the quarters' reported counts, needing at least three of the four: 10-Ks
 * report full-year counts, not fourth-quarter ones, so requiring four would leave three TTM
 * periods out of four without shares. The counts are first put on the basis of the window's
 * latest-filed one: across a stock split, quarters filed before it are on the old basis and
 * those restated after it on the new one. TTM EPS = TTM net income (available to common
 * shareholders, else net income) / that average share count — not a sum of quarterly EPS,
 * which would need the fourth-quarter EPS that 10-Ks no longer report.
 */
export function trailingValues(
  mappings: readonly FieldMapping[],
  window: readonly BaseValues[],
  annual: BaseValues | null,
  splits: readonly SplitEvent[],
): BaseValues {
  const out: BaseValues = new Map();
  for (const m of mappings) {
    const parts = window.map((q) => q.get(m.field) ?? null);
    let value: Sourced | null;
    if (m.timing === "instant") value = parts[parts.length - 1] ?? null;
    else if (m.timing === "opening") value = parts[0] ?? null;
    else if (m.additive) value = sum(parts);
    else if (annual !== null) value = annual.get(m.field) ?? null;
    else value = m.unit === "shares" ? mean(onLatestBasis(parts, splits), 3) : null;
    out.set(m.field, value);
  }
  if (annual !== null) return out;
  const earnings = out.get("net_income_common_stockholders") ?? out.get("net_income") ?? null;
  for (const [perShare, basis] of Object.entries(PER_SHARE_BASIS)) {
    const shares = out.get(basis) ?? null;
    if (earnings === null || shares === null || shares.value === 0) continue;
    out.set(perShare, { value: tidy(earnings.value / shares.value), ...filedAfterBoth(earnings, shares) });
  }
  return out;
}

function sum(parts: ReadonlyArray<Sourced | null>): Sourced | null {
  let total: Sourced | null = null;
  for (const p of parts) {
    if (p === null) return null;
    total = total === null ? p : combine(total, p, 1);
  }
  return total;
}

/**
 * Share counts on one basis: that of the latest-filed count, as the period's `last_filed`
 * (the basis its per-share figures are read on) is the latest filing of its values. A change
 * between neighbouring counts is a split when it matches the ratio of a split dated between
 * their filings; any other change (an IPO, a merger, a large issue) is real.
 */
function onLatestBasis(
  parts: ReadonlyArray<Sourced | null>,
  splits: readonly SplitEvent[],
): Array<Sourced | null> {
  // Each present count's factor relative to the first one: the product of the splits before it.
  const factors: number[] = [];
  let previous: Sourced | null = null;
  let factor = 1;
  let anchor = -1;
  for (const [i, part] of parts.entries()) {
    if (part === null) continue;
    if (previous !== null && previous.value > 0) {
      const ratio = splitRatio(part.value / previous.value);
      // The later-filed count is on the newer basis: the split is `ratio` if this one is later.
      const newer = part.lastFiled > previous.lastFiled;
      if (
        ratio !== null &&
        splitBetween(splits, newer ? ratio : 1 / ratio, part.lastFiled, previous.lastFiled)
      )
        factor *= ratio;
    }
    factors[i] = factor;
    previous = part;
    if (anchor < 0 || part.lastFiled >= (parts[anchor] as Sourced).lastFiled) anchor = i;
  }
  if (anchor < 0) return [...parts];
  const target = factors[anchor] as number;
  return parts.map((part, i) => {
    if (part === null) return null;
    const scale = target / (factors[i] as number);
    return scale === 1 ? part : { ...part, value: Math.round(part.value * scale) };
  });
}

/** Mean of the present values, when at least `needed` are present. */
function mean(parts: ReadonlyArray<Sourced | null>, needed: number): Sourced | null {
  const present = parts.filter((p): p is Sourced => p !== null);
  const total = present.length >= needed ? sum(present) : null;
  return total === null ? null : { ...total, value: Math.round(total.value / present.length) };
}
