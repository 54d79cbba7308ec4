/**
 * Exports (docs/api.md, "Exports"), against the running server over the demo snapshot: the
 * list names every table of the snapshot with its rows, sizes and price; each table's Parquet
 * file, read back with DuckDB, holds what the JSON endpoints serve; the CSV files have the
 * Parquet's columns and rows; ranges stitch into the whole file; an export is charged once per
 * user and file (a repeat, a range, a HEAD and a 304 are free; concurrent reads pay once; a
 * payment outlives a restart; a read waiting for another replica's paying read is a free 503
 * at its time budget); an answer that is not delivered, or not a 2xx, costs nothing
 * and leaves the next read to pay; HEAD of a CSV not made yet makes nothing (no length); the
 * export cache's cap holds over every made file; a pinned snapshot's export is that snapshot's.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { writeDemoSources } from "../../src/demo/index.ts";
import { ExportRepeats } from "../../src/http/export-repeats.ts";
import { exportPrice } from "../../src/http/routes/exports.ts";
import { importSources } from "../../src/ingest/pipeline/import.ts";
import { readCsv } from "../../src/ingest/sources/csv.ts";
import { exportFile, findExport } from "../../src/query/exports.ts";
import type { LoadedSnapshot } from "../../src/query/snapshot.ts";
import { Db, openDuckDb } from "../../src/snapshot/duckdb.ts";
import { tempDir } from "../helpers/env.ts";
import { expectLedgerConsistent, expectNothingHeld, usageRows } from "../helpers/ledger.ts";
import { demoDataDir, startTestServer, type TestServer, withDemoServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

interface ExportEntry {
  name: string;
  table: string;
  period_type: string | null;
  rows: number;
  credits: number;
  parquet: { url: string; bytes: number };
  csv: { url: string; bytes: number | null };
}

let server: TestServer;
let key: string;
let duck: Db;
let list: ExportEntry[];
const dir = tempDir();
const TODAY = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  server = await startTestServer(await demoDataDir(), { pollMs: 100 });
  key = server.newKey(100_000).key;
  duck = await Db.connect(await openDuckDb());
  const res = await server.get("/exports", key);
  expect(res.status).toBe(200);
  list = ((await res.json()) as { tables: ExportEntry[] }).tables;
}, 180_000);
afterAll(() => server.stop());

/** The bytes of a whole export, with the key that reads it. */
async function download(path: string, as = key): Promise<Uint8Array> {
  const res = await server.get(path, as);
  expect(res.status, path).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/** A downloaded file's rows as the server's DuckDB handle reads them (dates as YYYY-MM-DD, integers as numbers). */
async function rowsOf(
  bytes: Uint8Array,
  name: string,
  sql = "SELECT * FROM f",
): Promise<Record<string, unknown>[]> {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  const reader = name.endsWith(".csv") ? "read_csv" : "read_parquet";
  return duck.all(`WITH f AS (SELECT * FROM ${reader}('${path}')) ${sql}`);
}

const entry = (name: string) => {
  const found = list.find((e) => e.name === name);
  if (!found) throw new Error(`no export ${name} in the list`);
  return found;
};

describe("the list", () => {
  test("names every table of the manifest but the documents, each statement once per period type, with rows, sizes and prices", () => {
    const manifest = server.snapshots.current()?.manifest;
    const expected = Object.keys(manifest?.tables ?? {})
      .filter((t) => t !== "derived")
      .flatMap((t) =>
        ["balance_sheet", "cash_flow_statement", "income_statement"].includes(t)
          ? [`${t}_annual`, `${t}_quarterly`, `${t}_ttm`]
          : [t],
      )
      .sort();
    expect(list.map((e) => e.name).sort()).toEqual(expected);
    for (const name of [
      "securities",
      "companies",
      "prices",
      "filings",
      "dividends",
      "insider_trades",
      "earnings_calendar",
    ])
      expect(entry(name).rows, name).toBe(manifest?.tables[name as "prices"]?.rows as number);
    for (const e of list) {
      expect(e.credits, e.name).toBe(exportPrice(e.parquet.bytes));
      expect(e.parquet.url).toBe(`/exports/${e.name}.parquet`);
    }
    // The demo's prices are more than 2 MiB of Parquet: priced by the started MiB.
    expect(entry("prices").credits).toBe(Math.ceil(entry("prices").parquet.bytes / 2 ** 20));
    expect(entry("prices").credits).toBeGreaterThan(1);
  });

  test("is free, and a name not in it is a 404 that costs nothing; a malformed one a 400 naming file", async () => {
    const res = await server.get("/exports", key);
    expect(res.headers.get("x-credits-charged")).toBe("0");
    expect(res.headers.get("x-snapshot-id")).toBe(server.snapshots.current()?.id as string);
    for (const [path, status] of [
      ["/exports/derived.parquet", 404],
      ["/exports/income_statement.parquet", 404],
      ["/exports/nothing.csv", 404],
      ["/exports/prices.json", 400],
      ["/exports/..%2Fmanifest.parquet", 400],
      ["/exports/PRICES.parquet", 400],
    ] as const) {
      const answer = await server.get(path, key);
      expect(answer.status, path).toBe(status);
      expect(answer.headers.get("x-credits-charged"), path).toBe("0");
      if (status === 400)
        expect(((await answer.json()) as { errors: { name: string }[] }).errors[0]?.name).toBe("file");
    }
  });
});

describe("HEAD of a CSV", () => {
  test("never makes it: without Content-Length before its first GET, free; with the file's length after", async () => {
    const { key: mine, userId } = server.newKey(100);
    const head = () => server.get("/exports/securities.csv", mine, { method: "HEAD" });
    const before = await head();
    expect([before.status, before.headers.get("x-credits-charged")]).toEqual([200, "0"]);
    expect(before.headers.get("content-length")).toBeNull();
    expect(before.headers.get("content-type")).toStartWith("text/csv");
    expect(await before.text()).toBe("");
    const listed = (await (await server.get("/exports", mine)).json()) as { tables: ExportEntry[] };
    expect(listed.tables.find((e) => e.name === "securities")?.csv.bytes).toBeNull();
    // The raw answer: a head with no length, then the next answer on the same connection.
    const raw = await rawExchange(
      `HEAD /exports/securities.csv HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${mine}\r\n\r\n` +
        `GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(raw).toStartWith("HTTP/1.1 200");
    expect(raw.split("\r\n\r\n")[0]?.toLowerCase()).not.toContain("content-length");
    expect(raw.split("\r\n\r\n")[0]?.toLowerCase()).not.toContain("transfer-encoding");
    expect(raw.split("\r\n\r\n")[1]).toStartWith("HTTP/1.1 200");
    const csv = await download("/exports/securities.csv", mine);
    const after = await head();
    expect([after.status, after.headers.get("content-length")]).toEqual([200, String(csv.byteLength)]);
    expect(after.headers.get("x-credits-charged")).toBe("0");
    expect(usageRows(server, userId).credits).toBe(entry("securities").credits);
  });
});

/** What the server answers to `requests` written at once on one connection, until it closes. */
async function rawExchange(requests: string): Promise<string> {
  const socket = connect(server.port, "127.0.0.1");
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.write(requests);
  await new Promise((resolve) => socket.once("close", resolve));
  return Buffer.concat(chunks).toString("latin1");
}

describe("the export cache", () => {
  test("its cap counts every made file, the active snapshot's too: past it the oldest go, never the one just made", async () => {
    const snapshot = server.snapshots.current() as LoadedSnapshot;
    const names = ["companies", "filings", "securities", "dividends"];
    const sizes = new Map<string, number>();
    const probe = { dir: join(tempDir(), "exports", snapshot.id) };
    for (const name of names)
      sizes.set(name, (await exportFile(snapshot, findTable(snapshot, name), "csv", probe)).bytes);
    // Room for the two largest files: never for all four.
    const sorted = [...sizes.values()].sort((a, b) => b - a);
    const cap = (sorted[0] as number) + (sorted[1] as number);
    const made = { dir: join(tempDir(), "exports", snapshot.id), cacheBytes: cap };
    // A folder of a snapshot not on disk goes at once.
    mkdirSync(join(dirname(made.dir), "20000101T000000Z-gone00"), { recursive: true });
    const order: string[] = [];
    for (const name of names) {
      const file = await exportFile(snapshot, findTable(snapshot, name), "csv", made);
      order.push(`${name}.csv`);
      const kept = readdirSync(made.dir);
      const total = kept.reduce((sum, f) => sum + statSync(join(made.dir, f)).size, 0);
      expect(kept).toContain(`${name}.csv`);
      expect(file.bytes).toBe(sizes.get(name) as number);
      expect(total).toBeLessThanOrEqual(cap);
      // What is kept is the newest files: the oldest went first.
      expect(order.slice(order.length - kept.length).sort()).toEqual(kept.sort());
    }
    expect(readdirSync(dirname(made.dir))).toEqual([snapshot.id]);
    expect(readdirSync(made.dir).length).toBeLessThan(names.length);
    // A file that went is made again when asked for.
    const again = await exportFile(snapshot, findTable(snapshot, "companies"), "csv", made);
    expect(again.bytes).toBe(sizes.get("companies") as number);
  }, 60_000);
});

function findTable(snapshot: LoadedSnapshot, name: string) {
  const table = findExport(snapshot, name);
  if (!table) throw new Error(`no export ${name}`);
  return table;
}

describe("each table's file holds what the endpoints serve", () => {
  test("every Parquet file reads back with DuckDB with its listed rows; its CSV has the same columns and rows", async () => {
    for (const e of list) {
      const parquet = await download(e.parquet.url);
      expect(parquet.byteLength, e.name).toBe(e.parquet.bytes);
      const [{ n }] = (await rowsOf(
        parquet,
        `${e.name}.parquet`,
        "SELECT count(*)::INTEGER AS n FROM f",
      )) as [{ n: number }];
      expect(n, e.name).toBe(e.rows);
      const columns = (
        await duck.all(`DESCRIBE SELECT * FROM read_parquet('${join(dir, `${e.name}.parquet`)}')`)
      ).map((c) => c.column_name);
      const csv = readCsv(
        new TextDecoder().decode(await download(`/exports/${e.name}.csv`)),
        `${e.name}.csv`,
      );
      expect(csv.header, e.name).toEqual(columns as string[]);
      expect(csv.records.length, e.name).toBe(e.rows);
    }
  }, 120_000);

  test("the CSV is RFC 4180 text/csv with CRLF lines; the list then gives its size", async () => {
    const res = await server.get("/exports/companies.csv", key);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const text = await res.text();
    expect(text.endsWith("\r\n")).toBe(true);
    expect(text.split("\r\n")[0]).toStartWith("cik,name,");
    const listed = ((await (await server.get("/exports", key)).json()) as { tables: ExportEntry[] }).tables;
    expect(listed.find((e) => e.name === "companies")?.csv.bytes).toBe(Buffer.byteLength(text));
  });

  test("prices: each security's rows are its /price rows", async () => {
    const rows = await rowsOf(
      await download("/exports/prices.parquet"),
      "prices.parquet",
      "SELECT * FROM f WHERE security_id = 'DWGT' ORDER BY date",
    );
    const res = await server.get(`/stocks/DWGT/price?start_date=1900-01-01&end_date=${TODAY}`, key);
    const served = (await res.json()) as Record<string, unknown>[];
    expect(rows.length).toBe(served.length);
    expect(
      rows.map(({ date, open, close, high, low, volume }) => ({ date, open, close, high, low, volume })),
    ).toEqual(served as never);
  });

  test("securities and companies: the profile's identity and general fields", async () => {
    const securities = await rowsOf(await download("/exports/securities.parquet"), "securities.parquet");
    const companies = await rowsOf(await download("/exports/companies.parquet"), "companies.parquet");
    const tickers = securities.filter((s) => s.cik !== null).slice(0, 5);
    expect(tickers.length).toBeGreaterThan(0);
    for (const s of tickers) {
      const profile = (await (await server.get(`/stocks/${s.ticker}/profile`, key)).json()) as {
        identity: Record<string, unknown>;
        general: Record<string, unknown>;
      };
      expect(profile.identity.symbol).toBe(s.ticker);
      expect(profile.identity.cik).toBe(s.cik);
      expect(profile.identity.exchange).toBe(s.exchange);
      expect(profile.identity.composite_figi).toBe(s.composite_figi);
      const company = companies.find((c) => c.cik === s.cik) as Record<string, unknown>;
      expect(profile.general.sic).toBe(company.sic);
      expect(profile.general.state_of_incorporation).toBe(company.state_of_incorporation);
    }
  });

  test("statements: each period type's rows of a company are its statement periods", async () => {
    for (const kind of ["income_statement", "balance_sheet", "cash_flow_statement"]) {
      for (const period of ["annual", "quarterly", "ttm"]) {
        const name = `${kind}_${period}`;
        const rows = await rowsOf(
          await download(`/exports/${name}.parquet`),
          `${name}.parquet`,
          "SELECT * FROM f WHERE cik = '0099000001' ORDER BY period_end DESC LIMIT 8",
        );
        expect(rows.every((r) => r.period_type === period)).toBe(true);
        const path = `/stocks/DWGT/${kind.replaceAll("_", "-")}?period_type=${period}&limit=8`;
        const served = (await (await server.get(path, key)).json()) as { periods: Record<string, unknown>[] };
        expect(rows.length, name).toBe(served.periods.length);
        for (const [i, p] of served.periods.entries()) {
          const row = rows[i] as Record<string, unknown>;
          expect(row.fiscal_year, name).toBe(p.fiscal_year);
          expect(row.first_accession, name).toBe(p.accession_number);
          const values = p[kind] as Record<string, unknown>;
          for (const [field, value] of Object.entries(values))
            expect(row[field], `${name} ${field}`).toEqual(value);
        }
      }
    }
  });

  test("filings, insider trades, the calendar and quotes: the rows their endpoints serve", async () => {
    const filings = await rowsOf(
      await download("/exports/filings.parquet"),
      "filings.parquet",
      "SELECT * FROM f WHERE cik = '0099000001' AND form = '10-K' ORDER BY filing_date DESC",
    );
    const served = (await (
      await server.get("/stocks/DWGT/secfiling?form_type=10-K&limit=1000", key)
    ).json()) as {
      filings: Record<string, unknown>[];
    };
    expect(filings.map((f) => [f.accession_number, f.filing_date])).toEqual(
      served.filings.map((f) => [f.accession_number, f.filing_date]),
    );

    const trades = await rowsOf(
      await download("/exports/insider_trades.parquet"),
      "insider_trades.parquet",
      "SELECT * FROM f WHERE ticker = 'DWGT' AND transaction_code IN ('P', 'S')",
    );
    const servedTrades = (await (await server.get("/securities/DWGT/insider_tradings", key)).json()) as {
      insider_tradings: Record<string, unknown>[];
    };
    const key_ = (t: Record<string, unknown>) =>
      `${t.accession_number}|${t.transaction_date}|${t.shares}|${t.price}`;
    expect(trades.map(key_).sort()).toEqual(servedTrades.insider_tradings.map(key_).sort());

    const calendar = await rowsOf(
      await download("/exports/earnings_calendar.parquet"),
      "earnings_calendar.parquet",
      "SELECT * FROM f WHERE security_id = 'DWGT' ORDER BY earning_date",
    );
    const servedCalendar = (await (
      await server.get("/calendar/earnings?ticker=DWGT", key)
    ).json()) as unknown;
    const servedRows = (
      Array.isArray(servedCalendar) ? servedCalendar : (servedCalendar as { data: unknown[] }).data
    ) as Record<string, unknown>[];
    expect(servedRows.length).toBeGreaterThan(0);
    expect(calendar.map((c) => [c.earning_date, c.eps_actual])).toEqual(
      servedRows.map((r) => [r.earning_date, r.eps_actual]),
    );

    const quotes = await rowsOf(
      await download("/exports/quotes.parquet"),
      "quotes.parquet",
      "SELECT * FROM f WHERE security_id = 'DWGT'",
    );
    const quote = (
      (await (await server.get("/securities/DWGT/quote", key)).json()) as { quote: Record<string, unknown> }
    ).quote;
    expect(quotes[0]?.close).toBe(quote.close);
    expect(quotes[0]?.date).toBe(quote.date);
  });

  test("the typed tables: a security's figures and monthly series are what its documents serve", async () => {
    const has = (name: string) => list.some((e) => e.name === name);
    if (!has("security_figures")) return;
    const [figures] = await rowsOf(
      await download("/exports/security_figures.parquet"),
      "security_figures.parquet",
      "SELECT * FROM f WHERE symbol = 'DWGT'",
    );
    const valuation = (
      (await (await server.get("/securities/DWGT/valuation", key)).json()) as {
        valuation: Record<string, unknown>;
      }
    ).valuation;
    const metrics = (
      (await (await server.get("/stocks/DWGT/fundamental-metrics", key)).json()) as {
        metrics: Record<string, unknown>;
      }
    ).metrics;
    const growth = (
      (await (await server.get("/stocks/DWGT/growth", key)).json()) as { growth: Record<string, unknown> }
    ).growth;
    for (const field of ["market_cap", "pe_ratio", "ev_to_ebitda", "fcf_yield"])
      expect(figures?.[field], field).toEqual(valuation[field]);
    for (const field of ["roe", "gross_margin", "current_ratio"])
      expect(figures?.[field], field).toEqual(metrics[field]);
    for (const field of ["revenue_growth_1y", "eps_cagr_5y"])
      expect(figures?.[field], field).toEqual(growth[field]);
    if (has("valuation_history")) {
      const rows = await rowsOf(
        await download("/exports/valuation_history.parquet"),
        "valuation_history.parquet",
        "SELECT * FROM f WHERE symbol = 'DWGT' ORDER BY date",
      );
      const served = (
        (await (await server.get("/securities/DWGT/valuation/history", key)).json()) as {
          valuation_history: Record<string, unknown>[];
        }
      ).valuation_history;
      const pick = (r: Record<string, unknown>) => [r.date, r.market_cap, r.pe_ratio];
      expect(rows.map(pick)).toEqual(
        [...served].sort((a, b) => String(a.date).localeCompare(String(b.date))).map(pick),
      );
    }
    if (has("valuation_points")) {
      const rows = await rowsOf(
        await download("/exports/valuation_points.parquet"),
        "valuation_points.parquet",
        "SELECT * FROM f WHERE symbol = 'DWGT' ORDER BY date",
      );
      const served = (
        (await (await server.get("/stocks/DWGT/valuation-history", key)).json()) as {
          points: Record<string, unknown>[];
        }
      ).points;
      const pick = (r: Record<string, unknown>) => [r.date, r.price, r.pe];
      expect(rows.map(pick)).toEqual(
        [...served].sort((a, b) => String(a.date).localeCompare(String(b.date))).map(pick),
      );
    }
  });
});

describe("ranges", () => {
  test("ranges stitched together are the whole file; HEAD gives its length; 416 for what cannot be served", async () => {
    const whole = await download("/exports/prices.parquet");
    const head = await server.get("/exports/prices.parquet", key, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(whole.byteLength));
    expect(head.headers.get("accept-ranges")).toBe("bytes");
    const size = whole.byteLength;
    const step = 300_000;
    const parts = await Promise.all(
      Array.from({ length: Math.ceil(size / step) }, async (_, i) => {
        const last = Math.min(size, (i + 1) * step) - 1;
        const res = await server.get("/exports/prices.parquet", key, {
          headers: { range: `bytes=${i * step}-${last}` },
        });
        expect(res.status).toBe(206);
        expect(res.headers.get("content-range")).toBe(`bytes ${i * step}-${last}/${size}`);
        return new Uint8Array(await res.arrayBuffer());
      }),
    );
    expect(Buffer.concat(parts).equals(Buffer.from(whole))).toBe(true);
    // Suffix and open-ended ranges, as DuckDB reads a footer.
    const tail = await server.get("/exports/prices.parquet", key, { headers: { range: "bytes=-8" } });
    expect(tail.status).toBe(206);
    expect(
      Buffer.from(await tail.arrayBuffer())
        .toString("latin1")
        .slice(4),
    ).toBe("PAR1");
    const open = await server.get("/exports/prices.parquet", key, {
      headers: { range: `bytes=${size - 4}-` },
    });
    expect(await open.text()).toBe("PAR1");
    for (const range of [`bytes=${size}-`, "bytes=0-1,5-6", "bytes=5-1", "bytes=x-y", "bytes=-0"]) {
      const res = await server.get("/exports/prices.parquet", key, { headers: { range } });
      expect(res.status, range).toBe(416);
      expect(res.headers.get("content-range"), range).toBe(`bytes */${size}`);
      expect(res.headers.get("x-credits-charged"), range).toBe("0");
    }
    // Another unit is ignored: the whole file. An If-Range of another tag: the whole file too.
    expect(
      (await server.get("/exports/prices.parquet", key, { headers: { range: "items=0-1" } })).status,
    ).toBe(200);
    const stale = await server.get("/exports/prices.parquet", key, {
      headers: { range: "bytes=0-1", "if-range": '"old"' },
    });
    expect(stale.status).toBe(200);
    const tag = head.headers.get("etag") as string;
    const current = await server.get("/exports/prices.parquet", key, {
      headers: { range: "bytes=0-3", "if-range": tag },
    });
    expect([current.status, await current.text()]).toEqual([206, "PAR1"]);
  });

  test("a range-reading client (DuckDB's way: HEAD, the footer, then the row groups in parallel) reads the table", async () => {
    const { key: reader } = server.newKey(100);
    const url = "/exports/income_statement_annual.parquet";
    const size = Number((await server.get(url, reader, { method: "HEAD" })).headers.get("content-length"));
    const chunk = 16_384;
    const footer = await server.get(url, reader, { headers: { range: `bytes=-${chunk}` } });
    expect(footer.status).toBe(206);
    const rest = await Promise.all(
      Array.from({ length: Math.ceil((size - chunk) / chunk) }, async (_, i) => {
        const last = Math.min(size - chunk, (i + 1) * chunk) - 1;
        const res = await server.get(url, reader, { headers: { range: `bytes=${i * chunk}-${last}` } });
        return new Uint8Array(await res.arrayBuffer());
      }),
    );
    const file = Buffer.concat([...rest, new Uint8Array(await footer.arrayBuffer())]);
    const rows = await rowsOf(file, "ranged.parquet", "SELECT count(*)::INTEGER AS n FROM f");
    expect(rows[0]?.n).toBe(entry("income_statement_annual").rows);
    // Charged once, for the whole file, whatever the number of reads.
    expect(((await (await server.get("/account", reader)).json()) as { available: number }).available).toBe(
      100 - entry("income_statement_annual").credits,
    );
  });
});

/** DuckDB reading the exports itself over HTTP needs its httpfs extension, which is downloaded on first use. */
async function httpfs(): Promise<DuckDBConnection | null> {
  const connection = await (await DuckDBInstance.create(":memory:")).connect();
  try {
    await connection.run("LOAD httpfs");
    return connection;
  } catch {
    try {
      await connection.run("INSTALL httpfs; LOAD httpfs");
      return connection;
    } catch {
      return null;
    }
  }
}

test("the README's DuckDB lines read an export over HTTP (when DuckDB can load httpfs)", async () => {
  const connection = await httpfs();
  if (!connection) {
    console.warn(
      "DuckDB cannot load httpfs here (offline): the README's lines are checked by the range-reading client above",
    );
    return;
  }
  await connection.run(
    `CREATE SECRET stockd (TYPE http, EXTRA_HTTP_HEADERS MAP {'Authorization': 'Bearer ${key}'})`,
  );
  const result = await connection.runAndReadAll(
    `SELECT count(*)::INTEGER AS n FROM read_parquet('${server.url}/exports/prices.parquet')`,
  );
  expect(result.getRowObjectsJson()[0]?.n).toBe(entry("prices").rows);
});

describe("billing", () => {
  test("once per user and file: repeats, ranges, HEAD and a 304 are free; another format and another user pay", async () => {
    const { key: mine, userId } = server.newKey(100);
    const price = entry("prices").credits;
    const first = await server.get("/exports/prices.parquet", mine, { headers: { range: "bytes=0-99" } });
    expect([first.status, first.headers.get("x-credits-charged")]).toEqual([206, String(price)]);
    await first.arrayBuffer();
    for (const init of [{}, { headers: { range: "bytes=100-199" } }, { method: "HEAD" }]) {
      const again = await server.get("/exports/prices.parquet", mine, init);
      await again.arrayBuffer();
      expect(again.headers.get("x-credits-charged")).toBe("0");
    }
    const tag = first.headers.get("etag") as string;
    const notModified = await server.get("/exports/prices.parquet", mine, {
      headers: { "if-none-match": tag },
    });
    expect([notModified.status, notModified.headers.get("x-credits-charged")]).toEqual([304, "0"]);
    const csv = await server.get("/exports/prices.csv", mine, { headers: { range: "bytes=0-9" } });
    expect(csv.headers.get("x-credits-charged")).toBe(String(price));
    await csv.arrayBuffer();
    expect(usageRows(server, userId).credits).toBe(2 * price);
    expectLedgerConsistent(server, userId, 100 - 2 * price);
    const other = server.newKey(100);
    const theirs = await server.get("/exports/prices.parquet", other.key, {
      headers: { range: "bytes=0-9" },
    });
    expect(theirs.headers.get("x-credits-charged")).toBe(String(price));
    await theirs.arrayBuffer();
  });

  test("concurrent reads of the same file by one user are charged once", async () => {
    const { key: mine, userId } = server.newKey(100);
    const answers = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const res = await server.get("/exports/filings.parquet", mine, {
          headers: { range: `bytes=${i * 10}-${i * 10 + 9}` },
        });
        await res.arrayBuffer();
        return [res.status, Number(res.headers.get("x-credits-charged"))];
      }),
    );
    expect(answers.every(([status]) => status === 206)).toBe(true);
    expect(answers.reduce((n, [, charged]) => n + (charged as number), 0)).toBe(entry("filings").credits);
    expect(usageRows(server, userId).rows).toBe(1);
    await expectNothingHeld(server, mine);
  });

  test("a balance short of the price is a 402, and the next read with credits pays", async () => {
    const price = entry("prices").credits;
    const { key: poor, userId } = server.newKey(price - 1);
    const refused = await server.get("/exports/prices.parquet", poor);
    expect(refused.status).toBe(402);
    expectLedgerConsistent(server, userId, price - 1);
    server.accounts.grantCredits(userId, 1, "test");
    await Bun.sleep(250);
    const paid = await server.get("/exports/prices.parquet", poor, { headers: { range: "bytes=0-0" } });
    expect([paid.status, paid.headers.get("x-credits-charged")]).toEqual([206, String(price)]);
  });

  test("a paid export stays free after a restart: another server process over the same data dir", async () => {
    const { key: mine, userId } = server.newKey(100);
    const price = entry("companies").credits;
    const first = await server.get("/exports/companies.parquet", mine, { headers: { range: "bytes=0-9" } });
    expect([first.status, first.headers.get("x-credits-charged")]).toEqual([206, String(price)]);
    await first.arrayBuffer();
    const restarted = await startTestServer(server.dataDir);
    try {
      const again = await restarted.get("/exports/companies.parquet", mine);
      expect([again.status, again.headers.get("x-credits-charged")]).toEqual([200, "0"]);
      await again.arrayBuffer();
      const csv = await restarted.get("/exports/companies.csv", mine, { headers: { range: "bytes=0-9" } });
      expect(csv.headers.get("x-credits-charged")).toBe(String(price));
      await csv.arrayBuffer();
    } finally {
      await restarted.stop();
    }
    expectLedgerConsistent(server, userId, 100 - 2 * price);
  }, 60_000);

  test("a read while another replica's read of the file pays waits no longer than its time budget: a 503, not charged; free once that one paid", async () => {
    await withDemoServer({ requestTimeoutMs: 1_000 }, async (other) => {
      const { key: mine, userId } = other.newKey(100);
      const snapshot = other.snapshots.current()?.id as string;
      // Another replica's read, paying on the same accounts store.
      const pay = await new ExportRepeats(other.accounts).claim(userId, `${snapshot}/companies.parquet`);
      expect(pay).not.toBeNull();
      const started = performance.now();
      const waited = await other.get("/exports/companies.parquet", mine);
      expect(waited.status).toBe(503);
      await waited.arrayBuffer();
      expect(performance.now() - started).toBeLessThan(5_000);
      expectLedgerConsistent(other, userId, 100);
      pay?.(true);
      await Bun.sleep(100);
      const free = await other.get("/exports/companies.parquet", mine);
      expect([free.status, free.headers.get("x-credits-charged")]).toEqual([200, "0"]);
      await free.arrayBuffer();
      expectLedgerConsistent(other, userId, 100);
    });
  }, 60_000);

  test("an answer not delivered is refunded, and the next read pays", async () => {
    const { key: mine, userId } = server.newKey(100);
    const price = entry("prices").credits;
    const socket = await new Promise<ReturnType<typeof connect>>((resolve, reject) => {
      const s = connect(server.port, "127.0.0.1", () => resolve(s));
      s.once("error", reject);
    });
    socket.pause();
    // The prices as CSV, several MB, not read: the socket's buffers fill long before the end.
    socket.write(`GET /exports/prices.csv HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${mine}\r\n\r\n`);
    await waitUntil(() => usageRows(server, userId).rows === 1, 30_000);
    await Bun.sleep(300);
    socket.resetAndDestroy();
    await waitUntil(() => usageRows(server, userId).rows === 0, 5_000);
    expectLedgerConsistent(server, userId, 100);
    const next = await server.get("/exports/prices.csv", mine, { headers: { range: "bytes=0-9" } });
    expect(next.headers.get("x-credits-charged")).toBe(String(price));
    await next.arrayBuffer();
    expectLedgerConsistent(server, userId, 100 - price);
  }, 60_000);
});

test("a pinned snapshot's export is that snapshot's, after a newer import", async () => {
  const first = server.snapshots.current()?.id as string;
  const before = await download("/exports/prices.parquet");
  const src = tempDir();
  writeDemoSources(src, new Date("2025-01-15T12:00:00Z"));
  const next = (await importSources(src, server.dataDir)).id;
  await waitUntil(() => server.snapshots.current()?.id === next, 10_000);
  const now = await server.get("/exports/prices.parquet", key);
  expect(now.headers.get("x-snapshot-id")).toBe(next);
  expect(Buffer.from(await now.arrayBuffer()).equals(Buffer.from(before))).toBe(false);
  const pinned = await server.get(`/exports/prices.parquet?snapshot=${first}`, key);
  expect([pinned.status, pinned.headers.get("x-snapshot-id")]).toEqual([200, first]);
  expect(Buffer.from(await pinned.arrayBuffer()).equals(Buffer.from(before))).toBe(true);
  const pinnedList = (await (await server.get(`/exports?snapshot=${first}`, key)).json()) as {
    metadata: { snapshot_id: string };
    tables: ExportEntry[];
  };
  expect(pinnedList.metadata.snapshot_id).toBe(first);
  expect(pinnedList.tables.find((e) => e.name === "prices")?.parquet.url).toBe(
    `/exports/prices.parquet?snapshot=${first}`,
  );
  const csv = await server.get(`/exports/income_statement_ttm.csv?snapshot=${first}`, key);
  expect([csv.status, csv.headers.get("x-snapshot-id")]).toEqual([200, first]);
}, 120_000);
