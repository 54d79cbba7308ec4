/** Reading the demo's generated companyfacts JSON as raw facts, for tests that check it. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeDemoSources } from "../../src/demo/index.ts";
import { demoCompanies } from "../../src/demo/universe.ts";
import { tempDir } from "../helpers/env.ts";

export interface RawFact {
  start?: string;
  end: string;
  val: number;
  accn: string;
  fy: number;
  fp: string;
  form: string;
  filed: string;
}
export type RawFile = { facts: Record<string, Record<string, { units: Record<string, RawFact[]> }>> };

/** Writes the demo sources as built on 2025-07-01 into a temp dir; returns it and each company's raw file by CIK. */
export function demoFactFiles(): { dir: string; files: Map<string, RawFile> } {
  const dir = tempDir("stockd-demo-");
  writeDemoSources(dir, new Date("2025-07-01T12:00:00Z"));
  const files = new Map<string, RawFile>();
  for (const c of demoCompanies()) {
    files.set(c.cik, JSON.parse(readFileSync(join(dir, "edgar/companyfacts", `CIK${c.cik}.json`), "utf8")));
  }
  return { dir, files };
}

export const factsOf = (file: RawFile, concept: string, unit = "USD"): RawFact[] =>
  file.facts["us-gaap"]?.[concept]?.units[unit] ?? [];

export const factKey = (f: RawFact) => `${f.accn}|${f.start ?? ""}|${f.end}`;

/** concept → (accession|start|end → value), for lookups of the same figure in the same filing. */
export function index(file: RawFile, concepts: readonly string[], unit = "USD"): Map<string, number> {
  const out = new Map<string, number>();
  for (const concept of concepts) for (const f of factsOf(file, concept, unit)) out.set(factKey(f), f.val);
  return out;
}

/** Each company's raw file with its ticker. */
export function eachCompany(files: Map<string, RawFile>) {
  return demoCompanies().map((c) => ({ ticker: c.tickers[0] as string, file: files.get(c.cik) as RawFile }));
}
