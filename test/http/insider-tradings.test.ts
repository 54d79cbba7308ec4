/**
 * /securities/{ticker}/insider_tradings over the real server and a snapshot imported from the
 * public fixtures (STOCKD_FIXTURES). Every expected row is read in the test from the raw SEC
 * ownership documents edgar/form4/*.xml (parsed here with fast-xml-parser, independently of
 * the importer): the non-derivative transactions (ownershipDocument/nonDerivativeTable/
 * nonDerivativeTransaction) with transactionCode P or S, their transactionDate,
 * transactionShares, transactionPricePerShare, and the reporting owners' rptOwnerName and
 * reportingOwnerRelationship. The security record is checked against
 * edgar/company_tickers_exchange.json.
 */

import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { FIXTURES } from "../helpers/env.ts";
import type { Json } from "../helpers/raw-sources.ts";
import { chargedBy, expectProblem } from "../helpers/responses.ts";
import { serverOverImport } from "../helpers/server.ts";

const root = FIXTURES ?? "";
const form4Dir = join(root, "edgar", "form4");

// ---------------------------------------------------------------------------------------------
// Raw ownership documents: edgar/form4/*.xml
// ---------------------------------------------------------------------------------------------

type Node = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  isArray: (name) => ["reportingOwner", "nonDerivativeTransaction"].includes(name),
});

/** Text of an element that may wrap its text in <value> (SEC ownership XML does both). */
function text(node: unknown, ...path: string[]): string | null {
  let here: unknown = node;
  for (const key of path) here = (here as Node | undefined)?.[key];
  if (here !== null && typeof here === "object" && "value" in (here as Node)) here = (here as Node).value;
  if (typeof here !== "string") return null;
  const trimmed = here.trim();
  return trimmed === "" ? null : trimmed;
}
const flag = (node: unknown, name: string) =>
  ["1", "true"].includes((text(node, "reportingOwnerRelationship", name) ?? "").toLowerCase());
const num = (s: string | null) => (s === null ? null : Number(s.replace(/,/g, "")));

/** One non-derivative transaction of a raw document (any code). */
interface RawTransaction {
  file: string;
  issuerCik: string;
  transaction_date: string;
  transaction_code: string;
  shares: number | null;
  price: number | null;
  owner_name: string;
  owner_title: string;
}

/**
 * owner_title per the issue's rule: the officer title, else Director, 10% Owner or Other; a
 * joint filing lists each distinct title (and each owner name) joined with "; ", the format
 * documented on OwnershipTransaction in src/snapshot/rows.ts.
 */
function ownerTitle(owner: unknown): string {
  const officerTitle = text(owner, "reportingOwnerRelationship", "officerTitle");
  if (flag(owner, "isOfficer") && officerTitle) return officerTitle;
  if (flag(owner, "isDirector")) return "Director";
  if (flag(owner, "isTenPercentOwner")) return "10% Owner";
  return "Other";
}

let rawCache: RawTransaction[] | null = null;
/** Issuer CIK of each document. */
const documentIssuers = new Map<string, string>();
/** Every non-derivative transaction of every document (the fixtures hold no duplicates or 4/As). */
function rawTransactions(): RawTransaction[] {
  if (rawCache) return rawCache;
  const out: RawTransaction[] = [];
  for (const file of readdirSync(form4Dir).filter((f) => f.endsWith(".xml"))) {
    const doc = (parser.parse(readFileSync(join(form4Dir, file), "utf8")) as Node).ownershipDocument as Node;
    const issuerCik = (text(doc, "issuer", "issuerCik") ?? "").padStart(10, "0");
    documentIssuers.set(file, issuerCik);
    const owners = (doc.reportingOwner as Node[] | undefined) ?? [];
    const owner_name = owners.map((o) => text(o, "reportingOwnerId", "rptOwnerName") ?? "").join("; ");
    const owner_title = [...new Set(owners.map(ownerTitle))].join("; ");
    const table = doc.nonDerivativeTable as Node | undefined;
    for (const t of (table?.nonDerivativeTransaction as Node[] | undefined) ?? []) {
      out.push({
        file,
        issuerCik,
        transaction_date: (text(t, "transactionDate") ?? "").slice(0, 10),
        transaction_code: text(t, "transactionCoding", "transactionCode") ?? "",
        shares: num(text(t, "transactionAmounts", "transactionShares")),
        price: num(text(t, "transactionAmounts", "transactionPricePerShare")),
        owner_name,
        owner_title,
      });
    }
  }
  rawCache = out;
  return out;
}

/** The P and S rows of one issuer, optionally within [start, end]. */
function rawTrades(issuerCik: string, start: string | null = null, end: string | null = null) {
  return rawTransactions().filter(
    (t) =>
      t.issuerCik === issuerCik &&
      (t.transaction_code === "P" || t.transaction_code === "S") &&
      (start === null || t.transaction_date >= start) &&
      (end === null || t.transaction_date <= end),
  );
}

/** edgar/company_tickers_exchange.json as rows. */
function exchangeList(): { cik: string; name: string; ticker: string; exchange: string | null }[] {
  const list = JSON.parse(readFileSync(join(root, "edgar", "company_tickers_exchange.json"), "utf8")) as {
    fields: string[];
    data: unknown[][];
  };
  const at = (field: string) => list.fields.indexOf(field);
  return list.data.map((r) => ({
    cik: String(r[at("cik")]).padStart(10, "0"),
    name: r[at("name")] as string,
    ticker: r[at("ticker")] as string,
    exchange: (r[at("exchange")] as string | null) ?? null,
  }));
}

/** §2.1 field names, parsed from the spec's table. */
function securityRecordFields(): string[] {
  const spec = readFileSync(
    join(import.meta.dir, "..", "..", "..", "shared", "spec", "interface.md"),
    "utf8",
  );
  const section = spec.slice(spec.indexOf("### 2.1 "), spec.indexOf("### 2.2 "));
  return [...section.matchAll(/^\| ([a-z_]+) \|/gm)].map((m) => m[1] as string);
}

// ---------------------------------------------------------------------------------------------

interface Trade {
  transaction_date: string;
  transaction_code: string;
  shares: number | null;
  price: number | null;
  value: number | null;
  owner_name: string;
  owner_title: string;
}
type Response = Json & { insider_tradings: Trade[] };

/** The comparable part of a row, and an order to compare multisets in. */
const essence = (t: Pick<Trade, Exclude<keyof Trade, "value">>) => ({
  transaction_date: t.transaction_date,
  transaction_code: t.transaction_code,
  shares: t.shares,
  price: t.price,
  owner_name: t.owner_name,
  owner_title: t.owner_title,
});
const canonical = <T extends ReturnType<typeof essence>>(rows: T[]) =>
  rows.map(essence).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe.skipIf(!FIXTURES)("/securities/{ticker}/insider_tradings over the real Form 4 files", () => {
  const fixtures = serverOverImport(root);
  const server = fixtures.server;

  async function trades(ticker: string, query = ""): Promise<Response> {
    const path = `/securities/${ticker}/insider_tradings${query}`;
    const res = await server.get(path, fixtures.key);
    expect(res.status, path).toBe(200);
    expect(chargedBy(res), path).toBe(1);
    return (await res.json()) as Response;
  }

  /** Served rows equal the raw rows (as multisets), newest first, value = shares × price. */
  function expectRows(served: Trade[], expected: RawTransaction[], label: string): void {
    expect(served.length, label).toBe(expected.length);
    expect(canonical(served), label).toEqual(canonical(expected));
    for (let i = 1; i < served.length; i++) {
      const [newer, older] = [served[i - 1] as Trade, served[i] as Trade];
      expect(newer.transaction_date >= older.transaction_date, `${label}: newest first at ${i}`).toBe(true);
    }
    for (const t of served) {
      expect(["P", "S"], label).toContain(t.transaction_code);
      if (t.shares === null || t.price === null) expect(t.value, label).toBeNull();
      else
        expect(Math.abs((t.value ?? Number.NaN) - t.shares * t.price), `${label} value`).toBeLessThanOrEqual(
          0.005001,
        );
    }
  }

  test("Tesla: every P and S row of its Form 4s (1,304 rows), newest first; other codes are left out", async () => {
    const tesla = "0001318605";
    // edgar/form4/TSLA_*.xml: issuerCik 0001318605.
    const expected = rawTrades(tesla);
    expect(expected.some((t) => t.transaction_code === "P")).toBe(true);
    expect(expected.some((t) => t.transaction_code === "S")).toBe(true);
    const codes = new Set(
      rawTransactions()
        .filter((t) => t.issuerCik === tesla)
        .map((t) => t.transaction_code),
    );
    for (const other of ["M", "A", "G", "J", "C", "X", "F"]) expect(codes.has(other), other).toBe(true);
    const body = await trades("TSLA", "?limit=10000");
    expectRows(body.insider_tradings, expected, "TSLA");
    // The newest and oldest rows, as read from the files.
    const dates = expected.map((t) => t.transaction_date).sort();
    expect(body.insider_tradings[0]?.transaction_date).toBe(dates[dates.length - 1] as string);
    expect(body.insider_tradings.at(-1)?.transaction_date).toBe(dates[0] as string);
  });

  test("Tesla without a limit: every P and S row (1,304, within the default limit of 10,000)", async () => {
    const body = await trades("TSLA");
    expectRows(body.insider_tradings, rawTrades("0001318605"), "TSLA, no limit");
  });

  test("every issuer with P or S rows in the files that the ticker list names: rows, owners and titles match", async () => {
    const list = exchangeList();
    const issuers = [...new Set(rawTransactions().map((t) => t.issuerCik))];
    let covered = 0;
    for (const cik of issuers) {
      const expected = rawTrades(cik);
      const ticker = list.find((r) => r.cik === cik)?.ticker;
      if (expected.length === 0 || !ticker) continue;
      covered++;
      const body = await trades(ticker, "?limit=10000");
      expect(body.cik, ticker).toBe(cik);
      expectRows(body.insider_tradings, expected, ticker);
    }
    // TSLA, AAPL, AFRM, YELP, PLTR, META (filed as FB), IVVD (filed as ADGI), GUTS, CMMB, ...
    expect(covered).toBeGreaterThanOrEqual(15);
    // The title rule's branches all occur: officer title, Director, 10% Owner, joint filings.
    const traded = rawTransactions().filter((t) => ["P", "S"].includes(t.transaction_code));
    const titles = new Set(traded.map((t) => t.owner_title));
    for (const title of ["Director", "10% Owner", "CEO", "SVP, GC and Secretary"])
      expect(titles.has(title), title).toBe(true);
    expect(
      traded.some((t) => t.owner_name.includes("; ")),
      "a joint filing",
    ).toBe(true);
  });

  test("symbols no ticker list names are reachable as filed: LNKD, YHOO, ZNGA, SCTY, and FB for Meta", async () => {
    // Every document's issuerTradingSymbol, issuerCik, issuerName and periodOfReport.
    const filed = readdirSync(form4Dir)
      .filter((f) => f.endsWith(".xml"))
      .map((f) => {
        const doc = (parser.parse(readFileSync(join(form4Dir, f), "utf8")) as Node).ownershipDocument as Node;
        return {
          symbol: (text(doc, "issuer", "issuerTradingSymbol") ?? "").toUpperCase(),
          cik: (text(doc, "issuer", "issuerCik") ?? "").padStart(10, "0"),
          name: text(doc, "issuer", "issuerName"),
          period: text(doc, "periodOfReport") ?? "",
        };
      })
      .sort((a, b) => b.period.localeCompare(a.period));
    const tickers = JSON.parse(readFileSync(join(root, "edgar", "company_tickers.json"), "utf8")) as Record<
      string,
      { ticker: string }
    >;
    const listed = new Set([
      ...exchangeList().map((r) => r.ticker),
      ...Object.values(tickers).map((t) => t.ticker),
    ]);
    const unlisted = [...new Set(filed.map((d) => d.symbol))].filter((s) => s !== "" && !listed.has(s));
    for (const symbol of ["LNKD", "YHOO", "ZNGA", "SCTY", "FB"]) expect(unlisted).toContain(symbol);
    for (const symbol of unlisted) {
      const newest = filed.find((d) => d.symbol === symbol);
      const body = await trades(symbol, "?limit=10000");
      expect(body, symbol).toMatchObject({
        ticker: symbol,
        cik: newest?.cik,
        name: newest?.name,
        exchange: null,
      });
      expectRows(body.insider_tradings, rawTrades(newest?.cik ?? ""), symbol);
    }
    // LinkedIn's 23 documents hold sales; Meta's trades are the same under FB as under META.
    expect((await trades("LNKD")).insider_tradings.length).toBeGreaterThan(0);
    expect((await trades("FB", "?limit=10000")).insider_tradings).toEqual(
      (await trades("META", "?limit=10000")).insider_tradings,
    );
  });

  test("a price given only as a footnote: price and value are null (Chemomab, CMMB)", async () => {
    // edgar/form4/CMMB_form4_0001209191-21-021966_doc4.xml: transactionPricePerShare has no <value>.
    const expected = rawTrades("0001534248");
    expect(expected).toHaveLength(1);
    expect(expected[0]?.price).toBeNull();
    const body = await trades("CMMB");
    expect(body.insider_tradings).toHaveLength(1);
    expect(body.insider_tradings[0]).toMatchObject({
      ...essence(expected[0] as RawTransaction),
      value: null,
    });
  });

  test("start and end are inclusive on the transaction date, alone or together", async () => {
    const tesla = "0001318605";
    const cases: [string | null, string | null][] = [
      ["2021-11-09", "2021-11-10"],
      ["2012-10-03", "2012-10-03"],
      ["2022-08-05", null],
      [null, "2018-06-12"],
      ["2018-06-12", "2018-06-13"],
    ];
    for (const [start, end] of cases) {
      const query = [start && `start=${start}`, end && `end=${end}`, "limit=10000"].filter(Boolean).join("&");
      const expected = rawTrades(tesla, start, end);
      expect(expected.length, query).toBeGreaterThan(0);
      // The bounds themselves hold trades, so inclusiveness is tested.
      if (start)
        expect(
          expected.some((t) => t.transaction_date === start),
          query,
        ).toBe(true);
      if (end)
        expect(
          expected.some((t) => t.transaction_date === end),
          query,
        ).toBe(true);
      const body = await trades("TSLA", `?${query}`);
      expectRows(body.insider_tradings, expected, query);
    }
    // A range without trades: 200 with an empty list.
    expect(rawTrades(tesla, "2015-01-01", "2015-12-31")).toHaveLength(0);
    expect((await trades("TSLA", "?start=2015-01-01&end=2015-12-31")).insider_tradings).toEqual([]);
  });

  test("the response is the §2.1 security record with insider_tradings", async () => {
    const fields = securityRecordFields();
    expect(fields).toEqual([
      "name",
      "ticker",
      "exchange",
      "security_type",
      "currency_code",
      "cik",
      "composite_figi",
      "share_class_figi",
    ]);
    const body = await trades("TSLA", "?start=2022-12-01");
    expect(Object.keys(body).sort()).toEqual([...fields, "insider_tradings"].sort());
    // edgar/company_tickers_exchange.json: Tesla's row.
    const listed = exchangeList().find((r) => r.ticker === "TSLA");
    expect(body).toMatchObject({
      ticker: "TSLA",
      cik: listed?.cik,
      name: listed?.name,
      exchange: listed?.exchange,
    });
    // The same record as the search endpoint gives.
    const search = await server.get("/securities/search?query=TSLA", fixtures.key);
    const first = ((await search.json()) as { data: Json[] }).data[0] as Json;
    const { insider_tradings: _, ...record } = body;
    expect(record).toEqual(first);
  });

  test("companies without trades: 200 with an empty list (MSFT: Forms 3/4/5 without P or S; NVDA: none)", async () => {
    // edgar/form4/MSFT_*.xml: documents of issuerCik 0000789019, none with a non-derivative P or S.
    expect(rawTrades("0000789019")).toHaveLength(0);
    const microsoft = [...documentIssuers.values()].filter((cik) => cik === "0000789019");
    expect(microsoft.length).toBeGreaterThan(50);
    const msft = await trades("MSFT");
    expect(msft).toMatchObject({ ticker: "MSFT", cik: "0000789019", insider_tradings: [] });
    expect([...documentIssuers.values()].includes("0001045810")).toBe(false);
    const nvda = await trades("NVDA");
    expect(nvda).toMatchObject({ ticker: "NVDA", cik: "0001045810", insider_tradings: [] });
  });

  test("bad dates, start after end, unknown tickers: problem+json, not charged; a 200 costs 1", async () => {
    const { key: own, userId } = server.newKey(10);
    const bad: [string, number, string | undefined][] = [
      ["start=2022-01-02&end=2022-01-01", 400, "start"],
      ["start=2021-02-30", 400, "start"],
      ["end=2021-13-01", 400, "end"],
      ["start=20210101", 400, "start"],
      ["end=yesterday", 400, "end"],
      ["limit=0", 400, "limit"],
    ];
    for (const [query, status, name] of bad) {
      const res = await server.get(`/securities/TSLA/insider_tradings?${query}`, own);
      await expectProblem(res, status, { code: "invalid_parameter", name, in: "query" });
      expect(chargedBy(res), query).toBe(0);
    }
    const unknown = await server.get("/securities/NOSUCHTICKER/insider_tradings", own);
    await expectProblem(unknown, 404, { code: "not_found" });
    expect(chargedBy(unknown)).toBe(0);
    expect(server.accounts.getBalance(userId)).toBe(10);
    const ok = await server.get("/securities/AAPL/insider_tradings", own);
    expect(ok.status).toBe(200);
    expect(chargedBy(ok)).toBe(1);
    expect(server.accounts.getBalance(userId)).toBe(9);
    expect((await server.get("/securities/AAPL/insider_tradings", null)).status).toBe(401);
  });
});
