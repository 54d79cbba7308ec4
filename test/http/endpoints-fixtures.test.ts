/**
 * Endpoints over a snapshot imported from the real public fixtures (STOCKD_FIXTURES). Every
 * expected value is read in the test from the raw source files: edgar/submissions/*.json,
 * edgar/company_tickers_exchange.json and prices/<TICKER>.csv.
 */

import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES } from "../helpers/env.ts";
import {
  type CsvPrice,
  type FilingColumns,
  filingRows,
  type Json,
  newestFirst,
  type RawFiling,
  readJson,
  readPriceCsv,
  type Submissions,
  secUrl,
  servedPrice,
} from "../helpers/raw-sources.ts";
import { expectProblem } from "../helpers/responses.ts";
import { serverOverImport } from "../helpers/server.ts";

const root = FIXTURES ?? "";
const edgar = (...p: string[]) => join(root, "edgar", ...p);

/** A ticker's row of the SEC exchange list, the CIK zero-padded. */
function listed(ticker: string): { cik: string; name: string; exchange: string | null } {
  const list = readJson<{ fields: string[]; data: unknown[][] }>(edgar("company_tickers_exchange.json"));
  const at = (field: string) => list.fields.indexOf(field);
  const row = list.data.find((r) => r[at("ticker")] === ticker);
  if (!row) throw new Error(`${ticker} is not in company_tickers_exchange.json`);
  return {
    cik: String(row[at("cik")]).padStart(10, "0"),
    name: row[at("name")] as string,
    exchange: (row[at("exchange")] as string | null) ?? null,
  };
}

const cikOf = (ticker: string) => listed(ticker).cik;

const submissions = (cik: string) => readJson<Submissions>(edgar("submissions", `CIK${cik}.json`));
const prices = (ticker: string): CsvPrice[] => readPriceCsv(join(root, "prices", `${ticker}.csv`));

/** The filings of a filer over its main file and every paged file present. */
function allFilings(cik: string): RawFiling[] {
  const paged = submissions(cik)
    .filings.files.map((f) => edgar("submissions", f.name))
    .filter((p) => existsSync(p))
    .flatMap((p) => filingRows(readJson<FilingColumns>(p)));
  return [...filingRows(submissions(cik).filings.recent), ...paged];
}

describe.skipIf(!FIXTURES)("real data (STOCKD_FIXTURES)", () => {
  const fixtures = serverOverImport(root);
  const get = <T = Json>(path: string) => fixtures.get<T>(path);

  describe("/stocks/{symbol}/profile", () => {
    for (const [ticker, country] of [
      ["AAPL", "US"],
      ["MSFT", "US"],
      ["NVDA", "US"],
      ["TSM", "TW"],
    ] as const) {
      test(`${ticker}: identity and filer fields equal the submissions file`, async () => {
        const cik = cikOf(ticker);
        const src = submissions(cik);
        const body = await get<{ identity: Json; general: Json }>(`/stocks/${ticker.toLowerCase()}/profile`);
        expect(body.identity).toMatchObject({
          symbol: ticker,
          cik,
          company_name: src.name,
          exchange: src.exchanges[src.tickers.indexOf(ticker)],
          market: "US",
        });
        expect(body.general).toMatchObject({
          sic: src.sic,
          sic_description: src.sicDescription,
          fiscal_year_end: src.fiscalYearEnd,
          state_of_incorporation: src.stateOfIncorporation,
          country_iso: country,
          currency: "USD",
          ipo_date: null,
        });
        // The first filing: the earliest filingFrom of the older-filing files the main file
        // lists (those files are not among the fixtures for these four), before any recent one.
        const listed = (src as unknown as { filings: { files: { filingFrom: string }[] } }).filings.files;
        expect(listed.length, ticker).toBeGreaterThan(0);
        expect(body.general.first_filing_date).toBe(listed.map((f) => f.filingFrom).sort()[0] as string);
        if (country === "TW") {
          expect(src.addresses.business.stateOrCountryDescription).toContain("Taiwan");
          expect(body.general.company_country).toBe(src.addresses.business.stateOrCountryDescription);
        }
      });
    }

    test("BRK share classes resolve with '.', '-' and '/' to the one filer", async () => {
      const cik = cikOf("BRK-B");
      expect(cikOf("BRK-A")).toBe(cik);
      const src = submissions(cik);
      const bodies = await Promise.all(
        ["BRK.B", "brk-b", "BRK%2FB"].map((s) => get<{ identity: Json }>(`/stocks/${s}/profile`)),
      );
      for (const b of bodies) expect(b).toEqual(bodies[0] as { identity: Json });
      expect(bodies[0]?.identity).toMatchObject({ symbol: "BRK-B", cik, company_name: src.name });
      const a = await get<{ identity: Json }>("/stocks/brk.a/profile");
      expect(a.identity).toMatchObject({ symbol: "BRK-A", cik });
    });
  });

  describe("/stocks/{symbol}/secfiling", () => {
    for (const ticker of ["AAPL", "MSFT", "NVDA"]) {
      test(`${ticker}: the 10-Ks of the submissions file, newest first, with sec.gov URLs`, async () => {
        const cik = cikOf(ticker);
        const expected = newestFirst(allFilings(cik).filter((f) => f.form === "10-K")).slice(0, 20);
        expect(expected.length).toBeGreaterThan(3);
        const body = await get<{ symbol: string; form_type: string; filings: Json[] }>(
          `/stocks/${ticker}/secfiling?form_type=10-K`,
        );
        expect(body.symbol).toBe(ticker);
        expect(body.form_type).toBe("10-K");
        expect(body.filings.map((f) => f.accession_number)).toEqual(expected.map((f) => f.accessionNumber));
        for (const [i, f] of body.filings.entries()) {
          const src = expected[i] as RawFiling;
          expect(f).toMatchObject({
            cik,
            form_type: "10-K",
            filing_date: src.filingDate,
            report_date: src.reportDate,
            filing_url: secUrl(cik, src.accessionNumber, src.primaryDocument),
          });
        }
      });
    }

    test("AAPL Form 4s: default limit 20, newest first by filing date", async () => {
      const all = newestFirst(allFilings(cikOf("AAPL")).filter((f) => f.form === "4"));
      expect(all.length).toBeGreaterThan(20);
      const body = await get<{ filings: Json[] }>("/stocks/AAPL/secfiling?form_type=4");
      expect(body.filings.map((f) => f.filing_date)).toEqual(all.slice(0, 20).map((f) => f.filingDate));
      const full = await get<{ filings: Json[] }>("/stocks/AAPL/secfiling?form_type=4&limit=1000");
      expect(new Set(full.filings.map((f) => f.accession_number))).toEqual(
        new Set(all.map((f) => f.accessionNumber)),
      );
      expect(full.filings.length).toBe(all.length);
    });

    test("form_type matches in any case and is echoed as EDGAR writes it; a form the filer never filed is an empty list", async () => {
      const lower = await get<{ form_type: string; filings: Json[] }>(
        "/stocks/AAPL/secfiling?form_type=10-k",
      );
      const upper = await get<{ form_type: string; filings: Json[] }>(
        "/stocks/AAPL/secfiling?form_type=10-K",
      );
      expect(lower.form_type).toBe("10-K");
      expect(lower.filings).toEqual(upper.filings);
      expect(upper.filings.length).toBeGreaterThan(0);
      const none = await get<{ filings: Json[] }>("/stocks/AAPL/secfiling?form_type=N-CSR");
      expect(none.filings).toEqual([]);
    });
  });

  describe("/sec_filings with a paged filer (TSLA)", () => {
    const cik = () => cikOf("TSLA");

    test("lists every filing of the main and paged files once", async () => {
      const pagedFiles = submissions(cik()).filings.files.map((f) => edgar("submissions", f.name));
      expect(pagedFiles.some((p) => existsSync(p))).toBe(true);
      const all = allFilings(cik());
      const unique = new Set(all.map((f) => f.accessionNumber));
      const seen: string[] = [];
      const first = await get<{ data: Json[]; pagination: Json }>("/sec_filings?ticker=TSLA&per_page=1000");
      expect(first.pagination.total).toBe(unique.size);
      seen.push(...first.data.map((f) => f.accession_number as string));
      for (let p = 2; p <= (first.pagination.total_pages as number); p++) {
        const page = await get<{ data: Json[] }>(`/sec_filings?ticker=TSLA&per_page=1000&page=${p}`);
        seen.push(...page.data.map((f) => f.accession_number as string));
      }
      expect(seen.length).toBe(unique.size);
      expect(new Set(seen)).toEqual(unique);
      const dates = [...seen.map((a) => all.find((f) => f.accessionNumber === a)?.filingDate ?? "")];
      expect(dates).toEqual([...dates].sort().reverse());
    });

    test("filings only in the paged file are found by every filter", async () => {
      const recent = new Set(submissions(cik()).filings.recent.accessionNumber);
      const pagedOnly = allFilings(cik()).filter((f) => !recent.has(f.accessionNumber));
      const tenK = newestFirst(pagedOnly.filter((f) => f.form === "10-K"));
      expect(tenK.length).toBeGreaterThan(0);
      const oldest = tenK.at(-1) as RawFiling;
      const byAccession = await get<{ data: Json[] }>(
        `/sec_filings?accession_number=${oldest.accessionNumber}`,
      );
      expect(byAccession.data).toHaveLength(1);
      expect(byAccession.data[0]).toMatchObject({ cik: cik(), form: "10-K", filing_date: oldest.filingDate });
      const end = tenK[0]?.filingDate as string;
      const ranged = await get<{ data: Json[] }>(
        `/sec_filings?ticker=tsla&cik=${Number(cik())}&form=10-K&start=2000-01-01&end=${end}&per_page=1000`,
      );
      const expected = newestFirst(allFilings(cik()).filter((f) => f.form === "10-K" && f.filingDate <= end));
      expect(ranged.data.map((f) => f.accession_number)).toEqual(expected.map((f) => f.accessionNumber));
      const secfiling = await get<{ filings: Json[] }>("/stocks/TSLA/secfiling?form_type=10-K&limit=1000");
      expect(secfiling.filings.map((f) => f.accession_number)).toContain(oldest.accessionNumber);
    });

    test("the cik of another filer with TSLA's ticker matches nothing", async () => {
      const page = await get<{ data: Json[]; pagination: Json }>(
        `/sec_filings?ticker=TSLA&cik=${cikOf("AAPL")}`,
      );
      expect(page.data).toEqual([]);
      expect(page.pagination.total).toBe(0);
    });
  });

  describe("prices and quotes", () => {
    test("AAPL /price equals the CSV rows of the window", async () => {
      for (const [start, end] of [
        ["2024-01-02", "2024-03-08"],
        ["2000-01-01", "2000-02-15"],
      ]) {
        const rows = await get<Json[]>(`/stocks/AAPL/price?start_date=${start}&end_date=${end}`);
        const expected = prices("AAPL")
          .filter((r) => r.date >= (start as string) && r.date <= (end as string))
          .map(servedPrice);
        expect(expected.length).toBeGreaterThan(20);
        expect(rows).toEqual(expected);
      }
    });

    for (const ticker of ["AAPL", "MSFT", "NVDA", "TSM"]) {
      test(`${ticker} quote: close and previous_close are the last two CSV rows`, async () => {
        const rows = prices(ticker);
        const [prev, last] = [rows.at(-2), rows.at(-1)] as [CsvPrice, CsvPrice];
        const { symbol, quote } = await get<{ symbol: string; quote: Json }>(`/securities/${ticker}/quote`);
        expect(symbol).toBe(ticker);
        expect(quote).toMatchObject({
          date: last.date,
          close: last.close,
          previous_close: prev.close,
          open: last.open,
          high: last.high,
          low: last.low,
          volume: last.volume,
        });
        expect(quote.change_percent as number).toBeCloseTo((last.close - prev.close) / prev.close, 12);
        // The CSV's closes have six decimals, so their difference has too: AAPL 170.729996 −
        // 169.000000 = 1.729996, not 1.7299959999999999.
        expect(quote.change).toBe(Number((last.close - prev.close).toFixed(6)));
      });
    }

    test("a ticker without a price file: quote and price are 404", async () => {
      expect(existsSync(join(root, "prices", "BRK-B.csv"))).toBe(false);
      await expectProblem(await fixtures.server.get("/securities/BRK.B/quote", fixtures.key), 404, {
        code: "not_found",
      });
      await expectProblem(
        await fixtures.server.get(
          "/stocks/BRK-B/price?start_date=2024-01-01&end_date=2024-01-31",
          fixtures.key,
        ),
        404,
        { code: "not_found" },
      );
    });
  });

  describe("/securities/search", () => {
    test("an exact ticker and its share classes rank above longer tickers, and those come largest first", async () => {
      const page = await get<{ data: Json[] }>("/securities/search?query=o&per_page=20");
      expect(page.data[0]).toMatchObject({ ticker: "O", cik: cikOf("O") });
      // O-P, Realty Income's preferred shares in the ticker list, is a class of O.
      expect(page.data[1]).toMatchObject({ ticker: "O-P", cik: cikOf("O") });
      for (const row of page.data.slice(2)) expect(row.ticker as string).toStartWith("O");
      // The SEC lists tickers by market value: the order of company_tickers_exchange.json, then
      // of company_tickers.json for a ticker only that list names.
      const list = readJson<{ fields: string[]; data: unknown[][] }>(edgar("company_tickers_exchange.json"));
      const plain = Object.values(
        readJson<Record<string, { ticker: string }>>(edgar("company_tickers.json")),
      );
      const at = list.fields.indexOf("ticker");
      const position = (t: unknown) => {
        const i = list.data.findIndex((r) => r[at] === t);
        return i >= 0 ? i : list.data.length + plain.findIndex((r) => r.ticker === t);
      };
      const positions = page.data.slice(2).map((r) => position(r.ticker));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      expect(page.data[2]?.ticker).toBe("ORCL");
      const aapl = await get<{ data: Json[] }>("/securities/search?query=AAPL");
      const { cik, name, exchange } = listed("AAPL");
      expect(aapl.data[0]).toMatchObject({ ticker: "AAPL", cik, name, exchange });
    });
  });
});
