/**
 * GET /screener over the demo snapshot: the answer to random expressions, sorts and pages
 * (fast-check, seeded) equals filtering and sorting the security_figures rows in TypeScript
 * (read with DuckDB from the snapshot's Parquet file, which test/http/typed-tables.test.ts
 * checks against the JSON endpoints); hostile and malformed parameters are 400s naming the
 * parameter, free; the price, CSV, ETag and snapshot pinning.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { PRICING } from "../../src/http/pricing.ts";
import { readCsv } from "../../src/ingest/sources/csv.ts";
import { SCREENER_COLUMNS } from "../../src/query/screener.ts";
import type { Comparator, Expression } from "../../src/query/screener-expression.ts";
import { MAX_DEPTH, MAX_TERMS } from "../../src/query/screener-expression.ts";
import { Db, openDuckDb } from "../../src/snapshot/duckdb.ts";
import { chargedBy, expectProblem } from "../helpers/responses.ts";
import { testSeed } from "../helpers/seed.ts";
import { demoDataDir, startTestServer, type TestServer } from "../helpers/server.ts";

type Row = Record<string, unknown>;

let server: TestServer;
let key = "";
let snapshotId = "";
/** Every row of security_figures, read from the Parquet file. */
let table: Row[] = [];

beforeAll(async () => {
  server = await startTestServer(await demoDataDir());
  key = server.newKey(10_000_000).key;
  snapshotId = ((await (await server.get("/health")).json()) as { snapshot_id: string }).snapshot_id;
  const file = join(server.dataDir, "snapshots", snapshotId, "security_figures.parquet");
  const instance = await openDuckDb();
  const db = await Db.connect(instance);
  table = await db.all(`SELECT * FROM read_parquet('${file.replaceAll("'", "''")}')`);
  db.close();
  instance.closeSync();
}, 180_000);
afterAll(() => server.stop());

const screener = (query: Record<string, string>) =>
  server.get(`/screener?${new URLSearchParams(query)}`, key);

async function screenerJson(query: Record<string, string>) {
  const res = await screener(query);
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(200);
  return JSON.parse(text) as {
    fields: string[];
    data: Row[];
    pagination: { total: number; total_pages: number };
  };
}

/** An expression as the grammar writes it, every and/or in parentheses. */
function render(e: Expression): string {
  if (e.type === "and" || e.type === "or") return `(${e.terms.map(render).join(` ${e.type} `)})`;
  if (e.type === "null") return `${e.column} is ${e.negated ? "not " : ""}null`;
  const value = typeof e.value === "number" ? String(e.value) : `'${e.value.replaceAll("'", "''")}'`;
  return `${e.column} ${e.comparator} ${value}`;
}

function compare(a: unknown, comparator: Comparator, b: number | string): boolean {
  if (a === null || a === undefined) return false;
  const [x, y] = [a as number | string, b];
  if (comparator === "<") return x < y;
  if (comparator === "<=") return x <= y;
  if (comparator === ">") return x > y;
  if (comparator === ">=") return x >= y;
  if (comparator === "=") return x === y;
  return x !== y;
}

/** The expression evaluated on a row in TypeScript: a comparison with a null is false. */
function matches(row: Row, e: Expression): boolean {
  if (e.type === "and") return e.terms.every((t) => matches(row, t));
  if (e.type === "or") return e.terms.some((t) => matches(row, t));
  if (e.type === "null") return (row[e.column] === null) !== e.negated;
  return compare(row[e.column], e.comparator, e.value);
}

interface SortKey {
  column: string;
  descending: boolean;
}

/** The screener's order: the keys (nulls last either way), then symbol and security id. */
function ordered(rows: Row[], sort: SortKey[]): Row[] {
  const keys = [
    ...sort,
    { column: "symbol", descending: false },
    { column: "security_id", descending: false },
  ];
  return [...rows].sort((a, b) => {
    for (const { column, descending } of keys) {
      const [x, y] = [a[column] as number | string | null, b[column] as number | string | null];
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * (descending ? -1 : 1);
    }
    return 0;
  });
}

const pick = (row: Row, fields: string[]) => Object.fromEntries(fields.map((f) => [f, row[f]]));

const numericColumns = [...SCREENER_COLUMNS]
  .filter(([, t]) => t === "DOUBLE" || t === "BIGINT")
  .map(([c]) => c);
const textColumns = [...SCREENER_COLUMNS].filter(([, t]) => t === "VARCHAR").map(([c]) => c);
const dateColumns = [...SCREENER_COLUMNS].filter(([, t]) => t === "DATE").map(([c]) => c);
const comparator = fc.constantFrom<Comparator>("<", "<=", ">", ">=", "=", "!=");

/** A value of `column` that some row holds (so that = and the bounds are exercised), or another. */
function heldOr(column: string, other: fc.Arbitrary<number | string>): fc.Arbitrary<number | string> {
  const held = table.map((r) => r[column]).filter((v): v is number | string => v !== null);
  return held.length > 0 ? fc.oneof(fc.constantFrom(...held), other) : other;
}

function comparison(): fc.Arbitrary<Expression> {
  const of = (columns: string[], other: fc.Arbitrary<number | string>) =>
    fc.constantFrom(...columns).chain((column) =>
      fc.record({
        type: fc.constant("compare" as const),
        column: fc.constant(column),
        comparator,
        value: heldOr(column, other),
      }),
    );
  return fc.oneof(
    {
      weight: 4,
      arbitrary: of(
        numericColumns,
        fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer()),
      ),
    },
    { weight: 2, arbitrary: of(textColumns, fc.string({ maxLength: 6 })) },
    { weight: 1, arbitrary: of(dateColumns, fc.constantFrom("2020-01-01", "2025-12-31", "2026-11-26")) },
    {
      weight: 1,
      arbitrary: fc.record({
        type: fc.constant("null" as const),
        column: fc.constantFrom(...SCREENER_COLUMNS.keys()),
        negated: fc.boolean(),
      }),
    },
  );
}

const expression: fc.Arbitrary<Expression> = fc.letrec<{ node: Expression }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 4, depthIdentifier: "expression" },
    comparison(),
    fc.record({
      type: fc.constantFrom("and" as const, "or" as const),
      terms: fc.array(tie("node"), { minLength: 2, maxLength: 3 }),
    }),
  ),
})).node;

const sortKeys = fc.array(
  fc.record({ column: fc.constantFrom(...SCREENER_COLUMNS.keys()), descending: fc.boolean() }),
  { maxLength: 3 },
);

describe("answers equal filtering the rows in TypeScript", () => {
  test("the issue's example: roe, P/E and market cap, by FCF yield", async () => {
    const where = "roe>0.15 and pe_ratio<20 and market_cap>1e9";
    const body = await screenerJson({
      where,
      sort: "-fcf_yield",
      fields: "symbol,name,roe,pe_ratio,fcf_yield",
    });
    const expected = ordered(
      table.filter(
        (r) => (r.roe as number) > 0.15 && (r.pe_ratio as number) < 20 && (r.market_cap as number) > 1e9,
      ),
      [{ column: "fcf_yield", descending: true }],
    );
    expect(expected.length, "the demo has such securities").toBeGreaterThan(0);
    expect(expected.length, "and others").toBeLessThan(table.length);
    expect(body.fields, "in the table's order").toEqual(["symbol", "name", "pe_ratio", "fcf_yield", "roe"]);
    expect(body.data).toEqual(expected.map((r) => pick(r, body.fields)));
    expect(body.pagination.total).toBe(expected.length);
  });

  test("random expressions, sorts and pages (fast-check)", async () => {
    const seed = testSeed("screener");
    await fc.assert(
      fc.asyncProperty(
        expression,
        sortKeys,
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 4 }),
        async (where, sort, perPage, page) => {
          const terms = render(where);
          const sortText = sort.map((k) => `${k.descending ? "-" : ""}${k.column}`).join(",");
          const query = { where: terms, per_page: String(perPage), page: String(page), fields: "*" };
          const body = await screenerJson(sortText === "" ? query : { ...query, sort: sortText });
          const all = ordered(
            table.filter((r) => matches(r, where)),
            sort,
          );
          expect(body.pagination.total, terms).toBe(all.length);
          expect(body.data, `${terms} sort=${sortText}`).toEqual(
            all.slice((page - 1) * perPage, page * perPage),
          );
        },
      ),
      { seed, numRuns: 150 },
    );
  }, 120_000);

  test("the fields in table order; by default symbol, name and those where and sort name", async () => {
    const body = await screenerJson({
      where: "roe > 0 and (pe_ratio < 30 or roe > 0.2)",
      sort: "-dps_ttm,roe",
    });
    expect(body.fields).toEqual(["symbol", "name", "pe_ratio", "roe", "dps_ttm"]);
    expect(Object.keys(body.data[0] ?? {})).toEqual(body.fields);
  });

  test("the examples of docs/api.md answer rows", async () => {
    for (const where of [
      "market_cap > 1e10 and (roe > 0.2 or roic > 0.15)",
      "dps_ttm is not null and dividend_payout_ratio < 0.6",
      "exchange = 'NYSE'",
      "country = 'United States'",
      "dividend_frequency = 'quarterly'",
      "metrics_as_of_date >= '2025-01-01'",
    ])
      expect((await screenerJson({ where })).data.length, where).toBeGreaterThan(0);
  });

  test("no where: every security, by symbol", async () => {
    const body = await screenerJson({ per_page: "500", fields: "symbol" });
    expect(body.data).toEqual(ordered(table, []).map((r) => ({ symbol: r.symbol })));
  });
});

describe("refused: 400 naming the parameter, nothing charged", () => {
  const refused: [Record<string, string>, string, RegExp][] = [
    [{ where: "roe > 0.1; DROP TABLE securities" }, "where", /at character 10: expected/],
    [
      { where: "roe > 0 or 1=1" },
      "where",
      /at character 12: expected a field name or a parenthesis, found "1"/,
    ],
    [{ where: "symbol = 'A' or symbol = 'B' --" }, "where", /at character 30/],
    [{ where: `"roe" > 0` }, "where", /at character 1: expected a field name/],
    [{ where: "security_figures.roe > 0" }, "where", /at character 17/],
    [{ where: "sector = 'Technology'" }, "where", /at character 1: expected a field of the screener/],
    [{ where: "roe > 'x' " }, "where", /expected a number/],
    [{ where: "roe > (select 1)" }, "where", /expected a number/],
    [
      { where: `${"(".repeat(MAX_DEPTH + 1)}roe > 0${")".repeat(MAX_DEPTH + 1)}` },
      "where",
      /nested parentheses/,
    ],
    [{ where: "roe > 1 or ".repeat(100) }, "where", /at character 1001: expected at most 1000 characters/],
    [
      {
        where: Array(MAX_TERMS + 1)
          .fill("roe > 0")
          .join(" or "),
      },
      "where",
      /at most 32 comparisons/,
    ],
    [{ where: "x".repeat(2001) }, "where", /at most 2000 characters/],
    [{ sort: "-roe;drop" }, "sort", /not a screener field/],
    [{ sort: "roe,pe_ratio,market_cap,fcf_yield" }, "sort", /at most 3 fields/],
    [{ sort: "--roe" }, "sort", /not a screener field/],
    [{ fields: "symbol,body" }, "fields", /"body" is not a screener field/],
    [{ fields: "symbol,symbol" }, "fields", /names a field twice/],
    [{ fields: "" }, "fields", /"" is not a screener field/],
    [{ per_page: "501" }, "per_page", /1 to 500/],
    [{ page: "0" }, "page", /1 to 100000/],
  ];
  for (const [query, name, message] of refused)
    test(`${name}: ${JSON.stringify(query).slice(0, 60)}`, async () => {
      const problem = await expectProblem(await screener(query), 400, { name, in: "query" });
      expect(problem.detail).toMatch(message);
    });
});

describe("as every billed route", () => {
  test("costs its price, names its snapshot, and a repeated call with the ETag is a free 304", async () => {
    const path = `/screener?${new URLSearchParams({ where: "market_cap > 1e9", sort: "-market_cap" })}`;
    const res = await server.get(path, key);
    expect(res.status).toBe(200);
    expect(chargedBy(res)).toBe(PRICING.screener);
    expect(res.headers.get("x-snapshot-id")).toBe(snapshotId);
    const etag = res.headers.get("etag") ?? "";
    expect(etag).not.toBe("");
    const again = await server.get(path, key, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(chargedBy(again)).toBe(0);
    const pinned = await server.get(`${path}&snapshot=${snapshotId}`, key);
    expect(await pinned.text()).toBe(await res.text());
  });

  test("format=csv: the chosen fields in order, the same rows", async () => {
    const query = {
      where: "market_cap > 0",
      sort: "-roe",
      fields: "roe,symbol,dividend_frequency,date",
      per_page: "500",
    };
    const json = await screenerJson(query);
    const res = await screener({ ...query, format: "csv" });
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const csv = readCsv(await res.text(), "screener.csv");
    expect(csv.header).toEqual(["symbol", "date", "roe", "dividend_frequency"]);
    const back = csv.records.map(({ cells }) => ({
      symbol: cells[0],
      date: cells[1] === "" ? null : cells[1],
      roe: cells[2] === "" ? null : Number(cells[2]),
      dividend_frequency: cells[3] === "" ? null : cells[3],
    }));
    expect(back).toEqual(json.data as never);
    const empty = await screener({ where: "market_cap < 0", fields: "symbol,roe", format: "csv" });
    expect(await empty.text()).toBe("symbol,roe\r\n");
  });
});

test("a snapshot imported before the typed tables existed: 404, free", async () => {
  const dataDir = await demoDataDir();
  const manifestFile = join(dataDir, "snapshots", snapshotId, "manifest.json");
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { tables: Record<string, unknown> };
  delete manifest.tables.security_figures;
  writeFileSync(manifestFile, JSON.stringify(manifest));
  const old = await startTestServer(dataDir);
  try {
    const res = await old.get("/screener?where=roe%3E0", old.newKey(10).key);
    const problem = await expectProblem(res, 404, { code: "not_found" });
    expect(problem.detail).toContain("import again");
  } finally {
    await old.stop();
  }
});
