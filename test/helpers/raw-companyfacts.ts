/** The fixtures' raw SEC companyfacts files, read as they are, for tests that check values against them. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SecCompanyFacts } from "../../src/ingest/sources/companyfacts.ts";

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
