/**
 * Raw SEC companyfacts files (edgar/companyfacts/CIK##########.json) read as they are, for tests
 * that hold what the service serves against them: the facts of a concept, of a period, and the
 * value the latest filing reports, picked out here without the importer's code.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SecCompanyFacts, SecFact } from "../../src/ingest/sources/companyfacts.ts";

export type { SecCompanyFacts, SecFact };

const cache = new Map<string, SecCompanyFacts>();

/** `root/edgar/companyfacts/CIK<cik>.json`, parsed once per test process. */
export function readCompanyFacts(root: string, cik: string): SecCompanyFacts {
  const path = join(root, "edgar", "companyfacts", `CIK${cik}.json`);
  let file = cache.get(path);
  if (!file) {
    file = JSON.parse(readFileSync(path, "utf8")) as SecCompanyFacts;
    cache.set(path, file);
  }
  return file;
}

/**
 * Every fact of `concept` in `unit`: a us-gaap concept, or one of another taxonomy written
 * `taxonomy:Name` (e.g. `dei:EntityCommonStockSharesOutstanding`, `ifrs-full:Revenue`).
 */
export function factsOf(file: SecCompanyFacts, concept: string, unit = "USD"): SecFact[] {
  const [taxonomy, name] = concept.includes(":") ? concept.split(":") : ["us-gaap", concept];
  return file.facts[taxonomy as string]?.[name as string]?.units[unit] ?? [];
}

/** The facts of `concept` in `unit` for exactly (start, end); start null = an instant. */
export function periodFacts(
  file: SecCompanyFacts,
  concept: string,
  start: string | null,
  end: string,
  unit = "USD",
): SecFact[] {
  return factsOf(file, concept, unit).filter((f) => f.end === end && (f.start ?? null) === start);
}

/** The fact filed last (a restatement wins; on the same day, the higher accession number); null for none. */
export function latestFiled<F extends Pick<SecFact, "filed" | "accn">>(facts: readonly F[]): F | null {
  let latest: F | null = null;
  for (const f of facts) {
    if (latest === null || f.filed > latest.filed || (f.filed === latest.filed && f.accn > latest.accn))
      latest = f;
  }
  return latest;
}

/**
 * The value of (start, end) as the latest filing reports it, from the first of `concepts` the
 * company reported for that period. Throws when none has it, so that a test never compares
 * null with null by accident.
 */
export function latestValue(
  file: SecCompanyFacts,
  concepts: readonly string[],
  start: string | null,
  end: string,
  unit = "USD",
): number {
  for (const concept of concepts) {
    const latest = latestFiled(periodFacts(file, concept, start, end, unit));
    if (latest !== null) return latest.val;
  }
  throw new Error(`no raw fact for ${concepts.join("/")} ${start ?? ""}..${end} in ${unit}`);
}

/** accession|start|end: the same figure in the same filing, across concepts. */
export const factKey = (f: SecFact): string => `${f.accn}|${f.start ?? ""}|${f.end}`;

/** The values of `concepts` by `factKey`, for lookups of the figure of the same period in the same filing. */
export function valuesByFiling(
  file: SecCompanyFacts,
  concepts: readonly string[],
  unit = "USD",
): Map<string, number> {
  const out = new Map<string, number>();
  for (const concept of concepts) for (const f of factsOf(file, concept, unit)) out.set(factKey(f), f.val);
  return out;
}
