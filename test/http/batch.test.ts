/**
 * Many symbols per call (docs/api.md, "Batch"), against the running server over the demo
 * snapshot: each symbol's entry is byte for byte the single-symbol endpoint's body; a symbol
 * the single call would refuse is listed with that error and costs nothing; a bad symbol list
 * is a 400 naming `symbols`; billing is exact per symbol found, under concurrency too; and
 * `metadata.snapshot_id` is the answer's X-Snapshot-Id wherever a body has metadata.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { MAX_BATCH_SYMBOLS } from "../../src/http/routes/batch.ts";
import { expectLedgerConsistent, expectNothingHeld, usageRows } from "../helpers/ledger.ts";
import { useDemoServer } from "../helpers/server.ts";

const server = useDemoServer();

/** Each batch endpoint and the single-symbol path it repeats. */
const SINGLE: Record<string, (symbol: string) => string> = {
  profile: (s) => `/stocks/${s}/profile`,
  quote: (s) => `/securities/${s}/quote`,
  valuation: (s) => `/securities/${s}/valuation`,
  "fundamental-metrics": (s) => `/stocks/${s}/fundamental-metrics`,
  growth: (s) => `/stocks/${s}/growth`,
  "capital-allocation": (s) => `/stocks/${s}/capital-allocation`,
  dividend: (s) => `/stocks/${s}/dividend`,
  earnings: (s) => `/stocks/${s}/earnings`,
  estimates: (s) => `/stocks/${s}/estimates`,
  "owner-earnings": (s) => `/stocks/${s}/owner-earnings`,
};

interface BatchBody {
  metadata: { snapshot_id: string; endpoint: string; requested: number; found: number };
  data: Record<string, unknown>;
  errors: { symbol: string; status: number; code: string; detail: string }[];
}

let tickers: string[];

beforeAll(async () => {
  const rows = await server.snapshots
    .current()
    ?.all<{ ticker: string }>("SELECT ticker FROM securities ORDER BY ticker");
  tickers = (rows ?? []).map((r) => r.ticker);
});

/** The raw JSON text of each `data` member of a batch body, by symbol (to compare bytes, not values). */
function rawEntries(text: string, symbols: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const parsed = JSON.parse(text) as BatchBody;
  for (const symbol of symbols) {
    if (!(symbol in parsed.data)) continue;
    const marker = `${JSON.stringify(symbol)}:`;
    const start = text.indexOf(marker, text.indexOf('"data":{')) + marker.length;
    out[symbol] = JSON.stringify(parsed.data[symbol]);
    // The entry's own text: as long as its value re-serialised (JSON.stringify keeps key order).
    expect(text.slice(start, start + out[symbol].length)).toBe(out[symbol]);
  }
  return out;
}

describe("each entry is the single endpoint's body", () => {
  for (const [name, single] of Object.entries(SINGLE)) {
    test(`/stocks/batch/${name}: every demo symbol and an unknown one`, async () => {
      const { key } = server.newKey(10_000);
      const symbols = [...tickers, "NOSUCH"];
      const res = await server.get(`/stocks/batch/${name}?symbols=${symbols.join(",")}`, key);
      expect(res.status).toBe(200);
      const text = await res.text();
      const body = JSON.parse(text) as BatchBody;
      const entries = rawEntries(text, symbols);
      let found = 0;
      for (const symbol of symbols) {
        const one = await server.get(single(symbol), key);
        const oneText = await one.text();
        if (one.status === 200) {
          found++;
          expect(entries[symbol], `${name} ${symbol}`).toBe(oneText);
        } else {
          expect(symbol in body.data).toBe(false);
          const error = body.errors.find((e) => e.symbol === symbol);
          const problem = JSON.parse(oneText) as { status: number; code: string; detail: string };
          expect(error, `${name} ${symbol}`).toEqual({
            symbol,
            status: problem.status,
            code: problem.code,
            detail: problem.detail,
          });
        }
      }
      expect(found).toBeGreaterThan(0);
      expect(body.metadata).toEqual({
        snapshot_id: res.headers.get("x-snapshot-id") as string,
        endpoint: name,
        requested: symbols.length,
        found,
      });
      expect(Object.keys(body.data)).toEqual(symbols.filter((s) => s in body.data));
      expect(res.headers.get("x-credits-charged")).toBe(String(found));
    });
  }

  test("symbols are matched in any spelling and keyed as the call wrote them", async () => {
    const { key } = server.newKey(10);
    const res = await server.get("/stocks/batch/profile?symbols=dwgt,%20dhld.a", key);
    const body = (await res.json()) as BatchBody;
    expect(Object.keys(body.data)).toEqual(["dwgt", "dhld.a"]);
    expect(res.headers.get("x-credits-charged")).toBe("2");
  });
});

describe("the symbol list", () => {
  test("empty, too long, repeated or malformed: a 400 naming symbols, at no cost", async () => {
    const { key, userId } = server.newKey(10);
    const many = Array.from({ length: MAX_BATCH_SYMBOLS + 1 }, (_, i) => `T${i}`).join(",");
    for (const query of [
      "",
      "?symbols=",
      `?symbols=${many}`,
      "?symbols=DWGT,dwgt",
      "?symbols=BRK.B,brk-b",
      "?symbols=DWGT,,DBNK",
      "?symbols=DWGT,",
      "?symbols=..%2Fetc",
      "?symbols=A%20B",
      "?symbols=ABCDEFGHIJKL",
    ]) {
      const res = await server.get(`/stocks/batch/quote${query}`, key);
      expect(res.status, query).toBe(400);
      const problem = (await res.json()) as { errors: { name: string }[] };
      expect(problem.errors[0]?.name, query).toBe("symbols");
      expect(res.headers.get("x-credits-charged"), query).toBe("0");
    }
    expect(usageRows(server, userId).rows).toBe(0);
    expectLedgerConsistent(server, userId, 10);
  });

  test("a batch path is never taken for a symbol named batch", async () => {
    const { key } = server.newKey(10);
    expect((await server.get("/stocks/batch/profile?symbols=DWGT", key)).status).toBe(200);
    expect((await server.get("/stocks/BATCH/profile", key)).status).toBe(404);
  });
});

describe("billing", () => {
  test("per symbol found: unknown symbols cost nothing, a call of only unknown ones is a free 200", async () => {
    const { key, userId } = server.newKey(10);
    const res = await server.get("/stocks/batch/valuation?symbols=DWGT,NOSUCH,DBNK,ZZZZ", key);
    const body = (await res.json()) as BatchBody;
    expect(res.headers.get("x-credits-charged")).toBe(String(body.metadata.found));
    expect(body.errors.map((e) => [e.symbol, e.status])).toEqual(
      expect.arrayContaining([
        ["NOSUCH", 404],
        ["ZZZZ", 404],
      ]),
    );
    const none = await server.get("/stocks/batch/valuation?symbols=NOSUCH,ZZZZ", key);
    expect([none.status, none.headers.get("x-credits-charged")]).toEqual([200, "0"]);
    expectLedgerConsistent(server, userId, 10 - body.metadata.found);
    expect(usageRows(server, userId).rows).toBe(1);
  });

  test("a balance short of the symbols found is a 402 that costs nothing", async () => {
    const { key, userId } = server.newKey(2);
    const res = await server.get("/stocks/batch/profile?symbols=DWGT,DBNK,DCLD", key);
    expect(res.status).toBe(402);
    expect(((await res.json()) as { detail: string }).detail).toContain("costs 3 credits");
    expectLedgerConsistent(server, userId, 2);
  });

  test("40 concurrent calls of 3 symbols on a balance of 10: exactly 3 succeed, each charged 3", async () => {
    const { key, userId } = server.newKey(10);
    const responses = await Promise.all(
      Array.from({ length: 40 }, () =>
        server.get("/stocks/batch/profile?symbols=DWGT,DBNK,DCLD,NOSUCH", key),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBe(3);
    expect(statuses.filter((s) => s === 402).length).toBe(37);
    for (const r of responses.filter((r) => r.status === 200))
      expect(r.headers.get("x-credits-charged")).toBe("3");
    expectLedgerConsistent(server, userId, 1);
    expect(server.accounts.usageSince(userId, "1970-01-01")).toEqual([
      { endpoint: "batch", calls: 3, credits: 9 },
    ]);
    await expectNothingHeld(server, key);
  });
});

test("metadata.snapshot_id is the answer's X-Snapshot-Id wherever a body has metadata", async () => {
  const { key } = server.newKey(100);
  for (const path of [
    ...Object.values(SINGLE).map((single) => single("DWGT")),
    "/stocks/DWGT/valuation-history",
    "/stocks/batch/growth?symbols=DWGT",
    "/exports",
  ]) {
    const res = await server.get(path, key);
    expect(res.status, path).toBe(200);
    const body = (await res.json()) as { metadata?: { snapshot_id?: string } };
    if (!body.metadata) continue;
    expect(body.metadata.snapshot_id, path).toBe(res.headers.get("x-snapshot-id") as string);
  }
  // The ETag and its free 304 are unchanged by it.
  const first = await server.get("/stocks/DWGT/growth", key);
  const again = await server.get("/stocks/DWGT/growth", key, {
    headers: { "if-none-match": first.headers.get("etag") as string },
  });
  expect([again.status, again.headers.get("x-credits-charged")]).toEqual([304, "0"]);
});
