/**
 * An independent reading of a raw SEC companyfacts file: what an analyst reads off the
 * filings for a handful of headline figures, written without the importer's code, so that
 * tests can hold what the API serves against it.
 *
 * - Annual: the value a 10-K (20-F, 40-F) reports for a period of 350–380 days, the latest
 *   filing's when several report it (restatements win).
 * - Quarterly: a 10-Q's three-month value; Q4 = the fiscal year − its nine months.
 * - TTM: the sum of four consecutive quarters.
 * - Per-share amounts and share counts on today's basis: a value filed before a split is
 *   converted by the splits dated after its filing (`splits`, from the public record).
 */

/** A stock split: on `date` every share became `ratio` shares. */
export interface Split {
  date: string;
  ratio: number;
}

interface RawFact {
  start?: string;
  end: string;
  val: number;
  form: string;
  filed: string;
  accn: string;
}

interface RawFacts {
  facts: Record<string, Record<string, { units: Record<string, RawFact[]> }>>;
}

/** The headline figures compared, and the concepts an analyst reads each from, in order. */
export const HEADLINE_CONCEPTS = {
  revenue: [
    "Revenues",
    "RevenueFromContractWithCustomerExcludingAssessedTax",
    "SalesRevenueNet",
    "RevenueFromContractWithCustomerIncludingAssessedTax",
    "SalesRevenueGoodsNet",
    "ifrs-full:Revenue",
  ],
  gross_profit: ["GrossProfit", "ifrs-full:GrossProfit"],
  operating_income: ["OperatingIncomeLoss", "ifrs-full:ProfitLossFromOperatingActivities"],
  net_income: ["NetIncomeLoss", "ifrs-full:ProfitLossAttributableToOwnersOfParent"],
  diluted_eps: [
    "EarningsPerShareDiluted",
    "EarningsPerShareBasicAndDiluted",
    "ifrs-full:DilutedEarningsLossPerShare",
  ],
  diluted_average_shares: [
    "WeightedAverageNumberOfDilutedSharesOutstanding",
    "WeightedAverageNumberOfShareOutstandingBasicAndDiluted",
    "ifrs-full:AdjustedWeightedAverageShares",
  ],
  cash_flow_from_operations: [
    "NetCashProvidedByUsedInOperatingActivities",
    "ifrs-full:CashFlowsFromUsedInOperatingActivities",
  ],
  capital_expenditure: [
    "PaymentsToAcquirePropertyPlantAndEquipment",
    "PaymentsToAcquireProductiveAssets",
    "ifrs-full:PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities",
  ],
  total_assets: ["Assets", "ifrs-full:Assets"],
  total_liabilities: ["Liabilities", "ifrs-full:Liabilities"],
  total_stockholders_equity: ["StockholdersEquity", "ifrs-full:EquityAttributableToOwnersOfParent"],
  cash_and_cash_equivalents: [
    "CashAndCashEquivalentsAtCarryingValue",
    "Cash",
    "ifrs-full:CashAndCashEquivalents",
  ],
} as const;

export type Headline = keyof typeof HEADLINE_CONCEPTS;

const INSTANT: ReadonlySet<Headline> = new Set([
  "total_assets",
  "total_liabilities",
  "total_stockholders_equity",
  "cash_and_cash_equivalents",
]);
const PER_SHARE: ReadonlySet<Headline> = new Set(["diluted_eps"]);
const SHARES: ReadonlySet<Headline> = new Set(["diluted_average_shares"]);

const DAY = 86_400_000;
const days = (start: string, end: string): number => (Date.parse(end) - Date.parse(start)) / DAY;
const isAnnualForm = (form: string): boolean => /^(10-K|20-F|40-F)/.test(form);
const isQuarterForm = (form: string): boolean => /^10-Q/.test(form);
const isPeriodic = (form: string): boolean => isAnnualForm(form) || isQuarterForm(form);

/** A value and the filing it comes from. */
export interface Reported {
  value: number;
  filed: string;
}

/** The facts of one concept in the unit a headline is measured in. */
function factsOf(raw: RawFacts, concept: string, headline: Headline, currency: string): RawFact[] {
  const [taxonomy, name] = concept.includes(":") ? concept.split(":") : ["us-gaap", concept];
  const unit = PER_SHARE.has(headline) ? `${currency}/shares` : SHARES.has(headline) ? "shares" : currency;
  return raw.facts[taxonomy as string]?.[name as string]?.units[unit] ?? [];
}

/** Latest-filed value per period key among `facts` that pass `keep`. */
function latestByPeriod(facts: readonly RawFact[], keep: (f: RawFact) => boolean): Map<string, RawFact> {
  const out = new Map<string, RawFact>();
  for (const f of facts) {
    if (!keep(f)) continue;
    const key = `${f.start ?? ""}|${f.end}`;
    const seen = out.get(key);
    if (seen === undefined || f.filed > seen.filed || (f.filed === seen.filed && f.accn > seen.accn))
      out.set(key, f);
  }
  return out;
}

/** Converts a per-share amount or share count filed on `filed` to the basis after every split. */
function onTodaysBasis(headline: Headline, value: number, filed: string, splits: readonly Split[]): number {
  let factor = 1;
  for (const s of splits) if (s.date > filed) factor *= s.ratio;
  if (PER_SHARE.has(headline)) return value / factor;
  if (SHARES.has(headline)) return value * factor;
  return value;
}

/** One company's raw facts, read the analyst's way. */
export class FilerReference {
  constructor(
    private readonly raw: RawFacts,
    private readonly currency: string,
    private readonly splits: readonly Split[] = [],
  ) {}

  /** The fiscal year ending on `end` (a duration of 350–380 days; the balance at `end`). */
  annual(headline: Headline, end: string): Reported | null {
    for (const concept of HEADLINE_CONCEPTS[headline]) {
      const fact = this.annualFact(concept, headline, end);
      if (fact !== undefined) return this.reported(headline, fact);
    }
    return null;
  }

  /**
   * The fiscal quarter ending on `end` that starts about `start`: a reported three-month
   * value, else (the fourth quarter of a flow) the year ending on `end` − its nine months.
   */
  quarter(headline: Headline, start: string, end: string): Reported | null {
    if (INSTANT.has(headline)) return this.instant(headline, end);
    for (const concept of HEADLINE_CONCEPTS[headline]) {
      const facts = factsOf(this.raw, concept, headline, this.currency);
      const periods = latestByPeriod(
        facts,
        (f) => f.end === end && f.start !== undefined && isPeriodic(f.form),
      );
      const three = [...periods.values()].find(
        (f) =>
          inRange(days(f.start as string, end), 80, 100) && Math.abs(days(start, f.start as string)) <= 10,
      );
      if (three !== undefined) return this.reported(headline, three);
      if (PER_SHARE.has(headline) || SHARES.has(headline)) continue;
      const year = this.annualFact(concept, headline, end);
      if (year === undefined) continue;
      const nine = latestByPeriod(
        facts,
        (f) =>
          f.start === year.start &&
          f.end !== undefined &&
          isQuarterForm(f.form) &&
          inRange(days(f.start as string, f.end), 260, 285),
      );
      const nineMonths = [...nine.values()][0];
      if (nineMonths === undefined) continue;
      return {
        value: year.val - nineMonths.val,
        filed: [year.filed, nineMonths.filed].sort()[1] as string,
      };
    }
    return null;
  }

  /** A balance: the annual report's at a fiscal year end, else the quarterly report's. */
  private instant(headline: Headline, end: string): Reported | null {
    for (const concept of HEADLINE_CONCEPTS[headline]) {
      const facts = factsOf(this.raw, concept, headline, this.currency);
      for (const form of [isAnnualForm, isQuarterForm]) {
        const found = latestByPeriod(facts, (f) => f.end === end && f.start === undefined && form(f.form));
        const fact = [...found.values()][0];
        if (fact !== undefined) return this.reported(headline, fact);
      }
    }
    return null;
  }

  /** The fiscal year of `concept` ending on `end`, as the latest annual report gives it. */
  private annualFact(concept: string, headline: Headline, end: string): RawFact | undefined {
    const found = latestByPeriod(
      factsOf(this.raw, concept, headline, this.currency),
      (f) =>
        f.end === end &&
        isAnnualForm(f.form) &&
        (INSTANT.has(headline)
          ? f.start === undefined
          : f.start !== undefined && inRange(days(f.start, f.end), 350, 380)),
    );
    return [...found.values()][0];
  }

  private reported(headline: Headline, fact: RawFact): Reported {
    return { value: onTodaysBasis(headline, fact.val, fact.filed, this.splits), filed: fact.filed };
  }
}

function inRange(x: number, low: number, high: number): boolean {
  return x >= low && x <= high;
}

/** Whether two amounts agree: to within half a unit of the last reported digit, or 0.5%. */
export function agrees(served: number, reference: number, relative = 0.005): boolean {
  if (served === reference) return true;
  const scale = Math.max(Math.abs(served), Math.abs(reference));
  return Math.abs(served - reference) <= Math.max(relative * scale, 0.0051);
}
