/**
 * GET /sec_filings: every filter alone and combined, pagination, parameter errors, and the
 * import's handling of paged submissions files and duplicate accession numbers. Expected
 * rows come from the source submissions files.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { demoCik, demoSources } from "../helpers/demo-sources.ts";
import { tempDir } from "../helpers/env.ts";
import { filingRows, type Json, type RawFiling, secUrl } from "../helpers/raw-sources.ts";
import { chargedBy, expectProblem } from "../helpers/responses.ts";
import { importedDataDir, startTestServer, type TestServer, useDemoServer } from "../helpers/server.ts";

interface Page {
  data: Json[];
  pagination: { page: number; per_page: number; total: number; total_pages: number };
}

const server = useDemoServer();
let key: string;

beforeAll(() => {
  key = server.newKey(10_000).key;
});

async function filings(query: string, s = server, k = key): Promise<Page> {
  const res = await s.get(`/sec_filings?${query}`, k);
  expect(res.status, query).toBe(200);
  expect(chargedBy(res), query).toBe(1);
  return (await res.json()) as Page;
}

/** Every demo filing, with its zero-padded cik, newest first (ties: accession descending). */
function demoFilings(): (RawFiling & { cik: string })[] {
  const ciks = [...new Set(demoSources().tickers.map(([cik]) => String(cik).padStart(10, "0")))];
  return ciks
    .flatMap((cik) => filingRows(demoSources().submissions(cik).filings.recent).map((f) => ({ ...f, cik })))
    .sort(
      (a, b) =>
        b.filingDate.localeCompare(a.filingDate) || b.accessionNumber.localeCompare(a.accessionNumber),
    );
}

const accessions = (page: Page) => page.data.map((f) => f.accession_number);

describe("/sec_filings on the demo data", () => {
  test("no filter: every filing, newest first, 100 per page by default, with the spec's fields", async () => {
    const all = demoFilings();
    const page = await filings("");
    expect(page.pagination).toEqual({
      page: 1,
      per_page: 100,
      total: all.length,
      total_pages: Math.ceil(all.length / 100),
    });
    expect(page.data.map((f) => f.filing_date)).toEqual(all.slice(0, 100).map((f) => f.filingDate));
    const fields = ["cik", "accession_number", "form", "filing_date", "report_date", "acceptance_date_time"];
    for (const f of [...fields, "fy", "fp", "period", "amendment_flag"])
      expect(page.data[0], f).toHaveProperty(f);
    const bySource = new Map(all.map((f) => [f.accessionNumber, f]));
    for (const row of page.data) {
      const src = bySource.get(row.accession_number as string);
      if (!src) throw new Error(`${row.accession_number} is not in the source files`);
      expect(row).toMatchObject({
        cik: src.cik,
        form: src.form,
        filing_date: src.filingDate,
        report_date: src.reportDate,
        filing_url: secUrl(src.cik, src.accessionNumber, src.primaryDocument),
      });
      expect(Date.parse(row.acceptance_date_time as string)).toBe(
        Date.parse(`${src.filingDate}T21:05:00.000Z`),
      );
    }
  });

  test("per_page up to 1000: the pages together are exactly the source's filings", async () => {
    const all = demoFilings();
    const seen: unknown[] = [];
    const totalPages = Math.ceil(all.length / 1000);
    for (let p = 1; p <= totalPages; p++) {
      const page = await filings(`per_page=1000&page=${p}`);
      expect(page.pagination).toEqual({
        page: p,
        per_page: 1000,
        total: all.length,
        total_pages: totalPages,
      });
      seen.push(...accessions(page));
    }
    expect(seen.length).toBe(all.length);
    expect(new Set(seen)).toEqual(new Set(all.map((f) => f.accessionNumber)));
    const past = await filings(`per_page=1000&page=${totalPages + 1}`);
    expect(past.data).toEqual([]);
    expect(past.pagination.total).toBe(all.length);
  });

  test("ticker + form + start + end combine, with inclusive date bounds", async () => {
    const cik = demoCik("DWGT");
    const src = demoFilings().filter((f) => f.cik === cik && f.form === "10-Q");
    // Bounds on two real filing dates (src is newest first), to show both ends are inclusive.
    const start = src[src.length - 3]?.filingDate as string;
    const end = src[src.length - 8]?.filingDate as string;
    const expected = src.filter((f) => f.filingDate >= start && f.filingDate <= end);
    expect(expected.length).toBe(6);
    const page = await filings(`ticker=dwgt&form=10-Q&start=${start}&end=${end}`);
    expect(accessions(page)).toEqual(expected.map((f) => f.accessionNumber));
    expect(page.pagination.total).toBe(6);
    const onlyDates = await filings(`cik=${Number(cik)}&start=${start}&end=${end}&per_page=1000`);
    const anyForm = demoFilings().filter(
      (f) => f.cik === cik && f.filingDate >= start && f.filingDate <= end,
    );
    expect(accessions(onlyDates)).toEqual(anyForm.map((f) => f.accessionNumber));
    expect(anyForm.some((f) => f.form === "10-K")).toBe(true);
    const fromStart = await filings(`ticker=DWGT&form=10-Q&start=${end}&per_page=1000`);
    expect(accessions(fromStart)).toEqual(
      src.filter((f) => f.filingDate >= end).map((f) => f.accessionNumber),
    );
    const toEnd = await filings(`ticker=DWGT&form=10-Q&end=${start}&per_page=1000`);
    expect(accessions(toEnd)).toEqual(src.filter((f) => f.filingDate <= start).map((f) => f.accessionNumber));
  });

  test("cik with or without leading zeros, ticker of either share class: the same filings", async () => {
    const cik = demoCik("DHLD-A");
    const expected = demoFilings()
      .filter((f) => f.cik === cik)
      .map((f) => f.accessionNumber);
    for (const q of [
      `cik=${cik}`,
      `cik=${Number(cik)}`,
      "ticker=DHLD-A",
      "ticker=dhld.b",
      "ticker=dhld%2Fb",
    ]) {
      const page = await filings(`${q}&per_page=1000`);
      expect(accessions(page), q).toEqual(expected);
    }
    const both = await filings(`ticker=DHLD-B&cik=${Number(cik)}&per_page=1000`);
    expect(accessions(both)).toEqual(expected);
  });

  test("accession_number is an exact filter", async () => {
    const target = demoFilings().find((f) => f.cik === demoCik("DCLD") && f.form === "10-K") as RawFiling;
    const page = await filings(`accession_number=${target.accessionNumber}`);
    expect(accessions(page)).toEqual([target.accessionNumber]);
    expect(page.pagination.total).toBe(1);
    expect(
      (await filings(`accession_number=${target.accessionNumber}&ticker=DCLD&form=10-K`)).data.length,
    ).toBe(1);
    expect((await filings(`accession_number=${target.accessionNumber}&form=10-Q`)).data).toEqual([]);
    expect((await filings(`accession_number=${target.accessionNumber}&ticker=DWGT`)).data).toEqual([]);
    expect((await filings("accession_number=0000000000-00-000000")).data).toEqual([]);
  });

  test("ticker and cik of different companies match nothing", async () => {
    const page = await filings(`ticker=DWGT&cik=${demoCik("DCLD")}`);
    expect(page.data).toEqual([]);
    expect(page.pagination).toEqual({ page: 1, per_page: 100, total: 0, total_pages: 0 });
    expect((await filings("cik=1")).data).toEqual([]);
  });

  test("bad parameters are free 400s naming the parameter; an unknown ticker is a free 404", async () => {
    const { key: k, userId } = server.newKey(3);
    const cases: [string, string][] = [
      ["cik=abc", "cik"],
      ["cik=12345678901", "cik"],
      ["cik=-1", "cik"],
      ["cik=1.5", "cik"],
      ["cik=", "cik"],
      ["accession_number=abc", "accession_number"],
      ["accession_number=0099000001-26-00005", "accession_number"],
      ["accession_number=009900000126000055", "accession_number"],
      ["accession_number=0099000001-26-000055%27", "accession_number"],
      ["start=2024-02-30", "start"],
      ["end=2023-13-01", "end"],
      ["start=yesterday", "start"],
      ["per_page=1001", "per_page"],
      ["per_page=0", "per_page"],
      ["page=0", "page"],
      ["page=x", "page"],
      [`form=${"K".repeat(21)}`, "form"],
      ["ticker=", "ticker"],
      [`ticker=${"A".repeat(21)}`, "ticker"],
    ];
    for (const [query, name] of cases) {
      const res = await server.get(`/sec_filings?${query}`, k);
      await expectProblem(res, 400, { code: "invalid_parameter", name, in: "query" });
      expect(chargedBy(res), query).toBe(0);
    }
    // Every bad CIK gets one message, here and on the calendar.
    for (const path of ["/sec_filings", "/calendar/earnings"]) {
      for (const cik of ["abc", "12345678901", ""]) {
        const body = await expectProblem(await server.get(`${path}?cik=${cik}`, k), 400, { name: "cik" });
        expect(body.errors?.[0]?.message, `${path} ${cik}`).toBe("must be 1 to 10 digits");
      }
    }
    const reversed = await server.get("/sec_filings?start=2024-03-01&end=2024-02-01", k);
    const body = await expectProblem(reversed, 400, { code: "invalid_parameter" });
    expect(["start", "end"]).toContain(body.errors?.[0]?.name as string);
    await expectProblem(await server.get("/sec_filings?ticker=NOSUCH", k), 404, { code: "not_found" });
    expect(server.accounts.getBalance(userId)).toBe(3);
  });
});

describe("/sec_filings: paged submissions files and duplicate accession numbers", () => {
  const CIK = "0000990001";
  const cols = (rows: [string, string, string][]) => ({
    accessionNumber: rows.map((r) => r[0]),
    filingDate: rows.map((r) => r[1]),
    reportDate: rows.map(() => ""),
    acceptanceDateTime: rows.map((r) => `${r[1]}T16:30:00.000Z`),
    form: rows.map((r) => r[2]),
    primaryDocument: rows.map((r) => `${r[0]}.htm`),
    primaryDocDescription: rows.map(() => ""),
  });
  // Recent filings, and a paged file with older ones; one accession number is in both files.
  const recent: [string, string, string][] = [
    ["0000990001-24-000003", "2024-02-01", "10-K"],
    ["0000990001-23-000002", "2023-11-01", "10-Q"],
    ["0000990001-23-000001", "2023-08-01", "10-Q"],
  ];
  const paged: [string, string, string][] = [
    ["0000990001-23-000001", "2023-08-01", "10-Q"],
    ["0000990001-15-000002", "2015-02-01", "10-K"],
    ["0000990001-14-000001", "2014-02-01", "10-K"],
  ];
  const OWNER = "0000990002";
  const ownerFilings: [string, string, string][] = [
    ["0000990001-23-000002", "2023-11-01", "10-Q"],
    ["0000990001-23-000001", "2023-08-01", "10-Q"],
  ];
  let synthetic: TestServer;
  let k: string;

  beforeAll(async () => {
    const src = tempDir("stockd-paged-src-");
    mkdirSync(join(src, "edgar", "submissions"), { recursive: true });
    writeFileSync(
      join(src, "edgar", "company_tickers_exchange.json"),
      JSON.stringify({
        fields: ["cik", "name", "ticker", "exchange"],
        data: [[990001, "Paged Filer Inc", "PGFL", "NYSE"]],
      }),
    );
    const company = {
      cik: CIK,
      name: "Paged Filer Inc",
      tickers: ["PGFL"],
      exchanges: ["NYSE"],
      filings: { recent: cols(recent), files: [{ name: `CIK${CIK}-submissions-001.json` }] },
    };
    writeFileSync(join(src, "edgar", "submissions", `CIK${CIK}.json`), JSON.stringify(company));
    writeFileSync(
      join(src, "edgar", "submissions", `CIK${CIK}-submissions-001.json`),
      JSON.stringify(cols(paged)),
    );
    // An insider of the filer: EDGAR lists each of its Form 4s under both CIKs.
    const owner = { cik: OWNER, name: "Insider Jane", filings: { recent: cols(ownerFilings), files: [] } };
    writeFileSync(join(src, "edgar", "submissions", `CIK${OWNER}.json`), JSON.stringify(owner));
    synthetic = await startTestServer(await importedDataDir(src));
    k = synthetic.newKey(100).key;
  });
  afterAll(() => synthetic.stop());

  test("filings only in the paged file are listed; an accession number in both files is listed once", async () => {
    const expected = [...new Set([...recent, ...paged].map((r) => r[0]))].sort().reverse();
    const page = await filings(`cik=${CIK}`, synthetic, k);
    expect(accessions(page)).toEqual(expected);
    expect(page.pagination.total).toBe(5);
    const tenK = await filings("cik=990001&form=10-K", synthetic, k);
    expect(accessions(tenK)).toEqual([
      "0000990001-24-000003",
      "0000990001-15-000002",
      "0000990001-14-000001",
    ]);
    const dup = await filings(`accession_number=0000990001-23-000001&cik=${CIK}`, synthetic, k);
    expect(dup.pagination.total).toBe(1);
    expect(dup.data[0]?.filing_url).toBe(secUrl(CIK, "0000990001-23-000001", "0000990001-23-000001.htm"));
  });

  test("one filing listed under two CIKs: a row for each, in one order on every page size", async () => {
    const key = (f: Json) => `${f.filing_date} ${f.accession_number} ${f.cik}`;
    const all = (await filings("per_page=1000", synthetic, k)).data.map(key);
    // Newest first; a filing of two CIKs comes once per CIK, the lower CIK first.
    expect(all).toEqual([
      `2024-02-01 0000990001-24-000003 ${CIK}`,
      `2023-11-01 0000990001-23-000002 ${CIK}`,
      `2023-11-01 0000990001-23-000002 ${OWNER}`,
      `2023-08-01 0000990001-23-000001 ${CIK}`,
      `2023-08-01 0000990001-23-000001 ${OWNER}`,
      `2015-02-01 0000990001-15-000002 ${CIK}`,
      `2014-02-01 0000990001-14-000001 ${CIK}`,
    ]);
    for (const perPage of [1, 2, 3]) {
      const paged: string[] = [];
      for (let p = 1; p <= Math.ceil(all.length / perPage); p++)
        paged.push(...(await filings(`per_page=${perPage}&page=${p}`, synthetic, k)).data.map(key));
      expect(paged, `per_page=${perPage}`).toEqual(all);
    }
  });

  test("/stocks/{symbol}/secfiling sees the paged file's filings too", async () => {
    const res = await synthetic.get("/stocks/PGFL/secfiling", k);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { filings: Json[] };
    expect(body.filings.map((f) => f.filing_date)).toEqual(["2024-02-01", "2015-02-01", "2014-02-01"]);
  });
});
