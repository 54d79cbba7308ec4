/** Reading the demo's generated companyfacts JSON as raw facts, for tests that check it. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeDemoSources } from "../../src/demo/index.ts";
import { demoCompanies } from "../../src/demo/universe.ts";
import type { SecCompanyFacts, SecFact } from "../../src/ingest/sources/companyfacts.ts";
import { tempDir } from "../helpers/env.ts";

/** Writes the demo sources as built on 2025-07-01 into a temp dir; returns it and each company's raw file by CIK. */
export function demoFactFiles(): { dir: string; files: Map<string, SecCompanyFacts> } {
  const dir = tempDir("stockd-demo-");
  writeDemoSources(dir, new Date("2025-07-01T12:00:00Z"));
  const files = new Map<string, SecCompanyFacts>();
  for (const c of demoCompanies()) {
    files.set(c.cik, JSON.parse(readFileSync(join(dir, "edgar/companyfacts", `CIK${c.cik}.json`), "utf8")));
  }
  return { dir, files };
}

export const factsOf = (file: SecCompanyFacts, concept: string, unit = "USD"): SecFact[] =>
  file.facts["us-gaap"]?.[concept]?.units[unit] ?? [];

export const factKey = (f: SecFact) => `${f.accn}|${f.start ?? ""}|${f.end}`;

/** concept → (accession|start|end → value), for lookups of the same figure in the same filing. */
export function index(file: SecCompanyFacts, concepts: readonly string[], unit = "USD"): Map<string, number> {
  const out = new Map<string, number>();
  for (const concept of concepts) for (const f of factsOf(file, concept, unit)) out.set(factKey(f), f.val);
  return out;
}

/** Each company's raw file with its ticker. */
export function eachCompany(files: Map<string, SecCompanyFacts>) {
  return demoCompanies().map((c) => ({
    ticker: c.tickers[0] as string,
    file: files.get(c.cik) as SecCompanyFacts,
  }));
}
