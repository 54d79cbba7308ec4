/**
 * `edgar/companyfacts/CIK##########.json` in the SEC companyfacts API format, written from
 * the financial model for the 10-Qs and 10-Ks of the company's submissions (same accession
 * numbers, fiscal labels and filing dates). Facts start with the reports of fiscal
 * XBRL_FIRST_YEAR (whose 10-K carries the two years before as comparatives); earlier filings
 * have none, like filings from before XBRL, which keeps the demo import to a few seconds.
 *
 * Filing patterns, as real filers report:
 * - a 10-Q carries the quarter and the year to date for income-statement lines (Q1: one
 *   figure), the year to date only for cash-flow lines, and balances at the quarter end and
 *   the last fiscal year end; some companies (YTD_ONLY) report Q2 and Q3 as year to date only,
 *   so those quarters exist only as differences;
 * - a 10-K carries three fiscal years of flows and two year-end balance sheets; no Q4 figure;
 * - a RESTATED year is reported again by the next two 10-Ks with revenue and cost of revenue
 *   lowered by the same amount (a reclassification: gross profit and earnings unchanged);
 * - LEGACY_REVENUE companies tagged revenue SalesRevenueNet in reports of fiscal years before
 *   they adopted ASC 606 (their first ASC 606 10-K re-tags the comparative years);
 * - dei:EntityCommonStockSharesOutstanding on every cover, one fact per share class;
 * - `frame` on the latest-filed fact of each calendar quarter, year or quarter-end instant.
 */
import { join } from "node:path";
import { addDays, daysBetween } from "../domain/dates.ts";
import type { SecFact } from "../ingest/sources/companyfacts.ts";
import type { CompanyModel } from "./financials.ts";
import type { ModelQuarter } from "./model.ts";
import type { DemoPeriod } from "./periods.ts";
import { write } from "./sources.ts";
import type { DemoCompany } from "./universe.ts";
import { CONCEPTS, type ConceptKind, type ConceptSpec, revenueConcept } from "./xbrl-concepts.ts";

/** How a company presents its facts (see the file comment). */
export interface XbrlPresentation {
  ytdOnly: boolean;
  restatedYear: number | null;
  legacyRevenue: boolean;
}

const YTD_ONLY = new Set(["DWGT", "DBNK", "DBEV", "DLOG", "DBIO", "DHOM"]);
const RESTATED: Readonly<Record<string, number>> = { DWGT: 2018, DMTR: 2020 };
const LEGACY_REVENUE = new Set(["DFOO", "DSTL"]);
/** Reports of this fiscal year on tag revenue RevenueFromContractWithCustomerExcludingAssessedTax. */
const ASC_606_YEAR = 2018;
/** The first fiscal year whose reports carry XBRL facts. */
export const XBRL_FIRST_YEAR = 2017;
/** Share of revenue moved out of revenue and cost of revenue by a restatement. */
const RESTATEMENT_SHARE = 0.012;

export function presentationOf(company: DemoCompany): XbrlPresentation {
  const ticker = company.tickers[0] ?? "";
  return {
    ytdOnly: YTD_ONLY.has(ticker),
    restatedYear: RESTATED[ticker] ?? null,
    legacyRevenue: LEGACY_REVENUE.has(ticker),
  };
}

interface ConceptFacts {
  spec: Pick<ConceptSpec, "name" | "label" | "unit">;
  facts: SecFact[];
}

/** The companyfacts document of one company, as the SEC API returns it, for its 10-K/10-Q `periods`. */
export function companyFacts(model: CompanyModel, periods: readonly DemoPeriod[]): object {
  const filings = periods.filter((p) => p.fy >= XBRL_FIRST_YEAR);
  const gaap = collectFacts(model, filings);
  const dei = new Map([["EntityCommonStockSharesOutstanding", coverFacts(model, filings)]]);
  for (const concept of gaap.values()) assignFrames(concept.facts);
  return {
    cik: Number(model.company.cik),
    entityName: model.company.name,
    facts: { dei: serialize(dei), "us-gaap": serialize(gaap) },
  };
}

/** Writes `edgar/companyfacts/CIK##########.json`. */
export function writeCompanyFacts(dir: string, model: CompanyModel, periods: readonly DemoPeriod[]): void {
  const path = join(dir, "edgar", "companyfacts", `CIK${model.company.cik}.json`);
  write(path, JSON.stringify(companyFacts(model, periods)));
}

function collectFacts(model: CompanyModel, filings: readonly DemoPeriod[]): Map<string, ConceptFacts> {
  const presentation = presentationOf(model.company);
  const years = new Map<number, ModelQuarter[]>();
  for (const q of model.quarters) years.set(q.fy, [...(years.get(q.fy) ?? []), q]);
  const general = model.profile.template === "general";
  const revenue = (fy: number) =>
    !general
      ? "Revenues"
      : presentation.legacyRevenue && fy < ASC_606_YEAR
        ? "SalesRevenueNet"
        : "RevenueFromContractWithCustomerExcludingAssessedTax";
  const specs = CONCEPTS.filter((spec) => spec.reportedBy(model));
  const out = new Map<string, ConceptFacts>();
  for (const filing of filings) {
    for (const spec of [revenueConcept(revenue(filing.fy)), ...specs]) {
      const entry = out.get(spec.name) ?? { spec, facts: [] };
      out.set(spec.name, entry);
      for (const quarters of periodsOf(spec.kind, filing, years, presentation.ytdOnly)) {
        const restatement = restatementOf(quarters, filing, presentation.restatedYear);
        entry.facts.push(factOf(quarters, spec.value({ quarters, restatement }), spec.kind, filing));
      }
    }
  }
  return out;
}

const complete = (year: ModelQuarter[] | undefined): year is ModelQuarter[] => year?.length === 4;

/** The periods a filing reports for a concept of `kind`, each as its quarters. */
function periodsOf(
  kind: ConceptKind,
  filing: DemoPeriod,
  years: ReadonlyMap<number, ModelQuarter[]>,
  ytdOnly: boolean,
): ModelQuarter[][] {
  const year = years.get(filing.fy) ?? [];
  const priorYearEnd = years.get(filing.fy - 1)?.[3];
  if (filing.fp === "FY") {
    if (kind === "instant") return [priorYearEnd, year[3]].flatMap((q) => (q ? [[q]] : []));
    return [filing.fy - 2, filing.fy - 1, filing.fy].map((fy) => years.get(fy)).filter(complete);
  }
  const n = Number(filing.fp.slice(1));
  const current = year[n - 1];
  if (current === undefined) throw new Error(`no model quarter for ${filing.accession}`);
  if (kind === "instant") return priorYearEnd ? [[priorYearEnd], [current]] : [[current]];
  const toDate = year.slice(0, n);
  if (kind === "cashFlow" || n === 1 || ytdOnly) return [toDate];
  return [[current], toDate];
}

/** The amount a restating 10-K moves out of the restated year's revenue and cost. */
function restatementOf(quarters: readonly ModelQuarter[], filing: DemoPeriod, restatedYear: number | null) {
  const fy = quarters[0]?.fy;
  if (restatedYear === null || fy !== restatedYear || quarters.length !== 4) return 0;
  if (filing.fp !== "FY" || filing.fy <= restatedYear) return 0;
  const revenue = quarters.reduce((sum, q) => sum + q.flows.revenue, 0);
  return Math.round((revenue * RESTATEMENT_SHARE) / 1000) * 1000;
}

function factOf(quarters: readonly ModelQuarter[], val: number, kind: ConceptKind, f: DemoPeriod): SecFact {
  const first = quarters[0] as ModelQuarter;
  const last = quarters[quarters.length - 1] as ModelQuarter;
  const filing = { accn: f.accession, fy: f.fy, fp: f.fp, form: f.form, filed: f.filed };
  return kind === "instant"
    ? { end: last.end, val, ...filing }
    : { start: first.start, end: last.end, val, ...filing };
}

/** Cover-page share counts, ten days before filing; a dual-class company lists each class. */
function coverFacts(model: CompanyModel, filings: readonly DemoPeriod[]): ConceptFacts {
  const spec = {
    name: "EntityCommonStockSharesOutstanding",
    label: "Entity Common Stock, Shares Outstanding",
  };
  const classes = model.company.tickers.length > 1 ? [0.25, 0.75] : [1];
  const facts = filings.flatMap((f) => {
    const end = addDays(f.filed, -10);
    const total = model.sharesAt(end);
    const first = Math.round(total * (classes[0] as number));
    const counts = classes.length > 1 ? [first, total - first] : [total];
    return counts.map((val) => ({
      end,
      val,
      accn: f.accession,
      fy: f.fy,
      fp: f.fp,
      form: f.form,
      filed: f.filed,
    }));
  });
  return { spec: { ...spec, unit: "shares" }, facts };
}

/** The SEC's calendar frame of a period: CY2023, CY2023Q4 or CY2023Q4I; null for other spans. */
export function frameOf(start: string | undefined, end: string): string | null {
  const quarterOf = (date: string) =>
    `CY${date.slice(0, 4)}Q${Math.floor((Number(date.slice(5, 7)) - 1) / 3) + 1}`;
  if (start === undefined) return `${quarterOf(addDays(end, -45))}I`;
  const days = daysBetween(start, end) + 1;
  const middle = addDays(start, Math.floor(days / 2));
  if (days >= 350 && days <= 380) return `CY${middle.slice(0, 4)}`;
  if (days >= 80 && days <= 100) return quarterOf(middle);
  return null;
}

/** Frames the latest-filed fact of each period that has a calendar frame. */
function assignFrames(facts: SecFact[]): void {
  const latest = new Map<string, SecFact>();
  for (const fact of facts) {
    const key = `${fact.start ?? ""}|${fact.end}`;
    const seen = latest.get(key);
    if (!seen || fact.filed > seen.filed || (fact.filed === seen.filed && fact.accn > seen.accn)) {
      latest.set(key, fact);
    }
  }
  for (const fact of latest.values()) {
    const frame = frameOf(fact.start, fact.end);
    if (frame !== null) fact.frame = frame;
  }
}

const byPeriodThenFiling = (a: SecFact, b: SecFact) =>
  a.end.localeCompare(b.end) ||
  (a.start ?? "").localeCompare(b.start ?? "") ||
  a.filed.localeCompare(b.filed) ||
  a.accn.localeCompare(b.accn);

function serialize(concepts: ReadonlyMap<string, ConceptFacts>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of [...concepts.keys()].sort()) {
    const { spec, facts } = concepts.get(name) as ConceptFacts;
    out[name] = {
      label: spec.label,
      description: `${spec.label}. A fictional figure of the stockd demo data set.`,
      units: { [spec.unit]: [...facts].sort(byPeriodThenFiling) },
    };
  }
  return out;
}
