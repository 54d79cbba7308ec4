/**
 * The typed analytic tables (src/snapshot/typed-tables.ts) hold exactly what the JSON endpoints
 * serve: for securities of the demo and of the real fixtures, every column of
 * `security_figures` (read through /screener) equals the field of the profile or document
 * endpoint it names, a document the endpoint does not have (404) is all NULL, every scalar field
 * of a served document has its column, and the history tables (read with DuckDB from the
 * snapshot's Parquet files) equal the two monthly series row for row.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Db, openDuckDb } from "../../src/snapshot/duckdb.ts";
import { FIGURE_COLUMNS, HISTORY_TABLES, SECURITY_COLUMNS } from "../../src/snapshot/typed-tables.ts";
import { FIXTURES } from "../helpers/env.ts";
import type { Json } from "../helpers/raw-sources.ts";
import { serverOverImport, type TestServer, useDemoServer } from "../helpers/server.ts";

/** Each figure document's endpoint, as a client calls it. */
const DOCUMENT_URLS: Record<string, (symbol: string) => string> = {
  valuation: (s) => `/securities/${s}/valuation`,
  metrics: (s) => `/stocks/${s}/fundamental-metrics`,
  growth: (s) => `/stocks/${s}/growth`,
  capital_allocation: (s) => `/stocks/${s}/capital-allocation`,
  owner_earnings: (s) => `/stocks/${s}/owner-earnings`,
  dividend: (s) => `/stocks/${s}/dividend`,
};

/** The history tables' endpoints and where their rows are. */
const HISTORY_URLS: Record<keyof typeof HISTORY_TABLES, (symbol: string) => string> = {
  valuation_history: (s) => `/securities/${s}/valuation/history`,
  valuation_points: (s) => `/stocks/${s}/valuation-history`,
};

type Row = Record<string, unknown>;
type Get = (path: string) => Promise<{ status: number; body: Json }>;

const valueAt = (body: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>((node, key) => (node as Row | undefined)?.[key], body);

/**
 * Paths of a document's scalar fields. The typed tables leave out `symbol` and `null_reasons`;
 * `snapshot_id` names the answer's snapshot, added when it is served.
 */
function scalarPaths(node: Row, path: string[] = []): string[] {
  return Object.entries(node).flatMap(([key, value]) => {
    if (["symbol", "null_reasons", "snapshot_id"].includes(key) || Array.isArray(value)) return [];
    if (value !== null && typeof value === "object") return scalarPaths(value as Row, [...path, key]);
    return [[...path, key].join(".")];
  });
}

/** The security_figures row of a symbol, every field, through the screener. */
async function figuresOf(get: Get, symbol: string): Promise<Row> {
  const where = encodeURIComponent(`symbol = '${symbol}'`);
  const { status, body } = await get(`/screener?fields=*&where=${where}`);
  expect(status).toBe(200);
  const rows = (body as { data: Row[] }).data;
  expect(rows.length, `one row of ${symbol}`).toBe(1);
  return rows[0] as Row;
}

/** Asserts every typed column of `symbol` against the endpoints; returns how many documents it has. */
async function expectFiguresServed(get: Get, symbol: string): Promise<number> {
  const row = await figuresOf(get, symbol);
  const profile = await get(`/stocks/${symbol}/profile`);
  expect(profile.status).toBe(200);
  for (const column of SECURITY_COLUMNS)
    expect(row[column.name], `${symbol} ${column.name}`).toEqual(valueAt(profile.body, column.profile));
  let documents = 0;
  for (const [kind, url] of Object.entries(DOCUMENT_URLS)) {
    const { status, body } = await get(url(symbol));
    expect([200, 404], `${symbol} ${kind}`).toContain(status);
    const columns = FIGURE_COLUMNS.filter((c) => c.kind === kind);
    for (const column of columns) {
      const served = status === 200 ? valueAt(body, column.path) : null;
      expect(row[column.name], `${symbol} ${column.name} (${kind} ${column.path.join(".")})`).toEqual(served);
    }
    if (status !== 200) continue;
    documents++;
    expect(columns.map((c) => c.path.join(".")).sort(), `${kind}: a column per field`).toEqual(
      scalarPaths(body as Row).sort(),
    );
  }
  return documents;
}

/** Asserts the history tables' rows of `symbols` against the monthly series endpoints. */
async function expectHistoriesServed(get: Get, dataDir: string, symbols: readonly string[]): Promise<number> {
  const { body: health } = await get("/health");
  const dir = join(dataDir, "snapshots", (health as { snapshot_id: string }).snapshot_id);
  const instance = await openDuckDb();
  const db = await Db.connect(instance);
  let compared = 0;
  try {
    for (const [table, definition] of Object.entries(HISTORY_TABLES)) {
      const file = join(dir, `${table}.parquet`).replaceAll("'", "''");
      for (const symbol of symbols) {
        const rows = await db.all(
          `SELECT * EXCLUDE (security_id, symbol) FROM read_parquet('${file}') WHERE symbol = $symbol ORDER BY date`,
          { symbol },
        );
        const { status, body } = await get(HISTORY_URLS[table as keyof typeof HISTORY_TABLES](symbol));
        const served = status === 200 ? ((body as Row)[definition.rows] as Row[]) : [];
        expect(rows, `${table} of ${symbol}`).toEqual(served);
        compared += served.length;
      }
    }
  } finally {
    db.close();
    instance.closeSync();
  }
  return compared;
}

/** A GET that answers status and JSON body. */
function getter(server: TestServer, key: () => string): Get {
  return async (path) => {
    const res = await server.get(path, key());
    return { status: res.status, body: (await res.json()) as Json };
  };
}

/** Symbols of the screener's answer to `where`. */
async function symbolsWhere(get: Get, where: string): Promise<string[]> {
  const { body } = await get(`/screener?fields=symbol&per_page=500&where=${encodeURIComponent(where)}`);
  return (body as { data: { symbol: string }[] }).data.map((r) => r.symbol);
}

describe("demo: the typed tables equal the JSON endpoints", () => {
  const server = useDemoServer();
  let key = "";
  const get = getter(server, () => {
    key ||= server.newKey(1_000_000).key;
    return key;
  });

  test("every security's figures, column by column", async () => {
    const symbols = await symbolsWhere(get, "symbol is not null");
    expect(symbols.length).toBeGreaterThan(20);
    let documents = 0;
    for (const symbol of symbols) documents += await expectFiguresServed(get, symbol);
    expect(documents, "documents compared").toBeGreaterThan(symbols.length * 3);
  }, 120_000);

  test("the history tables, row by row", async () => {
    const symbols = (await symbolsWhere(get, "symbol is not null")).slice(0, 8);
    expect(await expectHistoriesServed(get, server.dataDir, symbols)).toBeGreaterThan(500);
  }, 60_000);
});

describe.skipIf(!FIXTURES)("real fixtures: the typed tables equal the JSON endpoints", () => {
  const fixture = serverOverImport(FIXTURES ?? "");
  const get = getter(fixture.server, () => fixture.key);

  test("securities with a valuation, with only statements, and with neither", async () => {
    const valued = await symbolsWhere(get, "market_cap is not null");
    const statementsOnly = await symbolsWhere(get, "market_cap is null and metrics_as_of_date is not null");
    const bare = (
      await symbolsWhere(get, "metrics_as_of_date is null and dividend_as_of_date is null")
    ).slice(0, 3);
    expect(valued.length, "securities with a valuation").toBeGreaterThanOrEqual(5);
    expect(bare.length).toBe(3);
    expect(statementsOnly.length, "securities with statements and no valuation").toBeGreaterThan(0);
    for (const symbol of [...valued, ...statementsOnly.slice(0, 5), ...bare])
      await expectFiguresServed(get, symbol);
  }, 300_000);

  test("the history tables, row by row", async () => {
    const valued = await symbolsWhere(get, "market_cap is not null");
    expect(await expectHistoriesServed(get, fixture.server.dataDir, valued.slice(0, 10))).toBeGreaterThan(
      500,
    );
  }, 120_000);
});
