/**
 * XBRL-shaped `companyfacts` for the benchmark universe (the SEC companyfacts API layout):
 * ~37 us-gaap/dei concepts per company, filed the way real filers file them.
 *
 * - a 10-Q carries the quarter and the same quarter a year earlier for income lines, plus both
 *   years to date from Q2 on; cash-flow lines year to date (this and last year); balances at
 *   the quarter end and the last fiscal year end;
 * - a 10-K carries three fiscal years of flows and two year-end balance sheets;
 * - dei:EntityCommonStockSharesOutstanding on every cover.
 * The numbers come from a small seeded model (revenue with drift and noise, margins, a
 * balance sheet that balances), so statements, TTM periods and ratios can be computed.
 */
import { monthEnd } from "../../src/demo/periods.ts";
import type { DemoFiling } from "../../src/demo/sources.ts";
import { type DemoCompany, rng } from "../../src/demo/universe.ts";
import { addDays } from "../../src/domain/dates.ts";
import type { SecFact } from "../../src/ingest/sources/companyfacts.ts";

const INCOME = [
  "Revenues",
  "CostOfRevenue",
  "GrossProfit",
  "ResearchAndDevelopmentExpense",
  "SellingGeneralAndAdministrativeExpense",
  "OperatingIncomeLoss",
  "InterestExpense",
  "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
  "IncomeTaxExpenseBenefit",
  "NetIncomeLoss",
] as const;
const CASH_FLOW = [
  "NetCashProvidedByUsedInOperatingActivities",
  "DepreciationDepletionAndAmortization",
  "ShareBasedCompensation",
  "PaymentsToAcquirePropertyPlantAndEquipment",
  "NetCashProvidedByUsedInInvestingActivities",
  "PaymentsOfDividends",
  "PaymentsForRepurchaseOfCommonStock",
  "NetCashProvidedByUsedInFinancingActivities",
] as const;
const BALANCE = [
  "CashAndCashEquivalentsAtCarryingValue",
  "AccountsReceivableNetCurrent",
  "InventoryNet",
  "AssetsCurrent",
  "PropertyPlantAndEquipmentNet",
  "Goodwill",
  "Assets",
  "AccountsPayableCurrent",
  "LiabilitiesCurrent",
  "LongTermDebtNoncurrent",
  "Liabilities",
  "RetainedEarningsAccumulatedDeficit",
  "StockholdersEquity",
  "LiabilitiesAndStockholdersEquity",
] as const;

type IncomeConcept = (typeof INCOME)[number];
type FlowConcept = IncomeConcept | (typeof CASH_FLOW)[number];
type BalanceConcept = (typeof BALANCE)[number];

/** One fiscal quarter of the model. */
export interface ModelQuarter {
  fy: number;
  q: 1 | 2 | 3 | 4;
  start: string;
  end: string;
  flows: Record<FlowConcept, number>;
  balances: Record<BalanceConcept, number>;
  shares: number;
  dilutedShares: number;
}

interface Filing {
  fy: number;
  q: 1 | 2 | 3 | 4;
  form: "10-Q" | "10-K";
  filed: string;
  accn: string;
}

/** Fiscal quarters of fiscal years `fromFy`..`toFy` (a year is named by the year it ends in). */
function fiscalQuarters(
  company: DemoCompany,
  fromFy: number,
  toFy: number,
): Omit<ModelQuarter, "flows" | "balances" | "shares" | "dilutedShares">[] {
  const month = company.fiscalYearEnd.slice(0, 2);
  const out: Omit<ModelQuarter, "flows" | "balances" | "shares" | "dilutedShares">[] = [];
  for (let fy = fromFy; fy <= toFy; fy++) {
    let start = addDays(monthEnd(`${fy - 1}-${month}-01`, 0), 1);
    for (const q of [1, 2, 3, 4] as const) {
      const end = monthEnd(start, 2);
      out.push({ fy, q, start, end });
      start = addDays(end, 1);
    }
  }
  return out;
}

/** A seeded quarterly model of one company from `fromFy` through `toFy`. */
export function companyModel(company: DemoCompany, fromFy: number, toFy: number): ModelQuarter[] {
  const random = rng(company.seed * 7 + 3);
  const grossMargin = 0.25 + random() * 0.45;
  const rnd = random() * 0.15;
  const sga = 0.08 + random() * 0.15;
  const payout = company.dividend > 0 ? 0.3 : 0;
  let revenue = (20 + random() * 2000) * 1e6;
  let shares = company.sharesOutstanding;
  let cash = revenue * 0.8;
  let retained = revenue * 2;
  const debt = revenue * random() * 3;
  const goodwill = revenue * random() * 2;
  let ppe = revenue * (0.5 + random() * 2);
  return fiscalQuarters(company, fromFy, toFy).map((period) => {
    revenue *= Math.exp(company.drift / 4 + (random() - 0.5) * 0.08);
    shares = Math.round(shares * (1 - random() * 0.004));
    const flows = quarterFlows(revenue, { grossMargin, rnd, sga, debt, payout, shares, random });
    ppe += flows.PaymentsToAcquirePropertyPlantAndEquipment - flows.DepreciationDepletionAndAmortization;
    cash +=
      flows.NetCashProvidedByUsedInOperatingActivities + flows.NetCashProvidedByUsedInInvestingActivities;
    cash += flows.NetCashProvidedByUsedInFinancingActivities;
    retained += flows.NetIncomeLoss - flows.PaymentsOfDividends;
    const balances = quarterBalances({ revenue, cash, ppe, goodwill, debt, retained });
    return { ...period, flows, balances, shares, dilutedShares: Math.round(shares * 1.015) };
  });
}

interface FlowDrivers {
  grossMargin: number;
  rnd: number;
  sga: number;
  debt: number;
  payout: number;
  shares: number;
  random: () => number;
}

function quarterFlows(revenue: number, d: FlowDrivers): Record<FlowConcept, number> {
  const cost = revenue * (1 - d.grossMargin);
  const gross = revenue - cost;
  const rnd = revenue * d.rnd;
  const sga = revenue * d.sga;
  const operating = gross - rnd - sga;
  const interest = (d.debt * 0.05) / 4;
  const pretax = operating - interest;
  const tax = Math.max(0, pretax * 0.21);
  const net = pretax - tax;
  const dna = revenue * 0.04;
  const sbc = revenue * 0.02;
  const capex = revenue * (0.03 + d.random() * 0.05);
  const dividends = Math.max(0, net * d.payout);
  const buybacks = Math.max(0, net * 0.2 * d.random());
  const operatingCash = net + dna + sbc + revenue * (d.random() - 0.5) * 0.04;
  return {
    Revenues: revenue,
    CostOfRevenue: cost,
    GrossProfit: gross,
    ResearchAndDevelopmentExpense: rnd,
    SellingGeneralAndAdministrativeExpense: sga,
    OperatingIncomeLoss: operating,
    InterestExpense: interest,
    IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest: pretax,
    IncomeTaxExpenseBenefit: tax,
    NetIncomeLoss: net,
    NetCashProvidedByUsedInOperatingActivities: operatingCash,
    DepreciationDepletionAndAmortization: dna,
    ShareBasedCompensation: sbc,
    PaymentsToAcquirePropertyPlantAndEquipment: capex,
    NetCashProvidedByUsedInInvestingActivities: -capex,
    PaymentsOfDividends: dividends,
    PaymentsForRepurchaseOfCommonStock: buybacks,
    NetCashProvidedByUsedInFinancingActivities: -dividends - buybacks,
  };
}

function quarterBalances(s: {
  revenue: number;
  cash: number;
  ppe: number;
  goodwill: number;
  debt: number;
  retained: number;
}): Record<BalanceConcept, number> {
  const receivables = s.revenue * 0.45;
  const inventory = s.revenue * 0.3;
  const current = Math.max(0, s.cash) + receivables + inventory;
  const assets = current + Math.max(0, s.ppe) + s.goodwill;
  const payables = s.revenue * 0.25;
  const currentLiabilities = payables * 1.6;
  const liabilities = currentLiabilities + s.debt;
  const equity = assets - liabilities;
  return {
    CashAndCashEquivalentsAtCarryingValue: Math.max(0, s.cash),
    AccountsReceivableNetCurrent: receivables,
    InventoryNet: inventory,
    AssetsCurrent: current,
    PropertyPlantAndEquipmentNet: Math.max(0, s.ppe),
    Goodwill: s.goodwill,
    Assets: assets,
    AccountsPayableCurrent: payables,
    LiabilitiesCurrent: currentLiabilities,
    LongTermDebtNoncurrent: s.debt,
    Liabilities: liabilities,
    RetainedEarningsAccumulatedDeficit: s.retained,
    StockholdersEquity: equity,
    LiabilitiesAndStockholdersEquity: assets,
  };
}

/** The 10-Qs and 10-Ks of the last `count` quarters filed on or before `until`. */
export function filingsOf(
  company: DemoCompany,
  model: readonly ModelQuarter[],
  count: number,
  until: string,
): Filing[] {
  const filings = model.map((m, i) => {
    const form = m.q === 4 ? ("10-K" as const) : ("10-Q" as const);
    const filed = addDays(m.end, form === "10-K" ? 60 : 40);
    return {
      fy: m.fy,
      q: m.q,
      form,
      filed,
      accn: `${company.cik}-${filed.slice(2, 4)}-${String(i + 1).padStart(6, "0")}`,
    };
  });
  return filings.filter((f) => f.filed <= until).slice(-count);
}

/** The filings as `filings.recent` entries of the submissions file. */
export function submissionFilings(filings: readonly Filing[], model: readonly ModelQuarter[]): DemoFiling[] {
  const endOf = new Map(model.map((m) => [`${m.fy}Q${m.q}`, m.end]));
  return filings.map((f) => {
    const end = endOf.get(`${f.fy}Q${f.q}`) ?? f.filed;
    return {
      accessionNumber: f.accn,
      filingDate: f.filed,
      reportDate: end,
      form: f.form,
      primaryDocument: `bench-${end.replaceAll("-", "")}.htm`,
      description: f.form === "10-K" ? "Annual report" : "Quarterly report",
    };
  });
}

/** A run of consecutive quarters (a quarter, a year to date, a fiscal year). */
interface Span {
  quarters: ModelQuarter[];
}

/** The companyfacts document of one company. */
export function companyFacts(
  company: DemoCompany,
  model: readonly ModelQuarter[],
  filings: readonly Filing[],
): object {
  const facts = new FactSet();
  const index = new Map(model.map((m, i) => [`${m.fy}Q${m.q}`, i]));
  const span = (fy: number, fromQ: number, toQ: number): Span | null => {
    const from = index.get(`${fy}Q${fromQ}`);
    const to = index.get(`${fy}Q${toQ}`);
    return from === undefined || to === undefined ? null : { quarters: model.slice(from, to + 1) };
  };
  for (const filing of filings) addFiling(facts, filing, span);
  return {
    cik: Number(company.cik),
    entityName: company.name,
    facts: { dei: facts.serialize("dei"), "us-gaap": facts.serialize("us-gaap") },
  };
}

type SpanOf = (fy: number, fromQ: number, toQ: number) => Span | null;

function addFiling(facts: FactSet, f: Filing, span: SpanOf): void {
  const meta = {
    accn: f.accn,
    fy: f.fy,
    fp: f.form === "10-K" ? "FY" : `Q${f.q}`,
    form: f.form,
    filed: f.filed,
  };
  const present = (spans: (Span | null)[]) => spans.filter((s): s is Span => s !== null);
  const income =
    f.form === "10-K"
      ? present([span(f.fy, 1, 4), span(f.fy - 1, 1, 4), span(f.fy - 2, 1, 4)])
      : present([
          span(f.fy, f.q, f.q),
          span(f.fy - 1, f.q, f.q),
          ...(f.q > 1 ? [span(f.fy, 1, f.q), span(f.fy - 1, 1, f.q)] : []),
        ]);
  const cashFlow = f.form === "10-K" ? income : present([span(f.fy, 1, f.q), span(f.fy - 1, 1, f.q)]);
  const instants = present([span(f.fy, f.q, f.q), span(f.fy - 1, 4, 4)]).map(
    (s) => s.quarters.at(-1) as ModelQuarter,
  );
  for (const [i, s] of income.entries()) addIncome(facts, s, meta, i === 0);
  for (const [i, s] of cashFlow.entries()) addCashFlow(facts, s, meta, i === 0);
  for (const [i, q] of instants.entries()) addBalances(facts, q, meta, i === 0);
  const last = instants[0];
  if (last)
    facts.add("dei", "EntityCommonStockSharesOutstanding", "shares", {
      end: addDays(f.filed, -10),
      val: last.shares,
      ...meta,
    });
}

type Meta = Pick<SecFact, "accn" | "fy" | "fp" | "form" | "filed">;

function bounds(s: Span): { start: string; end: string } {
  return { start: (s.quarters[0] as ModelQuarter).start, end: (s.quarters.at(-1) as ModelQuarter).end };
}

/** SEC-style frame of a duration (CY2019Q1, CY2019) or an instant (CY2019Q1I). */
function frameOf(end: string, quarters: number, instant: boolean): string {
  const year = end.slice(0, 4);
  const quarter = Math.ceil(Number(end.slice(5, 7)) / 3);
  if (instant) return `CY${year}Q${quarter}I`;
  return quarters === 4 ? `CY${year}` : `CY${year}Q${quarter}`;
}

function sum(s: Span, concept: FlowConcept): number {
  return s.quarters.reduce((total, q) => total + q.flows[concept], 0);
}

function addIncome(facts: FactSet, s: Span, meta: Meta, current: boolean): void {
  const period = bounds(s);
  const frame =
    current && (s.quarters.length === 1 || s.quarters.length === 4)
      ? { frame: frameOf(period.end, s.quarters.length, false) }
      : {};
  for (const concept of INCOME)
    facts.add("us-gaap", concept, "USD", { ...period, val: Math.round(sum(s, concept)), ...meta, ...frame });
  const basic = Math.round(s.quarters.reduce((t, q) => t + q.shares, 0) / s.quarters.length);
  const diluted = Math.round(s.quarters.reduce((t, q) => t + q.dilutedShares, 0) / s.quarters.length);
  const net = sum(s, "NetIncomeLoss");
  const eps = (shares: number) => Math.round((net / shares) * 100) / 100;
  facts.add("us-gaap", "EarningsPerShareBasic", "USD/shares", {
    ...period,
    val: eps(basic),
    ...meta,
    ...frame,
  });
  facts.add("us-gaap", "EarningsPerShareDiluted", "USD/shares", {
    ...period,
    val: eps(diluted),
    ...meta,
    ...frame,
  });
  facts.add("us-gaap", "WeightedAverageNumberOfSharesOutstandingBasic", "shares", {
    ...period,
    val: basic,
    ...meta,
    ...frame,
  });
  facts.add("us-gaap", "WeightedAverageNumberOfDilutedSharesOutstanding", "shares", {
    ...period,
    val: diluted,
    ...meta,
    ...frame,
  });
}

function addCashFlow(facts: FactSet, s: Span, meta: Meta, current: boolean): void {
  const period = bounds(s);
  const frame = current && s.quarters.length === 4 ? { frame: frameOf(period.end, 4, false) } : {};
  for (const concept of CASH_FLOW)
    facts.add("us-gaap", concept, "USD", { ...period, val: Math.round(sum(s, concept)), ...meta, ...frame });
}

function addBalances(facts: FactSet, q: ModelQuarter, meta: Meta, current: boolean): void {
  const frame = current ? { frame: frameOf(q.end, 1, true) } : {};
  for (const concept of BALANCE)
    facts.add("us-gaap", concept, "USD", {
      end: q.end,
      val: Math.round(q.balances[concept]),
      ...meta,
      ...frame,
    });
}

/** taxonomy → concept → unit → facts, in insertion order. */
class FactSet {
  private readonly byTaxonomy = new Map<string, Map<string, Map<string, SecFact[]>>>();

  add(taxonomy: string, concept: string, unit: string, fact: SecFact): void {
    const concepts = this.byTaxonomy.get(taxonomy) ?? new Map<string, Map<string, SecFact[]>>();
    this.byTaxonomy.set(taxonomy, concepts);
    const units = concepts.get(concept) ?? new Map<string, SecFact[]>();
    concepts.set(concept, units);
    const list = units.get(unit) ?? [];
    units.set(unit, list);
    list.push(fact);
  }

  serialize(
    taxonomy: string,
  ): Record<string, { label: string; description: string; units: Record<string, SecFact[]> }> {
    const out: Record<string, { label: string; description: string; units: Record<string, SecFact[]> }> = {};
    for (const [concept, units] of this.byTaxonomy.get(taxonomy) ?? []) {
      out[concept] = {
        label: concept,
        description: `${concept} (benchmark data)`,
        units: Object.fromEntries(units),
      };
    }
    return out;
  }
}
