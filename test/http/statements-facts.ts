/**
 * What the statements tests (statements-*.test.ts) hold /stocks/{symbol}/balance-sheet,
 * /cash-flow-statement and /income-statement against, over a snapshot imported from the public
 * fixtures (STOCKD_FIXTURES): every expected value is read from the raw SEC file
 * edgar/companyfacts/CIK##########.json, by concept and period (start/end), the latest filing of
 * that period winning; derived quarters and TTM sums are recomputed from those raw facts.
 *
 * Concepts read from the raw files (the us-gaap concepts these filers tag the lines with):
 * revenue RevenueFromContractWithCustomerExcludingAssessedTax, else Revenues, else
 * SalesRevenueNet; net income NetIncomeLoss; total assets Assets (an instant); cash from
 * operations NetCashProvidedByUsedInOperatingActivities; capital expenditure
 * PaymentsToAcquirePropertyPlantAndEquipment, else PaymentsToAcquireProductiveAssets (reported
 * as a positive payment; our cash-flow statement shows it negative); diluted average shares
 * WeightedAverageNumberOfDilutedSharesOutstanding (unit `shares`).
 */
import { expect } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { daysBetween } from "../../src/domain/dates.ts";
import type { ServedPeriod } from "../../src/query/statements.ts";
import { FIXTURES } from "../helpers/env.ts";
import {
  latestFiled,
  periodFacts,
  readCompanyFacts,
  type SecCompanyFacts,
  type SecFact,
} from "../helpers/raw-companyfacts.ts";
import { chargedBy } from "../helpers/responses.ts";
import { serverOverImport } from "../helpers/server.ts";

export const root = FIXTURES ?? "";

export const AAPL = "0000320193";
export const NVDA = "0001045810";
export const TSLA = "0001318605";
export const TSM = "0001046179";
export const CIK: Record<string, string> = { AAPL, NVDA, TSLA };

// ---------------------------------------------------------------------------------------------
// Raw companyfacts: edgar/companyfacts/CIK##########.json (test/helpers/raw-companyfacts.ts)
// ---------------------------------------------------------------------------------------------

export function rawFile(cik: string): SecCompanyFacts {
  return readCompanyFacts(root, cik);
}

/**
 * Filings whose facts are financial statements: periodic reports and their amendments, and
 * 8-K/6-K recasts. Proxy statements (DEF 14A) and prospectuses (424B5) carry tables, not
 * statements (in these files they repeat the 10-K values anyway).
 */
const STATEMENT_FORMS = new Set(
  ["10-K", "10-Q", "20-F", "40-F", "10-KT", "10-QT", "8-K", "6-K"].flatMap((f) => [f, `${f}/A`]),
);

/**
 * Statement facts of one concept (us-gaap, or `taxonomy:Name`) and unit for exactly (start,
 * end); start null = an instant.
 */
export function rawFacts(
  cik: string,
  concept: string,
  start: string | null,
  end: string,
  unit = "USD",
): SecFact[] {
  return periodFacts(rawFile(cik), concept, start, end, unit).filter((f) => STATEMENT_FORMS.has(f.form));
}

/** The first of `concepts` reported for exactly (start, end), its latest fact; else null. */
export function rawFact(
  cik: string,
  concepts: readonly string[],
  start: string | null,
  end: string,
  unit = "USD",
): SecFact | null {
  for (const concept of concepts) {
    const fact = latestFiled(rawFacts(cik, concept, start, end, unit));
    if (fact) return fact;
  }
  return null;
}

/**
 * The fixture filers' stock splits since their companyfacts begin (effective dates, from their
 * 8-Ks): a share count filed before one is served multiplied by its ratio, an EPS divided.
 */
export const SPLITS: Record<string, readonly (readonly [string, number])[]> = {
  [AAPL]: [
    ["2014-06-09", 7],
    ["2020-08-31", 4],
  ],
  [NVDA]: [
    ["2021-07-20", 4],
    ["2024-06-10", 10],
  ],
  [TSLA]: [
    ["2020-08-31", 5],
    ["2022-08-25", 3],
  ],
};

/** The product of the ratios of the company's splits after a filing date. */
export const splitsAfter = (cik: string, filed: string): number =>
  (SPLITS[cik] ?? []).filter(([date]) => date > filed).reduce((factor, [, ratio]) => factor * ratio, 1);

/** The value of `rawFact`; a missing fact fails the test (never compare null with null by accident). */
export function raw(
  cik: string,
  concepts: readonly string[],
  start: string | null,
  end: string,
  unit = "USD",
): number {
  const value = rawFact(cik, concepts, start, end, unit)?.val ?? null;
  if (value === null)
    throw new Error(`CIK${cik}.json: no ${concepts.join("/")} ${start ?? ""}..${end} ${unit}`);
  return value;
}

// us-gaap concepts (see the file comment).
export const REVENUE = ["Revenues", "RevenueFromContractWithCustomerExcludingAssessedTax", "SalesRevenueNet"];
export const NET_INCOME = ["NetIncomeLoss"];
export const ASSETS = ["Assets"];
export const CFO = [
  "NetCashProvidedByUsedInOperatingActivities",
  "NetCashProvidedByUsedInOperatingActivitiesContinuingOperations",
];
export const CAPEX = ["PaymentsToAcquirePropertyPlantAndEquipment", "PaymentsToAcquireProductiveAssets"];
export const DILUTED = ["WeightedAverageNumberOfDilutedSharesOutstanding"];

/** One fiscal quarter: its dates, its fiscal year's first day and the previous quarter's end. */
export interface Quarter {
  start: string;
  end: string;
  yearStart: string;
  previousEnd: string | null;
}

/**
 * A quarter's flow from the raw file: the reported three-month fact, else the year-to-date fact
 * to this quarter minus the year-to-date fact to the previous one (for Q4 the year-to-date fact
 * is the fiscal year's).
 */
export function quarterFlow(cik: string, concepts: string[], q: Quarter): number {
  const discrete = rawFact(cik, concepts, q.start, q.end)?.val ?? null;
  if (discrete !== null) return discrete;
  const toDate = raw(cik, concepts, q.yearStart, q.end);
  const before = q.previousEnd ? raw(cik, concepts, q.yearStart, q.previousEnd) : 0;
  return toDate - before;
}

/** Facts of `form`/`fp` filings that are durations of minDays..maxDays ending on or before their filing date. */
export function ownPeriodFacts(
  cik: string,
  form: string,
  fp: string,
  minDays: number,
  maxDays: number,
): SecFact[] {
  const out: SecFact[] = [];
  for (const [taxonomy, concepts] of Object.entries(rawFile(cik).facts)) {
    if (taxonomy === "dei") continue;
    for (const { units } of Object.values(concepts)) {
      for (const list of Object.values(units)) {
        for (const f of list) {
          if (f.form !== form || f.fp !== fp || f.start === undefined || f.end > f.filed) continue;
          const days = daysBetween(f.start, f.end) + 1;
          if (days >= minDays && days <= maxDays) out.push(f);
        }
      }
    }
  }
  return out;
}

/**
 * The fiscal labels the filer's own reports give their report periods: for each 10-K (or 10-Q)
 * the fy (and fp) of the filing, keyed by the latest end of its current-period figures (a year
 * for a 10-K, a quarter for a 10-Q).
 */
export function ownLabels(cik: string, form: "10-K" | "10-Q"): Map<string, { fy: number; fp: string }> {
  const byAccession = new Map<string, { end: string; fy: number; fp: string }>();
  const fps = form === "10-K" ? ["FY"] : ["Q1", "Q2", "Q3"];
  for (const fp of fps) {
    const facts =
      form === "10-K" ? ownPeriodFacts(cik, form, fp, 350, 380) : ownPeriodFacts(cik, form, fp, 75, 120);
    for (const f of facts) {
      if (f.fy === null) continue;
      const seen = byAccession.get(f.accn);
      if (!seen || f.end > seen.end) byAccession.set(f.accn, { end: f.end, fy: f.fy, fp });
    }
  }
  const out = new Map<string, { fy: number; fp: string }>();
  for (const { end, fy, fp } of byAccession.values()) if (!out.has(end)) out.set(end, { fy, fp });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Spec §2.18 field lists, parsed from /work/shared/spec/interface.md
// ---------------------------------------------------------------------------------------------

export function specFields(statement: "balance_sheet" | "cash_flow_statement"): string[] {
  const spec = join(import.meta.dir, "..", "..", "..", "shared", "spec", "interface.md");
  const text = readFileSync(spec, "utf8");
  const section = text.slice(text.indexOf("### 2.18"), text.indexOf("## 3."));
  const line = section.split("\n").find((l) => l.startsWith(`${statement} fields:`));
  if (!line) throw new Error(`interface.md §2.18 has no "${statement} fields:" line`);
  return line
    .slice(`${statement} fields:`.length)
    .replace(/\.\s*$/, "")
    .split(",")
    .map((f) => f.trim())
    .filter(Boolean);
}

// ---------------------------------------------------------------------------------------------
// The service
// ---------------------------------------------------------------------------------------------

export type Kind = "balance_sheet" | "cash_flow_statement" | "income_statement";
export type PeriodType = "annual" | "quarterly" | "ttm";
export type Values = Record<string, number | null>;

export interface Period extends ServedPeriod {
  balance_sheet?: Values;
  cash_flow_statement?: Values;
  income_statement?: Values;
}

export const PATH: Record<Kind, string> = {
  balance_sheet: "balance-sheet",
  cash_flow_statement: "cash-flow-statement",
  income_statement: "income-statement",
};
export const KINDS = Object.keys(PATH) as Kind[];
export const TYPES: PeriodType[] = ["annual", "quarterly", "ttm"];

export function values(period: Period, kind: Kind): Values {
  const v = period[kind];
  if (!v) throw new Error(`period ${period.snapshot_date} has no ${kind} object`);
  return v;
}

/**
 * Called inside a describe: the server over the fixtures' import (test/helpers/server.ts) and
 * the statements it serves, each path fetched once per file (a billed 200, asserted as such).
 */
export function statementsServer() {
  const fixtures = serverOverImport(root);
  const server = fixtures.server;
  const cache = new Map<string, Promise<Period[]>>();

  /** All periods (limit=100) of one statement and type; each call is a billed 200. */
  function periods(symbol: string, kind: Kind, type: PeriodType): Promise<Period[]> {
    const path = `/stocks/${symbol}/${PATH[kind]}?period_type=${type}&limit=100`;
    let result = cache.get(path);
    if (!result) {
      result = (async () => {
        const res = await server.get(path, fixtures.key);
        expect(res.status, path).toBe(200);
        expect(chargedBy(res), path).toBe(1);
        const body = (await res.json()) as { symbol: string; periods: Period[] };
        expect(body.symbol, path).toBe(symbol);
        return body.periods;
      })();
      cache.set(path, result);
    }
    return result;
  }

  async function periodAt(symbol: string, kind: Kind, type: PeriodType, end: string): Promise<Period> {
    const found = (await periods(symbol, kind, type)).find((p) => p.snapshot_date === end);
    if (!found) throw new Error(`${symbol} ${kind}: no ${type} period ending ${end}`);
    return found;
  }

  /** The three statements' rows of one period. */
  async function rows(symbol: string, type: PeriodType, end: string) {
    return {
      income: await periodAt(symbol, "income_statement", type, end),
      cash: await periodAt(symbol, "cash_flow_statement", type, end),
      balance: await periodAt(symbol, "balance_sheet", type, end),
    };
  }

  return {
    server,
    get key(): string {
      return fixtures.key;
    },
    periods,
    periodAt,
    rows,
  };
}
