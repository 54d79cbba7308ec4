/**
 * /securities/search: ranking (exact ticker, ticker prefix, name prefix, words in the name)
 * and pagination, over the demo snapshot and a small universe written for the ranking.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { demoSources } from "../helpers/demo-sources.ts";
import { tempDir } from "../helpers/env.ts";
import type { Json } from "../helpers/raw-sources.ts";
import { chargedBy, expectProblem } from "../helpers/responses.ts";
import { demoDataDir, importedDataDir, startTestServer, type TestServer } from "../helpers/server.ts";

interface Page {
  data: Json[];
  pagination: { page: number; per_page: number; total: number; total_pages: number };
}

let demo: TestServer;
let ranked: TestServer;
let demoKey: string;
let rankedKey: string;

/**
 * The SEC's ticker list, in its order: by market value, largest first. For the query "ab": AB
 * is the exact ticker; ABCDE and ABZ start with it (the list puts ABCDE first: the larger
 * company); AAA's name starts with "ab"; AA's name holds the word; ZZZ matches nothing. The
 * tickers that rank lower sort earlier alphabetically, so only the ranking can put them in
 * order. The rest match none of the "ab" queries: share classes of one base ticker (BRK),
 * names that start alike (Apple, Meta, Coca-Cola) or hold "apple" inside a word.
 */
const RANKING_UNIVERSE: [number, string, string, string][] = [
  [320193, "Apple Inc.", "AAPL", "Nasdaq"],
  [1326801, "Meta Platforms, Inc.", "META", "Nasdaq"],
  [21344, "COCA COLA CO", "KO", "NYSE"],
  [1067983, "Berkshire Hathaway Inc", "BRK-B", "NYSE"],
  [1067983, "Berkshire Hathaway Inc", "BRK-A", "NYSE"],
  [1001, "Zulu Holdings", "AB", "NYSE"],
  [1002, "Yankee Corp", "ABCDE", "Nasdaq"],
  [1003, "Xray Inc", "ABZ", "Nasdaq"],
  [1004, "Abacus Industries", "AAA", "NYSE"],
  [1005, "The Ab Group", "AA", "NYSE"],
  [1006, "Nothing Corp", "ZZZ", "NYSE"],
  [1007, "Brookline Capital", "BRKH", "Nasdaq"],
  [1008, "Apple iSports Group, Inc.", "AAPI", "Nasdaq"],
  [1010, "Meta Materials Inc.", "MMAT", "Nasdaq"],
  [1009, "Maui Land & Pineapple Company", "MLP", "NYSE"],
  [1650107, "COCA-COLA EUROPACIFIC PARTNERS plc", "CCEP", "Nasdaq"],
  [317540, "Coca-Cola Consolidated, Inc.", "COKE", "Nasdaq"],
];

beforeAll(async () => {
  const src = tempDir("stockd-ranking-src-");
  mkdirSync(join(src, "edgar"), { recursive: true });
  writeFileSync(
    join(src, "edgar", "company_tickers_exchange.json"),
    JSON.stringify({ fields: ["cik", "name", "ticker", "exchange"], data: RANKING_UNIVERSE }),
  );
  [demo, ranked] = await Promise.all([
    startTestServer(await demoDataDir()),
    startTestServer(await importedDataDir(src)),
  ]);
  demoKey = demo.newKey(1000).key;
  rankedKey = ranked.newKey(1000).key;
});
afterAll(async () => {
  await demo.stop();
  await ranked.stop();
});

async function search(server: TestServer, key: string, query: string): Promise<Page> {
  const res = await server.get(`/securities/search?${query}`, key);
  expect(res.status, query).toBe(200);
  return (await res.json()) as Page;
}

const tickersOf = (page: Page) => page.data.map((r) => r.ticker);

describe("/securities/search ranking", () => {
  test("exact ticker, then ticker prefix (larger company first), then name prefix, then words in the name", async () => {
    const page = await search(ranked, rankedKey, "query=ab");
    expect(tickersOf(page)).toEqual(["AB", "ABCDE", "ABZ", "AAA", "AA"]);
    expect(page.pagination).toEqual({ page: 1, per_page: 10, total: 5, total_pages: 1 });
    expect(tickersOf(await search(ranked, rankedKey, "query=AB"))).toEqual(tickersOf(page));
    expect(tickersOf(await search(ranked, rankedKey, "query=ab%20group"))).toEqual(["AA"]);
    expect(tickersOf(await search(ranked, rankedKey, "query=group%20ab"))).toEqual(["AA"]);
    expect(tickersOf(await search(ranked, rankedKey, "query=nomatch"))).toEqual([]);
  });

  test("a base ticker finds every share class first; a name query ranks the larger company first, whole words only", async () => {
    expect(tickersOf(await search(ranked, rankedKey, "query=brk"))).toEqual(["BRK-B", "BRK-A", "BRKH"]);
    expect(tickersOf(await search(ranked, rankedKey, "query=BRK.B"))).toEqual(["BRK-B"]);
    // Both names start with "apple" (and "meta"): the larger company first, even with the
    // longer name (Meta Platforms before Meta Materials). Pineapple holds "apple" inside a
    // word, which is not a match.
    expect(tickersOf(await search(ranked, rankedKey, "query=apple"))).toEqual(["AAPL", "AAPI"]);
    expect(tickersOf(await search(ranked, rankedKey, "query=meta"))).toEqual(["META", "MMAT"]);
    expect(tickersOf(await search(ranked, rankedKey, "query=pineapple%20maui"))).toEqual(["MLP"]);
  });

  test("a name starts with the query word by word, whatever stands between the words (KO's COCA COLA CO)", async () => {
    // The SEC lists The Coca-Cola Company as "COCA COLA CO": "coca-cola" starts it as much as
    // it starts the bottlers' names, and the larger company comes first.
    for (const query of ["coca-cola", "coca%20cola", "Coca-Cola%20"]) {
      expect(tickersOf(await search(ranked, rankedKey, `query=${query}`)), query).toEqual([
        "KO",
        "CCEP",
        "COKE",
      ]);
    }
  });

  test("pages of the ranked list: total, total_pages, and a page past the end is empty", async () => {
    const pages = [1, 2, 3, 4].map((p) => search(ranked, rankedKey, `query=ab&per_page=2&page=${p}`));
    const [p1, p2, p3, p4] = await Promise.all(pages);
    expect(tickersOf(p1 as Page)).toEqual(["AB", "ABCDE"]);
    expect(tickersOf(p2 as Page)).toEqual(["ABZ", "AAA"]);
    expect(tickersOf(p3 as Page)).toEqual(["AA"]);
    expect(p4?.data).toEqual([]);
    expect(p4?.pagination).toEqual({ page: 4, per_page: 2, total: 5, total_pages: 3 });
  });

  test("rows are exactly the spec's security record, with the values of the ticker list", async () => {
    const page = await search(ranked, rankedKey, "query=AAA");
    expect(page.data[0]).toEqual({
      name: "Abacus Industries",
      ticker: "AAA",
      exchange: "NYSE",
      security_type: null,
      currency_code: "USD",
      cik: "0000001004",
      composite_figi: null,
      share_class_figi: null,
    });
  });

  test("demo: an exact ticker comes first, in any case and share-class spelling", async () => {
    for (const q of ["DHLD-B", "dhld.b", "dhld%2Fb"]) {
      const page = await search(demo, demoKey, `query=${q}`);
      expect(page.data[0]?.ticker, q).toBe("DHLD-B");
    }
    const both = await search(demo, demoKey, "query=dhld");
    expect(tickersOf(both)).toEqual(["DHLD-A", "DHLD-B"]);
    expect(both.data[0]?.cik).toBe(both.data[1]?.cik as string);
  });

  test("demo: the name starting with the query ranks above names that only hold its words", async () => {
    const page = await search(demo, demoKey, "query=Demo%20W&per_page=100");
    const names = demoSources().tickers;
    // Every query word starts a word of the name.
    const wordsOf = (n: string) => n.toLowerCase().split(/[^\p{L}\p{N}]+/u);
    const withWords = names.filter(([, n]) =>
      ["demo", "w"].every((q) => wordsOf(n).some((w) => w.startsWith(q))),
    );
    const startsWith = names.filter(([, n]) => n.toLowerCase().startsWith("demo w")).map(([, , t]) => t);
    expect(startsWith).toEqual(["DWGT"]);
    expect(withWords.length).toBeGreaterThan(1);
    expect(page.data[0]?.ticker).toBe("DWGT");
    expect(new Set(tickersOf(page))).toEqual(new Set(withWords.map(([, , t]) => t)));
  });

  test("demo: every record has the spec's fields and the source's name, exchange, cik and FIGIs", async () => {
    const page = await search(demo, demoKey, "query=demo&per_page=100");
    const src = demoSources();
    expect(page.pagination.total).toBe(src.tickers.length);
    for (const row of page.data) {
      expect(Object.keys(row).sort()).toEqual(
        [
          "name",
          "ticker",
          "exchange",
          "security_type",
          "currency_code",
          "cik",
          "composite_figi",
          "share_class_figi",
        ].sort(),
      );
      const listed = src.tickers.find(([, , t]) => t === row.ticker);
      if (!listed) throw new Error(`${row.ticker} is not in the source ticker list`);
      const figi = src.figi(listed[2]);
      expect(row).toEqual({
        name: listed[1],
        ticker: listed[2],
        exchange: listed[3],
        security_type: figi.securityType,
        currency_code: "USD",
        cik: String(listed[0]).padStart(10, "0"),
        composite_figi: figi.compositeFIGI,
        share_class_figi: figi.shareClassFIGI,
      });
    }
  });
});

describe("/securities/search pagination and parameters", () => {
  test("default per_page is 10; pages partition the full list; past the end is empty", async () => {
    const total = demoSources().tickers.length;
    const all = await search(demo, demoKey, "query=demo&per_page=100");
    expect(all.data.length).toBe(total);
    const first = await search(demo, demoKey, "query=demo");
    expect(first.pagination).toEqual({ page: 1, per_page: 10, total, total_pages: Math.ceil(total / 10) });
    expect(first.data).toEqual(all.data.slice(0, 10));
    const pages: Json[] = [];
    const totalPages = Math.ceil(total / 7);
    for (let p = 1; p <= totalPages; p++) {
      const page = await search(demo, demoKey, `query=demo&per_page=7&page=${p}`);
      expect(page.pagination).toEqual({ page: p, per_page: 7, total, total_pages: totalPages });
      pages.push(...page.data);
    }
    expect(pages).toEqual(all.data);
    const past = await search(demo, demoKey, `query=demo&per_page=7&page=${totalPages + 1}`);
    expect(past.data).toEqual([]);
    expect(past.pagination.total).toBe(total);
  });

  test("per_page is bounded by 100; query is required; page and per_page are positive integers", async () => {
    const { key, userId } = demo.newKey(3);
    const cases: [string, string][] = [
      ["query=demo&per_page=101", "per_page"],
      ["query=demo&per_page=0", "per_page"],
      ["query=demo&per_page=-5", "per_page"],
      ["query=demo&per_page=ten", "per_page"],
      ["query=demo&page=0", "page"],
      ["query=demo&page=1.5", "page"],
      ["", "query"],
      ["query=", "query"],
      [`query=${"x".repeat(101)}`, "query"],
    ];
    for (const [query, name] of cases) {
      const res = await demo.get(`/securities/search?${query}`, key);
      await expectProblem(res, 400, { code: "invalid_parameter", name, in: "query" });
      expect(chargedBy(res), query).toBe(0);
    }
    expect(demo.accounts.getBalance(userId)).toBe(3);
    const max = await demo.get("/securities/search?query=demo&per_page=100", key);
    expect(max.status).toBe(200);
    expect(chargedBy(max)).toBe(1);
  });

  test("a query of only blanks is a 400 naming query, not a match of every security", async () => {
    const { key } = demo.newKey(3);
    await expectProblem(await demo.get("/securities/search?query=%20%20", key), 400, { name: "query" });
  });
});
