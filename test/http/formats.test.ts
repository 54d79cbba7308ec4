/**
 * Issue 21, first parts: every answer names its snapshot (`X-Snapshot-Id`, `ETag`), a client
 * whose copy is current gets a free 304, and the tabular endpoints answer `format=csv` with the
 * JSON rows as RFC 4180 text (read back here with the importers' CSV reader).
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cell, toCsv } from "../../src/http/csv.ts";
import { readCsv } from "../../src/ingest/sources/csv.ts";
import { FIXTURES } from "../helpers/env.ts";
import { demoDataDir, serverOverImport, startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let snapshotId = "";

beforeAll(async () => {
  server = await startTestServer(await demoDataDir());
  const health = (await (await server.get("/health")).json()) as { snapshot_id: string };
  snapshotId = health.snapshot_id;
}, 180_000);
afterAll(() => server.stop());

/** The user's ledger rows, read from the accounts file as it is on disk. */
function ledgerRows(userId: string): number {
  const db = new Database(join(server.dataDir, "accounts.db"), { readonly: true });
  try {
    return (db.query("SELECT count(*) AS n FROM ledger WHERE user_id = ?").get(userId) as { n: number }).n;
  } finally {
    db.close();
  }
}

type Row = Record<string, unknown>;

/** Each tabular endpoint with a call that has rows, and where its JSON rows are. */
const TABULAR: { path: string; rows: (body: never) => Row[] }[] = [
  { path: "/stocks/DWGT/price?start_date=2024-01-01&end_date=2024-03-31", rows: (b: Row[]) => b },
  {
    path: "/stocks/DWGT/income-statement?period_type=quarterly&limit=8",
    rows: (b: { periods: Row[] }) => b.periods,
  },
  { path: "/stocks/DWGT/balance-sheet", rows: (b: { periods: Row[] }) => b.periods },
  { path: "/stocks/DWGT/cash-flow-statement?period_type=ttm", rows: (b: { periods: Row[] }) => b.periods },
  {
    path: "/securities/DWGT/valuation/history",
    rows: (b: { valuation_history: Row[] }) => b.valuation_history,
  },
  { path: "/stocks/DWGT/valuation-history", rows: (b: { points: Row[] }) => b.points },
  { path: "/sec_filings?ticker=DWGT&per_page=50", rows: (b: { data: Row[] }) => b.data },
  { path: "/stocks/DWGT/secfiling?form_type=10-Q", rows: (b: { filings: Row[] }) => b.filings },
  { path: "/securities/DWGT/insider_tradings", rows: (b: { insider_tradings: Row[] }) => b.insider_tradings },
  { path: "/calendar/earnings?ticker=DWGT", rows: (b: Row[]) => b },
  { path: "/securities/search?query=d&per_page=100", rows: (b: { data: Row[] }) => b.data },
  { path: "/screener?where=market_cap%3E0&sort=-roe&fields=*", rows: (b: { data: Row[] }) => b.data },
];

const withFormat = (path: string, format: string) =>
  `${path}${path.includes("?") ? "&" : "?"}format=${format}`;

/** A JSON row as CSV columns: an object-valued field's fields in its place, under their own names. */
function flatten(row: Row, into: Row = {}): Row {
  for (const [name, value] of Object.entries(row)) {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) flatten(value as Row, into);
    else into[name] = value;
  }
  return into;
}

/** True when a CSV cell reads back as the JSON value (the rules of docs/api.md, "CSV"). */
function sameValue(text: string, value: unknown): boolean {
  if (value === null) return text === "";
  if (typeof value === "number") return text !== "" && Number(text) === value && !text.includes(",");
  if (typeof value === "boolean") return text === String(value);
  if (typeof value === "string")
    return text === value || (/^[=+\-@\t\r]/.test(value) && text === `'${value}`);
  return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
}

describe("the snapshot an answer came from", () => {
  test("X-Snapshot-Id names it and ETag is the same for GET, HEAD and another key", async () => {
    const a = server.newKey(10);
    const b = server.newKey(10);
    const path = "/stocks/DWGT/price?start_date=2024-01-01&end_date=2024-01-31";
    const get = await server.get(path, a.key);
    const head = await server.get(path, b.key, { method: "HEAD" });
    const reordered = await server.get("/stocks/DWGT/price?end_date=2024-01-31&start_date=2024-01-01", a.key);
    const other = await server.get("/stocks/DWGT/price?start_date=2024-01-01&end_date=2024-02-29", a.key);
    for (const res of [get, head, reordered, other]) {
      expect(res.status).toBe(200);
      expect(res.headers.get("x-snapshot-id"), "the active snapshot's id").toBe(snapshotId);
    }
    const tag = get.headers.get("etag");
    expect(tag, "a strong entity tag").toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(head.headers.get("etag"), "HEAD and GET agree").toBe(tag);
    expect(reordered.headers.get("etag"), "the query's order does not matter").toBe(tag);
    expect(other.headers.get("etag"), "another request, another tag").not.toBe(tag);
  });

  test("a routed (heavy) endpoint, a 404 and /health name the snapshot too; /account carries no ETag", async () => {
    const { key } = server.newKey(10);
    const heavy = await server.get("/stocks/DWGT/income-statement", key);
    expect(heavy.status).toBe(200);
    expect(heavy.headers.get("etag")).toMatch(/^"/);
    const missing = await server.get("/stocks/NOSUCH/profile", key);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-snapshot-id")).toBe(snapshotId);
    expect(missing.headers.get("etag"), "only a 2xx has a tag").toBeNull();
    expect((await server.get("/health")).headers.get("x-snapshot-id")).toBe(snapshotId);
    const account = await server.get("/account", key);
    expect(account.status).toBe(200);
    expect(account.headers.get("etag"), "the balance is not the snapshot's").toBeNull();
  });

  test("If-None-Match with the tag gets a 304 without a body, free: balance and ledger unchanged", async () => {
    const { key, userId } = server.newKey(10);
    for (const path of [
      "/stocks/DWGT/profile",
      "/stocks/DWGT/income-statement",
      "/stocks/DWGT/price?start_date=2024-01-01&end_date=2024-01-31&format=csv",
    ]) {
      const first = await server.get(path, key);
      expect(first.status, path).toBe(200);
      const tag = first.headers.get("etag") as string;
      const rows = ledgerRows(userId);
      const balance = server.accounts.getBalance(userId);
      for (const [method, field] of [
        ["GET", tag],
        ["HEAD", tag],
        ["GET", `W/${tag}`],
        ["GET", `"nope", ${tag}`],
      ] as const) {
        const res = await server.get(path, key, { method, headers: { "if-none-match": field } });
        expect(res.status, `${method} ${path} If-None-Match: ${field}`).toBe(304);
        expect(await res.text(), "no body").toBe("");
        expect(res.headers.get("etag")).toBe(tag);
        expect(res.headers.get("x-snapshot-id")).toBe(snapshotId);
        expect(res.headers.get("x-credits-charged")).toBe("0");
      }
      expect(ledgerRows(userId), "no ledger row for a 304").toBe(rows);
      expect(server.accounts.getBalance(userId)).toBe(balance);
    }
    const stale = await server.get("/stocks/DWGT/profile", key, { headers: { "if-none-match": '"old"' } });
    expect(stale.status, "another tag gets the answer, charged").toBe(200);
    expect(stale.headers.get("x-credits-charged")).toBe("1");
  });

  test("a 304 needs no credits at all", async () => {
    const { key: rich } = server.newKey(5);
    const tag = (await server.get("/stocks/DWGT/growth", rich)).headers.get("etag") as string;
    const { key, userId } = server.newKey(0);
    const res = await server.get("/stocks/DWGT/growth", key, { headers: { "if-none-match": tag } });
    expect(res.status).toBe(304);
    expect(ledgerRows(userId)).toBe(0);
  });

  test("an idempotent call is replayed as before (its stored answer, not charged again)", async () => {
    const { key, userId } = server.newKey(5);
    const headers = { "idempotency-key": "formats-replay-1" };
    const first = await server.get("/stocks/DWGT/balance-sheet?format=csv", key, { headers });
    const again = await server.get("/stocks/DWGT/balance-sheet?format=csv", key, { headers });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(await again.text()).toBe(await first.text());
    expect(server.accounts.getBalance(userId)).toBe(4);
    expect(ledgerRows(userId)).toBe(2);
  });
});

/**
 * Asks for `path` as JSON and as CSV with a fresh key, and checks that the CSV is the JSON rows
 * read back (header, row count, every cell) and costs what the JSON costs.
 */
async function expectCsvOfJson(on: TestServer, path: string, rows: (body: never) => Row[]): Promise<number> {
  const { key, userId } = on.newKey(10);
  const json = await on.get(path, key);
  expect(json.status, path).toBe(200);
  const expected = rows((await json.json()) as never).map((row) => flatten(row));
  const res = await on.get(withFormat(path, "csv"), key);
  expect(res.status, path).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  const price = Number(json.headers.get("x-credits-charged"));
  expect(res.headers.get("x-credits-charged"), "priced like JSON").toBe(String(price));
  expect(on.accounts.getBalance(userId)).toBe(10 - 2 * price);
  const text = await res.text();
  expect(text.endsWith("\r\n"), "CRLF line ends").toBe(true);
  const table = readCsv(text, path);
  if (expected[0]) expect(table.header, "the JSON row's fields, in order").toEqual(Object.keys(expected[0]));
  expect(table.records.length, path).toBe(expected.length);
  table.records.forEach((record, i) => {
    const row = expected[i] as Row;
    expect(record.cells.length).toBe(table.header.length);
    table.header.forEach((name, j) => {
      const [value, cell] = [row[name], record.cells[j] as string];
      if (!sameValue(cell, value))
        throw new Error(`${path} row ${i} ${name}: ${JSON.stringify(cell)} for ${JSON.stringify(value)}`);
    });
  });
  return expected.length;
}

describe("format=csv", () => {
  for (const { path, rows } of TABULAR) {
    test(`${path}: the JSON rows, field for field, priced like JSON`, async () => {
      expect(await expectCsvOfJson(server, path, rows), "the call has rows").toBeGreaterThan(0);
    });
  }

  test("an empty answer is the header row alone; HEAD agrees with GET", async () => {
    const { key } = server.newKey(10);
    const res = await server.get(
      "/stocks/DWGT/price?start_date=1990-01-01&end_date=1990-12-31&format=csv",
      key,
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("date,open,close,high,low,volume\r\n");
    const head = await server.get(
      "/stocks/DWGT/price?start_date=1990-01-01&end_date=1990-12-31&format=csv",
      key,
      {
        method: "HEAD",
      },
    );
    expect(head.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(head.headers.get("content-length")).toBe("33");
  });

  test("format other than json or csv is a 400 naming it, not charged; json is the default", async () => {
    const { key, userId } = server.newKey(10);
    for (const path of [
      "/stocks/DWGT/price?start_date=2024-01-01&end_date=2024-01-31&format=xml",
      "/stocks/DWGT/income-statement?format=CSV",
      "/sec_filings?format=",
      "/securities/search?query=d&format=parquet",
    ]) {
      const res = await server.get(path, key);
      expect(res.status, path).toBe(400);
      const body = (await res.json()) as { errors: { name: string }[] };
      expect(
        body.errors.map((e) => e.name),
        path,
      ).toEqual(["format"]);
    }
    const json = await server.get("/calendar/earnings?ticker=DWGT&format=json", key);
    expect(json.headers.get("content-type")).toStartWith("application/json");
    expect(server.accounts.getBalance(userId)).toBe(9);
  });
});

/** Real filers' rows: names, titles and descriptions as the SEC and the price files write them. */
const REAL: { path: string; rows: (body: never) => Row[] }[] = [
  { path: "/stocks/AAPL/price?start_date=1990-01-01&end_date=2025-12-31", rows: (b: Row[]) => b },
  {
    path: "/stocks/AAPL/income-statement?period_type=quarterly&limit=100",
    rows: (b: { periods: Row[] }) => b.periods,
  },
  { path: "/stocks/GOOGL/cash-flow-statement?limit=100", rows: (b: { periods: Row[] }) => b.periods },
  {
    path: "/stocks/TSLA/balance-sheet?period_type=ttm&limit=100",
    rows: (b: { periods: Row[] }) => b.periods,
  },
  {
    path: "/securities/NVDA/valuation/history",
    rows: (b: { valuation_history: Row[] }) => b.valuation_history,
  },
  { path: "/stocks/NVDA/valuation-history", rows: (b: { points: Row[] }) => b.points },
  { path: "/sec_filings?ticker=AAPL&per_page=1000", rows: (b: { data: Row[] }) => b.data },
  { path: "/stocks/AAPL/secfiling?form_type=4&limit=1000", rows: (b: { filings: Row[] }) => b.filings },
  { path: "/securities/AAPL/insider_tradings", rows: (b: { insider_tradings: Row[] }) => b.insider_tradings },
  { path: "/calendar/earnings?start=1900-01-01&per_page=10000", rows: (b: Row[]) => b },
  { path: "/securities/search?query=bank&per_page=100", rows: (b: { data: Row[] }) => b.data },
];

describe.skipIf(!FIXTURES)("format=csv over the fixtures' import", () => {
  const fixtures = serverOverImport(FIXTURES ?? "");
  for (const { path, rows } of REAL) {
    test(`${path}: the JSON rows read back`, async () => {
      expect(await expectCsvOfJson(fixtures.server, path, rows), "the call has rows").toBeGreaterThan(0);
    });
  }
});

test("the OpenAPI document lists format on exactly the tabular operations", async () => {
  const doc = (await (await server.get("/openapi.json")).json()) as {
    paths: Record<string, { get: { parameters?: { name: string }[]; description: string } }>;
  };
  const withFormat = Object.entries(doc.paths)
    .filter(([, op]) => op.get.parameters?.some((p) => p.name === "format"))
    .map(([path, op]) => {
      expect(op.get.description, path).toContain("format=csv");
      return path;
    });
  expect(withFormat.sort()).toEqual(
    [
      "/calendar/earnings",
      "/screener",
      "/sec_filings",
      "/securities/search",
      "/securities/{ticker}/insider_tradings",
      "/securities/{ticker}/valuation/history",
      "/stocks/{symbol}/balance-sheet",
      "/stocks/{symbol}/cash-flow-statement",
      "/stocks/{symbol}/income-statement",
      "/stocks/{symbol}/price",
      "/stocks/{symbol}/secfiling",
      "/stocks/{symbol}/valuation-history",
    ].sort(),
  );
});

describe("CSV cells", () => {
  test("a text a spreadsheet would run as a formula is quoted out; numbers and quotes are kept", () => {
    expect(cell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(cell("+1 call")).toBe("'+1 call");
    expect(cell("-sum")).toBe("'-sum");
    expect(cell("@cmd")).toBe("'@cmd");
    expect(cell("\tx")).toBe("'\tx");
    expect(cell("\rx")).toBe(`"'\rx"`);
    expect(cell("-12.5")).toBe("-12.5");
    expect(cell(-12.5)).toBe("-12.5");
    expect(cell(1234567.25)).toBe("1234567.25");
    expect(cell(null)).toBe("");
    expect(cell("a,b")).toBe('"a,b"');
    expect(cell(["x", "y"])).toBe('"[""x"",""y""]"');
  });

  test("rows with hostile texts read back as written, the formulas prefixed", async () => {
    const { t } = await import("elysia");
    const schema = t.Object({ a: t.String(), b: t.Object({ c: t.Number(), d: t.String() }) });
    const rows = [
      { a: "=1+2", b: { c: 1.5, d: 'say "hi",\r\nbye' } },
      { a: "@SUM(A1)", b: { c: -3, d: "-" } },
    ];
    const table = readCsv(toCsv(schema, rows), "hostile");
    expect(table.header).toEqual(["a", "c", "d"]);
    expect(table.records.map((r) => r.cells)).toEqual([
      ["'=1+2", "1.5", 'say "hi",\r\nbye'],
      ["'@SUM(A1)", "-3", "'-"],
    ]);
  });
});
