/** The fixtures' raw SEC companyfacts files, read as they are, for tests that check values against them. */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface RawFact {
  start?: string;
  end: string;
  val: number;
  accn: string;
  fy: number | null;
  fp: string | null;
  form: string;
  filed: string;
}

export interface RawCompanyFacts {
  facts: Record<string, Record<string, { units: Record<string, RawFact[]> }>>;
}

const cache = new Map<string, RawCompanyFacts>();

/** `root/edgar/companyfacts/CIK<cik>.json`, parsed once per test process. */
export function readCompanyFacts(root: string, cik: string): RawCompanyFacts {
  const path = join(root, "edgar", "companyfacts", `CIK${cik}.json`);
  let file = cache.get(path);
  if (!file) {
    file = JSON.parse(readFileSync(path, "utf8")) as RawCompanyFacts;
    cache.set(path, file);
  }
  return file;
}
