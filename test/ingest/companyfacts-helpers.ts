/**
 * Helpers for the companyfacts tests: reading expected values straight from a raw SEC file
 * (independently of the code under test), and building small synthetic companyfacts files.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { StatementPeriod } from "../../src/domain/statements.ts";
import {
  type CompanyFacts,
  parseCompanyFacts,
  type SecCompanyFacts,
  type SecFact,
} from "../../src/ingest/sources/companyfacts.ts";

export const FIXTURES = process.env.STOCKD_FIXTURES;

/** The decoded JSON of a fixture companyfacts file. */
export function readRaw(cik: string): unknown {
  const text = readFileSync(join(FIXTURES ?? "", "edgar/companyfacts", `CIK${cik}.json`), "utf8");
  return JSON.parse(text);
}

/** The raw facts of one concept and unit whose period is exactly (start, end). */
export function rawFacts(
  raw: unknown,
  concept: string,
  unit: string,
  start: string | null,
  end: string,
  taxonomy = "us-gaap",
): SecFact[] {
  const list = (raw as SecCompanyFacts).facts[taxonomy]?.[concept]?.units[unit] ?? [];
  return list.filter((f) => f.end === end && (f.start ?? null) === start);
}

/**
 * The value of a period as the latest filing reports it (restatements win), taken from the
 * first of `concepts` the company reported for that period. Throws when none has it, so a
 * test never silently compares null with null.
 */
export function rawValue(
  raw: unknown,
  concepts: readonly string[],
  start: string | null,
  end: string,
  unit = "USD",
  taxonomy = "us-gaap",
): number {
  for (const concept of concepts) {
    const facts = rawFacts(raw, concept, unit, start, end, taxonomy);
    const latest = facts.sort((a, b) => b.filed.localeCompare(a.filed) || b.accn.localeCompare(a.accn))[0];
    if (latest !== undefined) return latest.val;
  }
  throw new Error(`no raw fact for ${concepts.join("/")} ${start ?? ""}..${end} in ${unit}`);
}

/** The statement row of a type ending on `end`; throws (naming it) when absent. */
export function periodAt<P extends StatementPeriod>(rows: readonly P[], type: string, end: string): P {
  const row = rows.find((r) => r.period_type === type && r.period_end === end);
  if (row === undefined) throw new Error(`expected a ${type} period ending ${end}`);
  return row;
}

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
