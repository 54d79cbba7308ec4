/**
 * The demo generator's source files (src/demo), for tests that read expected values from them:
 * written once per test process for a day and shared (read them, never write them).
 */
import { join } from "node:path";
import { writeDemoSources } from "../../src/demo/index.ts";
import { demoCompanies } from "../../src/demo/universe.ts";
import { tempDir } from "./env.ts";
import { readCompanyFacts, type SecCompanyFacts } from "./raw-companyfacts.ts";
import { type CsvPrice, readJson, readPriceCsv, type Submissions } from "./raw-sources.ts";

const written = new Map<string, string>();

/**
 * A directory of the demo sources as the generator writes them on `day`; by default today,
 * the day the demo snapshot of `demoDataDir` (server.ts) is built for.
 */
export function demoSourceDir(day?: Date): string {
  const name = day?.toISOString() ?? "today";
  let dir = written.get(name);
  if (dir === undefined) {
    dir = tempDir("stockd-demo-src-");
    writeDemoSources(dir, day);
    written.set(name, dir);
  }
  return dir;
}

export interface DemoSources {
  /** [cik, name, ticker, exchange] rows of edgar/company_tickers_exchange.json. */
  tickers: [number, string, string, string][];
  submissions(cik: string): Submissions;
  prices(ticker: string): CsvPrice[];
  figi(ticker: string): { compositeFIGI: string; shareClassFIGI: string; securityType: string };
}

interface FigiRow {
  ticker: string;
  compositeFIGI: string;
  shareClassFIGI: string;
  securityType: string;
}

let demo: DemoSources | null = null;

/**
 * The demo source files for today, written by the same generator the demo snapshot is
 * imported from (deterministic for a given day), read into memory once per process.
 */
export function demoSources(): DemoSources {
  if (demo) return demo;
  const dir = demoSourceDir();
  const tickers = readJson<{ data: [number, string, string, string][] }>(
    join(dir, "edgar", "company_tickers_exchange.json"),
  ).data;
  const figi = readJson<{ data: FigiRow[] }[]>(join(dir, "figi", "openfigi-mapping.json")).flatMap(
    (j) => j.data,
  );
  const submissions = new Map<string, Submissions>();
  const prices = new Map<string, CsvPrice[]>();
  for (const [cik, , ticker] of tickers) {
    const padded = String(cik).padStart(10, "0");
    if (!submissions.has(padded)) {
      submissions.set(padded, readJson<Submissions>(join(dir, "edgar", "submissions", `CIK${padded}.json`)));
    }
    prices.set(ticker, readPriceCsv(join(dir, "prices", `${ticker}.csv`)));
  }
  const found = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`demo sources have no ${what}`);
    return value;
  };
  demo = {
    tickers,
    submissions: (cik) => found(submissions.get(cik), `submissions for ${cik}`),
    prices: (ticker) => found(prices.get(ticker), `prices for ${ticker}`),
    figi: (ticker) =>
      found(
        figi.find((f) => f.ticker === ticker),
        `figi row for ${ticker}`,
      ),
  };
  return demo;
}

/** The demo CIK of a ticker, zero-padded, from the ticker list. */
export function demoCik(ticker: string): string {
  const row = demoSources().tickers.find((r) => r[2] === ticker);
  if (!row) throw new Error(`${ticker} is not in the demo ticker list`);
  return String(row[0]).padStart(10, "0");
}

/** The day the demo companyfacts tests read: fixed, so that their figures do not move with the calendar. */
const FACTS_DAY = new Date("2025-07-01T12:00:00Z");

/** The demo sources as written on 2025-07-01, and each company's raw companyfacts file by CIK. */
export function demoFactFiles(): { dir: string; files: Map<string, SecCompanyFacts> } {
  const dir = demoSourceDir(FACTS_DAY);
  const files = new Map<string, SecCompanyFacts>();
  for (const c of demoCompanies()) files.set(c.cik, readCompanyFacts(dir, c.cik));
  return { dir, files };
}

/** Each company's raw file with its ticker. */
export function eachCompany(files: Map<string, SecCompanyFacts>) {
  return demoCompanies().map((c) => ({
    ticker: c.tickers[0] as string,
    file: files.get(c.cik) as SecCompanyFacts,
  }));
}
