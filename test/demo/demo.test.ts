/**
 * The demo generator: every file it writes parses with the importer's parser for that
 * source in strict mode without a skipped record, the same day gives the same bytes, and a
 * later build day leaves the history as it was.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeDemoSources } from "../../src/demo/index.ts";
import { hasEstimates, hasGrowthSignals } from "../../src/demo/signals.ts";
import { demoCompanies } from "../../src/demo/universe.ts";
import { parseCalendar } from "../../src/ingest/sources/calendar.ts";
import { parseCompanyFacts } from "../../src/ingest/sources/companyfacts.ts";
import { parseDividends } from "../../src/ingest/sources/dividends.ts";
import { parseEstimatesFile } from "../../src/ingest/sources/estimates.ts";
import { parseFigiMapping } from "../../src/ingest/sources/figi.ts";
import { parseOwnershipDocument } from "../../src/ingest/sources/form4.ts";
import { selectInsiderTrades } from "../../src/ingest/sources/form4-select.ts";
import { parseGrowthSignalsCsv } from "../../src/ingest/sources/growth-signals.ts";
import { parsePrices } from "../../src/ingest/sources/price-files.ts";
import { parseSubmissions } from "../../src/ingest/sources/submissions.ts";
import { parseTickersExchange } from "../../src/ingest/sources/tickers.ts";
import type { ParseResult } from "../../src/ingest/sources/value-readers.ts";
import { tempDir } from "../helpers/env.ts";
import { readCompanyFacts } from "../helpers/raw-companyfacts.ts";

const DAY = new Date("2025-07-01T12:00:00Z");
const LAST_DAY = "2025-06-30";
let dir: string;
let elapsedMs: number;

beforeAll(() => {
  dir = tempDir("stockd-demo-");
  const started = performance.now();
  writeDemoSources(dir, DAY);
  elapsedMs = performance.now() - started;
});

const files = (sub: string) => readdirSync(join(dir, sub)).sort();
const read = (sub: string, name: string) => readFileSync(join(dir, sub, name), "utf8");

/** Parses every file of `sub` strictly; asserts nothing was skipped; returns the rows by file. */
function parseAll<T>(sub: string, parse: (text: string, file: string) => ParseResult<T>): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const name of files(sub)) {
    const result = parse(read(sub, name), `${sub}/${name}`);
    expect(result.skipped, `${sub}/${name}: no skipped records`).toEqual([]);
    out.set(name, result.rows);
  }
  return out;
}

const tickers = demoCompanies().map((c) => c.tickers[0] as string);

describe("demo sources parse strictly", () => {
  test("are written quickly", () => {
    expect(elapsedMs, "writeDemoSources takes well under 5 s").toBeLessThan(5000);
  });

  test("tickers, FIGI, prices and submissions", () => {
    expect(parseTickersExchange(read("edgar", "company_tickers_exchange.json"), "tickers").skipped).toEqual(
      [],
    );
    parseAll("figi", parseFigiMapping);
    expect(parseAll("prices", parsePrices).size).toBe(30);
    for (const name of files("edgar/submissions")) {
      const parsed = parseSubmissions(read("edgar/submissions", name), name);
      expect(parsed.skipped, name).toEqual([]);
    }
  });

  test("companyfacts: one file per company, every fact well formed", () => {
    const names = files("edgar/companyfacts");
    expect(names).toEqual(
      demoCompanies()
        .map((c) => `CIK${c.cik}.json`)
        .sort(),
    );
    for (const name of names) {
      const facts = parseCompanyFacts(JSON.parse(read("edgar/companyfacts", name)), name);
      expect(facts.facts.get("us-gaap")?.size ?? 0, name).toBeGreaterThan(15);
    }
  });

  test("form 4: P/S trades of officers, directors and a 10% owner; A/M/F rows filtered; one 4/A applied", () => {
    const names = files("edgar/form4");
    expect(
      names.every((n) => /^D[A-Z]+_form4_0099\d{6}-\d{2}-1\d{5}\.xml$/.test(n)),
      "file names",
    ).toBe(true);
    const docs = names.map((n) => parseOwnershipDocument(read("edgar/form4", n), n));
    const codes = new Set(docs.flatMap((d) => d.transactions.map((t) => t.transaction_code)));
    expect([...codes].sort()).toEqual(["A", "F", "M", "P", "S"]);
    const { rows, report } = selectInsiderTrades(docs);
    expect(report).toMatchObject({ duplicatesSkipped: 0, amendmentsApplied: 1, amendmentsUnmatched: 0 });
    expect(report.documentsWithoutTrades).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.transaction_code))).toEqual(new Set(["P", "S"]));
    expect(new Set(rows.map((r) => r.owner_title))).toEqual(
      new Set(["Chief Executive Officer", "Chief Financial Officer", "Director", "10% Owner"]),
    );
    expect(
      rows.every((r) => (r.price ?? 0) > 0 && (r.shares ?? 0) > 0 && r.transaction_date <= LAST_DAY),
    ).toBe(true);
  });

  test("form 4: the amendment replaces the over-stated original", () => {
    const docs = files("edgar/form4").map((n) => parseOwnershipDocument(read("edgar/form4", n), n));
    const amendment = docs.find((d) => d.isAmendment);
    const original = docs.find(
      (d) =>
        !d.isAmendment &&
        d.periodOfReport === amendment?.periodOfReport &&
        d.owners[0]?.cik === amendment?.owners[0]?.cik,
    );
    expect(amendment?.dateOfOriginalSubmission).toBe(original?.signatureDate as string);
    const sold = (d: typeof original) => d?.transactions.find((t) => t.transaction_code === "S")?.shares ?? 0;
    expect(sold(original)).toBe(sold(amendment) * 10);
    const kept = selectInsiderTrades(docs).rows.filter(
      (r) => r.accession_number === amendment?.accessionNumber,
    );
    expect(kept.find((r) => r.transaction_code === "S")?.shares).toBe(sold(amendment));
    const submissions = read("edgar/submissions", `CIK${amendment?.issuer.cik}.json`);
    expect(submissions).toContain(amendment?.accessionNumber as string);
  });

  test("dividends: payers only, ascending, with a declared dividend after the last price for some", () => {
    const byFile = parseAll("dividends", (text, file) => parseDividends(text, file));
    const payers = demoCompanies().filter((c) => c.dividend > 0);
    expect([...byFile.keys()]).toEqual(payers.map((c) => `${c.tickers[0]}.csv`).sort());
    let declared = 0;
    for (const [name, rows] of byFile) {
      expect(rows.length, name).toBeGreaterThan(40);
      const ordered = rows.every(
        (r, i) => r.ex_date > (rows[i - 1]?.ex_date ?? "") && (r.pay_date ?? "") > r.ex_date,
      );
      expect(ordered, `${name}: ascending ex-dates, each paid after it goes ex`).toBe(true);
      if ((rows.at(-1)?.ex_date ?? "") > LAST_DAY) declared++;
    }
    expect(declared, "some payers have a declared future dividend").toBeGreaterThan(0);
    expect(declared).toBeLessThan(byFile.size);
  });

  test("calendar: reported quarters with actuals, and exactly one upcoming release per company", () => {
    const rows = parseAll("calendar", parseCalendar).get("demo-calendar.csv") ?? [];
    for (const ticker of tickers) {
      const own = rows.filter((r) => r.ticker === ticker);
      const upcoming = own.filter((r) => r.eps_actual === null);
      expect(upcoming.length, ticker).toBe(1);
      expect((upcoming[0]?.earning_date ?? "") > LAST_DAY, `${ticker}: upcoming after ${LAST_DAY}`).toBe(
        true,
      );
      expect(upcoming[0]?.eps_forecast, ticker).not.toBeNull();
      expect(own.filter((r) => r.earning_date <= LAST_DAY).length, ticker).toBeGreaterThan(40);
      expect(
        own.every((r) => r.eps_actual === null || r.eps_surprise !== null),
        ticker,
      ).toBe(true);
    }
  });

  test("estimates and growth signals: present for a subset, absent for the rest", () => {
    const estimates = parseAll("estimates", (text, file) => {
      const parsed = parseEstimatesFile(text, file);
      if (parsed.kind !== "signals") throw new Error(`${file}: expected estimate signals`);
      return parsed.result;
    });
    const growth = parseAll("growth", parseGrowthSignalsCsv);
    const covered = (rows: { ticker: string }[] | undefined) => new Set(rows?.map((r) => r.ticker));
    const withEstimates = covered(estimates.get("demo-estimates.csv"));
    const withGrowth = covered(growth.get("demo-growth.csv"));
    expect([...withEstimates].sort()).toEqual(tickers.filter((_, i) => hasEstimates(i)).sort());
    expect([...withGrowth].sort()).toEqual(tickers.filter((_, i) => hasGrowthSignals(i)).sort());
    expect(withEstimates.size).toBeLessThan(tickers.length);
    expect(withGrowth.size).toBeLessThan(tickers.length);
  });
});

describe("determinism", () => {
  test("the same day gives the same bytes", () => {
    const again = tempDir("stockd-demo-");
    writeDemoSources(again, DAY);
    const sample = [
      "edgar/companyfacts/CIK0099000001.json",
      "edgar/companyfacts/CIK0099000004.json",
      "edgar/submissions/CIK0099000001.json",
      "dividends/DWGT.csv",
      "calendar/demo-calendar.csv",
      "estimates/demo-estimates.csv",
      "growth/demo-growth.csv",
    ];
    for (const path of sample) {
      expect(readFileSync(join(again, path), "utf8"), path).toBe(readFileSync(join(dir, path), "utf8"));
    }
    expect(readdirSync(join(again, "edgar/form4")).sort()).toEqual(files("edgar/form4"));
    const form4 = files("edgar/form4")[0] as string;
    expect(readFileSync(join(again, "edgar/form4", form4), "utf8")).toBe(read("edgar/form4", form4));
  });

  test("a later day adds to the history without changing it", () => {
    const later = tempDir("stockd-demo-");
    writeDemoSources(later, new Date("2025-10-15T12:00:00Z"));
    const strip = ({ frame: _frame, ...fact }: { frame?: string }) => JSON.stringify(fact);
    const factsOf = (root: string, cik: string) => {
      const all: string[] = [];
      for (const [name, concept] of Object.entries(readCompanyFacts(root, cik).facts["us-gaap"] ?? {})) {
        for (const list of Object.values(concept.units)) {
          for (const fact of list) all.push(`${name} ${strip(fact)}`);
        }
      }
      return all;
    };
    for (const cik of ["0099000001", "0099000006", "0099000011"]) {
      const after = new Set(factsOf(later, cik));
      const missing = factsOf(dir, cik).filter((f) => !after.has(f));
      expect(missing, `CIK${cik}: every earlier fact is still there`).toEqual([]);
    }
    const dividends = readFileSync(join(later, "dividends/DWGT.csv"), "utf8");
    const earlier = read("dividends", "DWGT.csv").trimEnd().split("\n");
    expect(dividends.startsWith(earlier.slice(0, -1).join("\n"))).toBe(true);
  });
});
