/**
 * The benchmark universe in the importer's source layout (README "Source formats"):
 * `edgar/company_tickers_exchange.json`, `edgar/submissions/CIK*.json`,
 * `edgar/companyfacts/CIK*.json` and `prices/<TICKER>.csv`. Generated once per spec and kept
 * under `.bench-cache/`; a marker file written last makes a half-written cache regenerate.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tradingDays, writePrices, writeSubmissions, writeTickers } from "../../src/demo/sources.ts";
import { type DemoCompany, rng } from "../../src/demo/universe.ts";
import { companyFacts, companyModel, filingsOf, submissionFilings } from "./companyfacts.ts";

/** Bump when the generated files change, so that caches are rebuilt. */
const GENERATOR_VERSION = 1;

export interface UniverseSpec {
  companies: number;
  /** Years of daily prices, ending at `lastDay`; 4 × years quarters of filings. */
  years: number;
  lastDay: string;
  /** False: the EDGAR files only, no `prices/` (the bulk-archive bench). */
  prices?: boolean;
}

export interface Universe {
  dir: string;
  spec: UniverseSpec;
  symbols: string[];
  firstDay: string;
  lastDay: string;
  /** Seconds spent generating, or null when the cache was used. */
  generatedInS: number | null;
}

const SICS: readonly (readonly [string, string])[] = [
  ["7372", "Services-Prepackaged Software"],
  ["3674", "Semiconductors & Related Devices"],
  ["2834", "Pharmaceutical Preparations"],
  ["6021", "National Commercial Banks"],
  ["6331", "Fire, Marine & Casualty Insurance"],
  ["6798", "Real Estate Investment Trusts"],
  ["3711", "Motor Vehicles & Passenger Car Bodies"],
  ["5331", "Retail-Variety Stores"],
];
const FISCAL_YEAR_ENDS = ["1231", "1231", "0930", "0630", "0331"];

/** Four letters from an index: BAAA, BAAB, ... */
function tickerOf(i: number): string {
  let n = i + 26 * 26 * 26;
  let out = "";
  for (let k = 0; k < 4; k++) {
    out = String.fromCharCode(65 + (n % 26)) + out;
    n = Math.floor(n / 26);
  }
  return out;
}

/** The companies of a spec, deterministic. */
export function benchCompanies(count: number): DemoCompany[] {
  const random = rng(4242);
  return Array.from({ length: count }, (_, i) => {
    const [sic, sicDescription] = SICS[i % SICS.length] as readonly [string, string];
    const ticker = tickerOf(i);
    return {
      cik: String(90_000_000 + i).padStart(10, "0"),
      name: `Bench ${ticker} Holdings Inc`,
      tickers: [ticker],
      exchange: i % 3 === 0 ? "NYSE" : "Nasdaq",
      sic,
      sicDescription,
      fiscalYearEnd: FISCAL_YEAR_ENDS[i % FISCAL_YEAR_ENDS.length] as string,
      state: "DE",
      startPrice: 5 + Math.round(random() * 300),
      drift: 0.02 + random() * 0.12,
      volatility: 0.15 + random() * 0.4,
      sharesOutstanding: Math.round((20 + random() * 3000) * 1e6),
      dividend: i % 2 === 0 ? 0.2 : 0,
      seed: 10_000 + i,
    };
  });
}

/** The first calendar day of the price history. */
export function firstDayOf(spec: UniverseSpec): string {
  return `${Number(spec.lastDay.slice(0, 4)) - spec.years + 1}-01-01`;
}

/** The universe of `spec` under `cacheDir`, generated unless a complete copy is there. */
export function ensureUniverse(cacheDir: string, spec: UniverseSpec, log: (line: string) => void): Universe {
  const universe = universeOf(cacheDir, spec);
  const { dir } = universe;
  const marker = join(dir, ".complete.json");
  const wanted = JSON.stringify({ version: GENERATOR_VERSION, spec });
  if (existsSync(marker) && sameJson(readFileSync(marker, "utf8"), wanted)) return universe;
  const started = performance.now();
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  writeUniverse(partial, spec, log);
  writeFileSync(join(partial, ".complete.json"), wanted);
  renameSync(partial, dir);
  return { ...universe, generatedInS: (performance.now() - started) / 1000 };
}

/** The universe of `spec` (symbols, dates, where its files are), without generating anything. */
export function universeOf(cacheDir: string, spec: UniverseSpec): Universe {
  const symbols = benchCompanies(spec.companies).map((c) => c.tickers[0] as string);
  const dir = join(cacheDir, "sources");
  return { dir, spec, symbols, firstDay: firstDayOf(spec), lastDay: spec.lastDay, generatedInS: null };
}

/** Equal as JSON values (a formatter may have rewritten the marker's whitespace). */
function sameJson(a: string, b: string): boolean {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}

function writeUniverse(dir: string, spec: UniverseSpec, log: (line: string) => void): void {
  const companies = benchCompanies(spec.companies);
  const days = tradingDays(firstDayOf(spec), spec.lastDay);
  const lastYear = Number(spec.lastDay.slice(0, 4));
  writeTickers(dir, companies);
  mkdirSync(join(dir, "edgar", "companyfacts"), { recursive: true });
  for (const [i, company] of companies.entries()) {
    if (spec.prices !== false) writePrices(dir, company, days);
    // Two extra years before the first filing: its comparative periods.
    const model = companyModel(company, lastYear - spec.years - 2, lastYear);
    const filings = filingsOf(company, model, spec.years * 4, spec.lastDay);
    writeSubmissions(dir, company, submissionFilings(filings, model));
    const facts = companyFacts(company, model, filings);
    writeFileSync(join(dir, "edgar", "companyfacts", `CIK${company.cik}.json`), JSON.stringify(facts));
    if ((i + 1) % 250 === 0 || i + 1 === companies.length)
      log(`generated ${i + 1}/${companies.length} companies`);
  }
}
