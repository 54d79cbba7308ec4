#!/usr/bin/env bun
/**
 * A prototype of the serving path suggested for src/ (not the product): the three measured
 * routes on Bun.serve's own router, with the same auth, reservation and WAL-committed debit
 * before each response as stockd, bodies pre-serialised at start (profile, metrics) or cut
 * from memory-mapped, pre-serialised price rows (price-file.ts). It exists to put numbers on
 * the suggestions.
 *
 * `bun bench/prototype/fast-server.ts DATA_DIR` (needs DATA_DIR/.../prices.bin, see
 * bench/prototype/run.ts); prints `stockd listening on URL` on stderr, like `stockd serve`.
 */
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { FastBilling, type KeyInfo } from "./fast-billing.ts";
import { epochDay, PriceText } from "./price-file.ts";

const JSON_TYPE = "application/json;charset=utf-8";
const BEARER = /^Bearer ([\x21-\x7e]{1,200})$/;

type Row = Record<string, unknown>;

async function rows(conn: DuckDBConnection, sql: string): Promise<Row[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJS() as Row[];
}

const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
const day = (v: unknown) => (v instanceof Date ? v.toISOString().slice(0, 10) : text(v));

/** The profile body of each security, in the shape of src/http/models/profile.ts. */
function profileBody(r: Row): string {
  return JSON.stringify({
    identity: {
      company_id: text(r.cik),
      security_id: text(r.security_id),
      symbol: text(r.ticker),
      exchange: text(r.exchange),
      company_name: text(r.company_name ?? r.name),
      cik: text(r.cik),
      market: "US",
      security_type: text(r.security_type),
      composite_figi: text(r.composite_figi),
      share_class_figi: text(r.share_class_figi),
    },
    general: {
      country_iso: text(r.country_iso),
      currency: text(r.currency_code),
      company_website: text(r.website),
      business_description: text(r.description),
      industry_template: "general",
      company_country: text(r.country),
      ipo_date: null,
      security_active: r.active,
      sic: text(r.sic),
      sic_description: text(r.sic_description),
      fiscal_year_end: text(r.fiscal_year_end),
      state_of_incorporation: text(r.state_of_incorporation),
      entity_type: text(r.entity_type),
      filer_category: text(r.category),
      phone: text(r.phone),
      first_filing_date: day(r.first_filing_date),
    },
  });
}

interface Snapshot {
  /** Ticker key → security id. */
  securities: Map<string, string>;
  profiles: Map<string, Uint8Array>;
  metrics: Map<string, Uint8Array>;
  prices: PriceText;
}

async function loadSnapshot(dataDir: string): Promise<Snapshot> {
  const id = readFileSync(join(dataDir, "CURRENT"), "utf8").trim();
  const dir = join(dataDir, "snapshots", id);
  const conn = await (await DuckDBInstance.create(":memory:")).connect();
  const file = (t: string) => `read_parquet('${join(dir, `${t}.parquet`)}')`;
  const encode = new TextEncoder();
  const list = await rows(
    conn,
    `SELECT s.*, c.name AS company_name, c.* EXCLUDE (cik, name) FROM ${file("securities")} s LEFT JOIN ${file("companies")} c USING (cik)`,
  );
  const metrics = await rows(conn, `SELECT security_id, body FROM ${file("derived")} WHERE kind = 'metrics'`);
  conn.closeSync();
  return {
    securities: new Map(list.map((r) => [String(r.ticker_key), String(r.security_id)])),
    profiles: new Map(list.map((r) => [String(r.security_id), encode.encode(profileBody(r))])),
    metrics: new Map(metrics.map((r) => [String(r.security_id), encode.encode(String(r.body))])),
    prices: new PriceText(join(dataDir, "prices.bin")),
  };
}

function problem(status: number, code: string, requestId: string): Response {
  return new Response(JSON.stringify({ type: "about:blank", status, code, request_id: requestId }), {
    status,
    headers: { "content-type": "application/problem+json", "x-request-id": requestId },
  });
}

type Body = (securityId: string, url: string) => Uint8Array | string | null;

/** Auth, reservation, body, WAL-committed debit, then the response. */
function billedRoute(billing: FastBilling, snapshot: Snapshot, endpoint: string, body: Body) {
  return async (request: Request & { params: { symbol: string } }): Promise<Response> => {
    const requestId = crypto.randomUUID();
    const token = BEARER.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
    const key: KeyInfo | null = billing.authenticate(token, Date.now());
    if (!key) return problem(401, "unauthorized", requestId);
    const securityId = snapshot.securities.get(request.params.symbol.toUpperCase().replace(/[-/]/g, "."));
    if (!securityId) return problem(404, "not_found", requestId);
    if (!billing.reserve(key, 1)) return problem(402, "insufficient_credits", requestId);
    const bytes = body(securityId, request.url);
    if (bytes === null) {
      billing.release(key, 1);
      return problem(400, "invalid_parameter", requestId);
    }
    const remaining = await billing.commit(key, 1, endpoint, requestId);
    if (remaining === null) return problem(402, "insufficient_credits", requestId);
    return new Response(bytes, {
      headers: {
        "content-type": JSON_TYPE,
        "x-request-id": requestId,
        "x-credits-charged": "1",
        "x-credits-remaining": String(remaining),
      },
    });
  };
}

/** The price window of `url`'s start_date/end_date, or null when they are not valid. */
function priceBody(prices: PriceText): Body {
  return (securityId, url) => {
    const query = new URLSearchParams(url.slice(url.indexOf("?") + 1));
    const start = epochDay(query.get("start_date"));
    const end = epochDay(query.get("end_date"));
    if (start === null || end === null || start > end || end > Date.now() / 86_400_000) return null;
    return prices.window(securityId, start, end);
  };
}

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  if (!dataDir) throw new Error("usage: fast-server.ts DATA_DIR");
  const snapshot = await loadSnapshot(dataDir);
  const db = new Database(join(dataDir, "accounts.db"));
  db.exec("PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
  // Checkpoints off the event loop: a COMMIT that trips the auto-checkpoint copies pages and
  // fsyncs on the serving thread (tens of ms, the p99 of every call in flight).
  db.exec("PRAGMA wal_autocheckpoint = 0");
  const checkpointer = new Worker(new URL("./checkpointer.ts", import.meta.url));
  checkpointer.postMessage(join(dataDir, "accounts.db"));
  checkpointer.unref();
  const billing = new FastBilling(db);
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    routes: {
      "/stocks/:symbol/profile": billedRoute(
        billing,
        snapshot,
        "profile",
        (id) => snapshot.profiles.get(id) ?? null,
      ),
      "/stocks/:symbol/fundamental-metrics": billedRoute(
        billing,
        snapshot,
        "fundamental_metrics",
        (id) => snapshot.metrics.get(id) ?? null,
      ),
      "/stocks/:symbol/price": billedRoute(billing, snapshot, "price", priceBody(snapshot.prices)),
    },
    fetch: () => problem(404, "not_found", crypto.randomUUID()),
  });
  console.error(`stockd listening on ${server.url.href.replace(/\/$/, "")}`);
  process.on("SIGTERM", async () => {
    await server.stop(false);
    db.close();
    process.exit(0);
  });
}

await main();
