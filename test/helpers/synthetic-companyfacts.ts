/** Small synthetic companyfacts files in SEC's JSON layout, for tests of the rules on facts a real file may not hold. */
import { type CompanyFacts, parseCompanyFacts } from "../../src/ingest/sources/companyfacts.ts";

/** One synthetic fact; the filing defaults to a 10-K filed after the period. */
export interface SyntheticFact {
  concept: string;
  start?: string;
  end: string;
  val: number;
  unit?: string;
  taxonomy?: string;
  accn?: string;
  form?: string;
  fy?: number | null;
  fp?: string | null;
  filed?: string;
}

/** A companyfacts document (SEC's JSON layout) of the given facts. */
export function syntheticFactsJson(
  facts: readonly SyntheticFact[],
  cik: number | string = 123,
): { cik: number | string; entityName: string; facts: unknown } {
  const tree: Record<string, Record<string, { units: Record<string, unknown[]> }>> = {};
  for (const f of facts) {
    const taxonomy = tree[f.taxonomy ?? "us-gaap"] ?? {};
    tree[f.taxonomy ?? "us-gaap"] = taxonomy;
    const concept = taxonomy[f.concept] ?? { units: {} };
    taxonomy[f.concept] = concept;
    const list = concept.units[f.unit ?? "USD"] ?? [];
    concept.units[f.unit ?? "USD"] = list;
    list.push({
      ...(f.start === undefined ? {} : { start: f.start }),
      end: f.end,
      val: f.val,
      accn: f.accn ?? "0000000123-99-000001",
      fy: f.fy === undefined ? 2099 : f.fy,
      fp: f.fp === undefined ? "FY" : f.fp,
      form: f.form ?? "10-K",
      filed: f.filed ?? "2026-06-30",
    });
  }
  return { cik, entityName: "Synthetic Co", facts: tree };
}

/** A companyfacts file of the given facts, parsed by the real parser. */
export function syntheticCompany(facts: readonly SyntheticFact[], cik: number | string = 123): CompanyFacts {
  return parseCompanyFacts(syntheticFactsJson(facts, cik), "synthetic.json");
}

/** Facts of one filing: the filing fields filled in for each fact. */
export function filing(
  accn: string,
  form: string,
  fy: number,
  fp: string,
  filed: string,
  facts: ReadonlyArray<Omit<SyntheticFact, "accn" | "form" | "fy" | "fp" | "filed">>,
): SyntheticFact[] {
  return facts.map((f) => ({ ...f, accn, form, fy, fp, filed }));
}

/** A fact without its filing (`filing` fills that in). */
export type Fact = Omit<SyntheticFact, "accn" | "form" | "fy" | "fp" | "filed">;

/** A duration fact. */
export const flow = (concept: string, start: string, end: string, val: number, unit = "USD"): Fact => ({
  concept,
  start,
  end,
  val,
  unit,
});
/** An instant (balance-sheet) fact. */
export const instant = (concept: string, end: string, val: number): Fact => ({ concept, end, val });

/**
 * A calendar-year company's filings for `year`: 10-Qs with three-month revenue, net income
 * (half the revenue), diluted shares (10) and EPS, year-to-date operating cash flow (a tenth
 * of revenue), and a 10-K with the full year (no fourth-quarter figures, as in current
 * 10-Ks). `revenue[i]` is quarter i+1's revenue; `skip` leaves a quarter's filing out.
 */
export function calendarYear(year: number, revenue: number[], skip: number | null = null): SyntheticFact[] {
  const quarterEnds = [`${year}-03-31`, `${year}-06-30`, `${year}-09-30`, `${year}-12-31`];
  const starts = [`${year}-01-01`, `${year}-04-01`, `${year}-07-01`, `${year}-10-01`];
  const out: SyntheticFact[] = [];
  quarterEnds.forEach((end, i) => {
    if (i === skip) return;
    const toDate = revenue.slice(0, i + 1).reduce((a, b) => a + b, 0);
    const own = i < 3 ? (revenue[i] ?? 0) : toDate;
    const start = i < 3 ? (starts[i] as string) : `${year}-01-01`;
    const facts: Fact[] = [
      instant("Assets", end, 1000 * (year - 2000) + i),
      flow("NetCashProvidedByUsedInOperatingActivities", `${year}-01-01`, end, toDate / 10),
      flow("Revenues", `${year}-01-01`, end, toDate),
      flow("NetIncomeLoss", start, end, own / 2),
      flow("WeightedAverageNumberOfDilutedSharesOutstanding", start, end, 10, "shares"),
      flow("EarningsPerShareDiluted", start, end, own / 20, "USD/shares"),
    ];
    if (i > 0 && i < 3) facts.push(flow("Revenues", start, end, own));
    const filed = i < 3 ? `${year}-${["05", "08", "11"][i]}-01` : `${year + 1}-02-15`;
    const form = i < 3 ? "10-Q" : "10-K";
    out.push(
      ...filing(`0000000123-${year % 100}-00000${i}`, form, year, i < 3 ? `Q${i + 1}` : "FY", filed, facts),
    );
  });
  return out;
}
