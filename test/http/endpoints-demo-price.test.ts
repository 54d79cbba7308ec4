/**
 * /stocks/{symbol}/price and /stocks/{symbol}/secfiling over the demo snapshot; expected
 * rows come from the demo source files (prices/<TICKER>.csv, edgar/submissions/*.json).
 */

import { describe, expect, test } from "bun:test";
import { demoCik, demoSources } from "../helpers/demo-sources.ts";
import { filingRows, type Json, newestFirst, secUrl, servedPrice } from "../helpers/raw-sources.ts";
import { chargedBy, expectProblem } from "../helpers/responses.ts";
import { useDemoServer } from "../helpers/server.ts";

const server = useDemoServer();

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

describe("/stocks/{symbol}/price", () => {
  test("returns the CSV rows of the window, inclusive, ascending, volume as a JSON number", async () => {
    const { key } = server.newKey(5);
    const res = await server.get("/stocks/DWGT/price?start_date=2024-01-03&end_date=2024-02-14", key);
    expect(res.status).toBe(200);
    expect(chargedBy(res)).toBe(1);
    const text = await res.text();
    expect(text).not.toMatch(/"volume":"/);
    const rows = JSON.parse(text) as Json[];
    const expected = demoSources()
      .prices("DWGT")
      .filter((r) => r.date >= "2024-01-03" && r.date <= "2024-02-14")
      .map(servedPrice);
    expect(expected.length).toBeGreaterThan(25);
    expect(rows[0]?.date).toBe("2024-01-03");
    expect(rows.at(-1)?.date).toBe("2024-02-14");
    expect(rows).toEqual(expected);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(["close", "date", "high", "low", "open", "volume"]);
      expect(Number.isInteger(row.volume)).toBe(true);
    }
    const dates = rows.map((r) => r.date as string);
    expect(dates).toEqual([...dates].sort());
  });

  test("share-class spellings give the same rows", async () => {
    const { key } = server.newKey(5);
    const window = "start_date=2024-03-01&end_date=2024-03-08";
    const a = await (await server.get(`/stocks/dhld.b/price?${window}`, key)).json();
    const b = await (await server.get(`/stocks/DHLD%2FB/price?${window}`, key)).json();
    expect(a).toEqual(b);
    expect((a as Json[]).map((r) => r.close)).toEqual(
      demoSources()
        .prices("DHLD-B")
        .filter((r) => r.date >= "2024-03-01" && r.date <= "2024-03-08")
        .map((r) => r.close),
    );
  });

  test("an empty window is 200 []: a weekend, and a range before the first row", async () => {
    const { key } = server.newKey(5);
    // 2024-01-06/07 is a weekend; the demo writes weekdays only, from 2013.
    for (const window of [
      "start_date=2024-01-06&end_date=2024-01-07",
      "start_date=1990-01-01&end_date=2000-12-31",
    ]) {
      const res = await server.get(`/stocks/DWGT/price?${window}`, key);
      expect(res.status, window).toBe(200);
      expect(await res.json()).toEqual([]);
    }
  });

  test("end_date may be today, and the latest row is yesterday's", async () => {
    const { key } = server.newKey(5);
    const res = await server.get(`/stocks/DWGT/price?start_date=${day(-10)}&end_date=${day(0)}`, key);
    expect(res.status).toBe(200);
    const rows = (await res.json()) as Json[];
    expect(rows.at(-1)?.date).toBe(demoSources().prices("DWGT").at(-1)?.date as string);
  });

  test("parameter errors are free 400s naming the parameter", async () => {
    const { key, userId } = server.newKey(5);
    const cases: [string, string][] = [
      ["end_date=2024-01-31", "start_date"],
      ["start_date=2024-01-01", "end_date"],
      ["", "start_date"],
      ["start_date=2024-02-30&end_date=2024-03-01", "start_date"],
      ["start_date=2024-01-01&end_date=2023-02-29", "end_date"],
      ["start_date=2024-13-01&end_date=2024-12-31", "start_date"],
      ["start_date=2024/01/01&end_date=2024-01-31", "start_date"],
      ["start_date=20240101&end_date=2024-01-31", "start_date"],
      ["start_date=2024-01-01&end_date=2024-1-31", "end_date"],
      [`start_date=2024-01-01&end_date=${day(1)}`, "end_date"],
      [`start_date=${day(1)}&end_date=${day(2)}`, "end_date"],
    ];
    for (const [query, name] of cases) {
      const res = await server.get(`/stocks/DWGT/price?${query}`, key);
      await expectProblem(res, 400, { code: "invalid_parameter", name, in: "query" });
      expect(chargedBy(res), query).toBe(0);
    }
    const reversed = await server.get("/stocks/DWGT/price?start_date=2024-03-01&end_date=2024-02-01", key);
    const body = await expectProblem(reversed, 400, { code: "invalid_parameter" });
    expect(["start_date", "end_date"]).toContain(body.errors?.[0]?.name as string);
    expect(server.accounts.getBalance(userId)).toBe(5);
  });

  test("a leap day is a date; an unknown symbol is 404 even with a good window", async () => {
    const { key } = server.newKey(5);
    expect(
      (await server.get("/stocks/DWGT/price?start_date=2024-02-29&end_date=2024-02-29", key)).status,
    ).toBe(200);
    await expectProblem(
      await server.get("/stocks/NOSUCH/price?start_date=2024-01-01&end_date=2024-01-31", key),
      404,
      { code: "not_found" },
    );
  });
});

describe("/stocks/{symbol}/secfiling", () => {
  const filings = (ticker: string, form: string) =>
    newestFirst(
      filingRows(demoSources().submissions(demoCik(ticker)).filings.recent).filter((f) => f.form === form),
    );

  test("defaults to form 10-K, newest first, with the spec's fields and sec.gov URLs", async () => {
    const { key } = server.newKey(5);
    const res = await server.get("/stocks/DWGT/secfiling", key);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { symbol: string; form_type: string; filings: Json[] };
    expect(Object.keys(body).sort()).toEqual(["filings", "form_type", "symbol"]);
    expect(body.symbol).toBe("DWGT");
    expect(body.form_type).toBe("10-K");
    const expected = filings("DWGT", "10-K");
    expect(expected.length).toBeGreaterThan(5);
    expect(expected.length).toBeLessThanOrEqual(20);
    expect(body.filings.map((f) => f.accession_number)).toEqual(expected.map((f) => f.accessionNumber));
    const cik = demoCik("DWGT");
    for (const [i, f] of body.filings.entries()) {
      const src = expected[i];
      if (!src) throw new Error("more filings than the source has");
      for (const field of ["accession_number", "cik", "form_type", "filing_date", "filing_url"]) {
        expect(f, field).toHaveProperty(field);
      }
      expect(f.cik).toBe(cik);
      expect(f.form_type).toBe("10-K");
      expect(f.filing_date).toBe(src.filingDate);
      expect(f.report_date).toBe(src.reportDate);
      expect(f.filing_url).toBe(secUrl(cik, src.accessionNumber, src.primaryDocument));
    }
  });

  test("limit defaults to 20 and caps the newest filings of the form", async () => {
    const { key } = server.newKey(5);
    const expected = filings("DCLD", "10-Q").map((f) => f.accessionNumber);
    expect(expected.length).toBeGreaterThan(20);
    const ids = async (query: string) => {
      const res = await server.get(`/stocks/DCLD/secfiling?${query}`, key);
      expect(res.status, query).toBe(200);
      return ((await res.json()) as { filings: Json[] }).filings.map((f) => f.accession_number);
    };
    expect(await ids("form_type=10-Q")).toEqual(expected.slice(0, 20));
    expect(await ids("form_type=10-Q&limit=3")).toEqual(expected.slice(0, 3));
    expect(await ids("form_type=10-Q&limit=1000")).toEqual(expected);
    expect(await ids("form_type=8-K")).toEqual([]);
  });

  test("limit must be an integer from 1 to 1000; errors are free", async () => {
    const { key, userId } = server.newKey(5);
    for (const limit of ["0", "-1", "1001", "abc", "2.5", ""]) {
      const res = await server.get(`/stocks/DWGT/secfiling?limit=${limit}`, key);
      await expectProblem(res, 400, { code: "invalid_parameter", name: "limit", in: "query" });
    }
    await expectProblem(await server.get("/stocks/NOSUCH/secfiling", key), 404, { code: "not_found" });
    expect(server.accounts.getBalance(userId)).toBe(5);
  });

  test("both share classes list the one filer's filings", async () => {
    const { key } = server.newKey(5);
    const a = (await (await server.get("/stocks/dhld-a/secfiling?limit=5", key)).json()) as {
      filings: Json[];
    };
    const b = (await (await server.get("/stocks/DHLD%2FB/secfiling?limit=5", key)).json()) as {
      filings: Json[];
    };
    expect(a.filings.length).toBe(5);
    expect(a.filings).toEqual(b.filings);
    expect(a.filings[0]?.accession_number).toBe(filings("DHLD-A", "10-K")[0]?.accessionNumber as string);
  });
});
