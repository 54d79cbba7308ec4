/**
 * What `stockd sync` remembers between runs, in `DATA_DIR/sync/state.db` (bun:sqlite, WAL):
 * watermarks, one row per URL fetched (validators, hash, where its body went), the validator
 * of each partial bulk download, one row per
 * ownership filing (fetched, skipped, missing), the price series per ticker, the runs and the
 * running totals of their requests (for /metrics, whichever process ran them).
 * A row is written only after its file is in the mirror, so a crash leaves the state
 * behind the mirror, never ahead of it: the next run fetches at most what was in flight.
 */
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { PriceRow } from "../ingest/sources/price-rows.ts";

/** The directory of sync's own files (state, lock, temporary downloads), beside the mirror. */
export function syncDir(dataDir: string): string {
  return join(dataDir, "sync");
}

/** The source mirror: exactly the layout `stockd import --from` reads (docs/sources.md). */
export function mirrorDir(dataDir: string): string {
  return join(dataDir, "sources");
}

/** One URL as last fetched. */
export interface FetchRecord {
  url: string;
  status: number;
  sha256: string | null;
  bytes: number;
  etag: string | null;
  lastModified: string | null;
  /** Path in the mirror the body went to, or null (a 404, an index read and not kept). */
  path: string | null;
  fetchedAt: string;
}

/** What became of one ownership filing. */
export type FilingState = "fetched" | "skipped" | "missing";

/** One run as `sync status` shows it. */
export interface RunRecord {
  id: number;
  startedAt: string;
  endedAt: string | null;
  status: string;
  summary: unknown;
}

/** A price series kept by a provider: raw bars are re-rendered into the mirror's files. */
export interface SeriesRecord {
  ticker: string;
  provider: string;
  lastDate: string | null;
  updatedAt: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS watermark (name TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS fetched (
  url TEXT PRIMARY KEY, status INTEGER NOT NULL, sha256 TEXT, bytes INTEGER NOT NULL,
  etag TEXT, last_modified TEXT, path TEXT, fetched_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS filing (
  accession TEXT PRIMARY KEY, cik TEXT NOT NULL, form TEXT NOT NULL, state TEXT NOT NULL,
  path TEXT, attempts INTEGER NOT NULL, next_retry_at TEXT, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS universe (cik TEXT PRIMARY KEY, added_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS series (
  ticker TEXT NOT NULL, provider TEXT NOT NULL, last_date TEXT, updated_at TEXT NOT NULL,
  PRIMARY KEY (ticker, provider));
CREATE TABLE IF NOT EXISTS bar (
  ticker TEXT NOT NULL, provider TEXT NOT NULL, date TEXT NOT NULL, open REAL, high REAL,
  low REAL, close REAL NOT NULL, volume REAL, dividend REAL NOT NULL, split REAL NOT NULL,
  PRIMARY KEY (ticker, provider, date));
CREATE TABLE IF NOT EXISTS run (
  id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, ended_at TEXT, status TEXT NOT NULL, summary TEXT);
CREATE TABLE IF NOT EXISTS download (url TEXT PRIMARY KEY, validator TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS counter (
  name TEXT NOT NULL, labels TEXT NOT NULL, value REAL NOT NULL, PRIMARY KEY (name, labels));
`;

/** A running total over every run: a metric name, its labels and how much it grew. */
export interface CounterRow {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * A bar as traded that day (a price row with no adjusted close: the importer adjusts), with
 * that day's dividend and split (1 for none).
 */
export interface StoredBar extends Omit<PriceRow, "adj_close"> {
  dividend: number;
  split: number;
}

/** The state database of one data dir. */
export class SyncState {
  private constructor(private readonly db: Database) {}

  static open(dataDir: string): SyncState {
    mkdirSync(syncDir(dataDir), { recursive: true });
    const db = new Database(join(syncDir(dataDir), "state.db"), { create: true, strict: true });
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;");
    db.exec(SCHEMA);
    return new SyncState(db);
  }

  close(): void {
    this.db.close();
  }

  watermark(name: string): string | null {
    const row = this.db
      .query<{ value: string }, [string]>("SELECT value FROM watermark WHERE name = ?")
      .get(name);
    return row?.value ?? null;
  }

  setWatermark(name: string, value: string): void {
    this.db
      .query("INSERT OR REPLACE INTO watermark (name, value, updated_at) VALUES (?, ?, ?)")
      .run(name, value, now());
  }

  watermarks(): { name: string; value: string; updatedAt: string }[] {
    return this.db
      .query<{ name: string; value: string; updated_at: string }, []>(
        "SELECT name, value, updated_at FROM watermark ORDER BY name",
      )
      .all()
      .map((r) => ({ name: r.name, value: r.value, updatedAt: r.updated_at }));
  }

  fetched(url: string): FetchRecord | null {
    const row = this.db
      .query<Record<string, string | number | null>, [string]>("SELECT * FROM fetched WHERE url = ?")
      .get(url);
    if (!row) return null;
    return {
      url,
      status: row.status as number,
      sha256: row.sha256 as string | null,
      bytes: row.bytes as number,
      etag: row.etag as string | null,
      lastModified: row.last_modified as string | null,
      path: row.path as string | null,
      fetchedAt: row.fetched_at as string,
    };
  }

  recordFetch(record: Omit<FetchRecord, "fetchedAt">): void {
    this.db
      .query(
        "INSERT OR REPLACE INTO fetched (url, status, sha256, bytes, etag, last_modified, path, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        record.url,
        record.status,
        record.sha256,
        record.bytes,
        record.etag,
        record.lastModified,
        record.path,
        now(),
      );
  }

  /** The filing's row, if it was settled before (fetched, skipped, or missing and not yet due again). */
  filing(accession: string): { state: FilingState; nextRetryAt: string | null; attempts: number } | null {
    const row = this.db
      .query<{ state: FilingState; next_retry_at: string | null; attempts: number }, [string]>(
        "SELECT state, next_retry_at, attempts FROM filing WHERE accession = ?",
      )
      .get(accession);
    return row ? { state: row.state, nextRetryAt: row.next_retry_at, attempts: row.attempts } : null;
  }

  /**
   * Records a filing's outcome. A missing document is tried again after 1, 2, 4 … 30 days, so a
   * document the SEC publishes late is not lost and a broken one costs a request a month.
   */
  recordFiling(accession: string, cik: string, form: string, state: FilingState, path: string | null): void {
    const attempts = (this.filing(accession)?.attempts ?? 0) + 1;
    const retryDays = Math.min(30, 2 ** (attempts - 1));
    const nextRetry =
      state === "missing" ? new Date(Date.now() + retryDays * 86_400_000).toISOString() : null;
    this.db
      .query(
        "INSERT OR REPLACE INTO filing (accession, cik, form, state, path, attempts, next_retry_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(accession, cik, form, state, path, attempts, nextRetry, now());
  }

  filingCounts(): Record<string, number> {
    const rows = this.db
      .query<{ state: string; n: number }, []>("SELECT state, count(*) AS n FROM filing GROUP BY state")
      .all();
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  }

  universe(): string[] {
    return this.db
      .query<{ cik: string }, []>("SELECT cik FROM universe ORDER BY cik")
      .all()
      .map((r) => r.cik);
  }

  addToUniverse(ciks: readonly string[]): void {
    const insert = this.db.query("INSERT OR IGNORE INTO universe (cik, added_at) VALUES (?, ?)");
    this.db.transaction(() => {
      for (const cik of ciks) insert.run(cik, now());
    })();
  }

  series(ticker: string, provider: string): SeriesRecord | null {
    const row = this.db
      .query<{ last_date: string | null; updated_at: string }, [string, string]>(
        "SELECT last_date, updated_at FROM series WHERE ticker = ? AND provider = ?",
      )
      .get(ticker, provider);
    return row ? { ticker, provider, lastDate: row.last_date, updatedAt: row.updated_at } : null;
  }

  allSeries(): SeriesRecord[] {
    return this.db
      .query<{ ticker: string; provider: string; last_date: string | null; updated_at: string }, []>(
        "SELECT * FROM series ORDER BY ticker",
      )
      .all()
      .map((r) => ({
        ticker: r.ticker,
        provider: r.provider,
        lastDate: r.last_date,
        updatedAt: r.updated_at,
      }));
  }

  bars(ticker: string, provider: string): StoredBar[] {
    return this.db
      .query<StoredBar, [string, string]>(
        "SELECT date, open, high, low, close, volume, dividend, split FROM bar WHERE ticker = ? AND provider = ? ORDER BY date",
      )
      .all(ticker, provider);
  }

  /**
   * Stores bars and the series' last date in one transaction; the stored bars from `from` on
   * (all of them for null: a full refetch) are replaced.
   */
  saveBars(ticker: string, provider: string, bars: readonly StoredBar[], from: string | null): void {
    const insert = this.db.query(
      "INSERT OR REPLACE INTO bar (ticker, provider, date, open, high, low, close, volume, dividend, split) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.db.transaction(() => {
      this.db
        .query("DELETE FROM bar WHERE ticker = ? AND provider = ? AND date >= ?")
        .run(ticker, provider, from ?? "");
      for (const b of bars)
        insert.run(ticker, provider, b.date, b.open, b.high, b.low, b.close, b.volume, b.dividend, b.split);
      const last = this.db
        .query<{ d: string | null }, [string, string]>(
          "SELECT max(date) AS d FROM bar WHERE ticker = ? AND provider = ?",
        )
        .get(ticker, provider);
      this.db
        .query("INSERT OR REPLACE INTO series (ticker, provider, last_date, updated_at) VALUES (?, ?, ?, ?)")
        .run(ticker, provider, last?.d ?? null, now());
    })();
  }

  startRun(): number {
    const row = this.db
      .query<{ id: number }, [string]>(
        "INSERT INTO run (started_at, status) VALUES (?, 'running') RETURNING id",
      )
      .get(now());
    return (row as { id: number }).id;
  }

  endRun(id: number, status: string, summary: unknown): void {
    this.db
      .query("UPDATE run SET ended_at = ?, status = ?, summary = ? WHERE id = ?")
      .run(now(), status, JSON.stringify(summary), id);
  }

  /** The validator of the answer that began the partial download of `url`, or null. */
  downloadValidator(url: string): string | null {
    const row = this.db
      .query<{ validator: string }, [string]>("SELECT validator FROM download WHERE url = ?")
      .get(url);
    return row?.validator ?? null;
  }

  /** Keeps (or, with null, forgets) the validator a partial download of `url` resumes with. */
  setDownloadValidator(url: string, validator: string | null): void {
    if (validator === null) this.db.query("DELETE FROM download WHERE url = ?").run(url);
    else
      this.db
        .query("INSERT OR REPLACE INTO download (url, validator, updated_at) VALUES (?, ?, ?)")
        .run(url, validator, now());
  }

  /** Adds to the running totals, in one transaction (labels are kept as their JSON). */
  addCounters(rows: readonly CounterRow[]): void {
    const add = this.db.query(
      "INSERT INTO counter (name, labels, value) VALUES (?, ?, ?) ON CONFLICT (name, labels) DO UPDATE SET value = value + excluded.value",
    );
    this.db.transaction(() => {
      for (const row of rows) add.run(row.name, JSON.stringify(row.labels), row.value);
    })();
  }

  /** The running totals of every run, by name and labels. */
  counters(): CounterRow[] {
    return this.db
      .query<{ name: string; labels: string; value: number }, []>(
        "SELECT name, labels, value FROM counter ORDER BY name, labels",
      )
      .all()
      .map((r) => ({ name: r.name, labels: JSON.parse(r.labels) as Record<string, string>, value: r.value }));
  }

  /** How many runs ended with each status (a run still `running` counts as that). */
  runCounts(): Record<string, number> {
    const rows = this.db
      .query<{ status: string; n: number }, []>("SELECT status, count(*) AS n FROM run GROUP BY status")
      .all();
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  runs(limit: number): RunRecord[] {
    return this.db
      .query<
        { id: number; started_at: string; ended_at: string | null; status: string; summary: string | null },
        [number]
      >("SELECT * FROM run ORDER BY id DESC LIMIT ?")
      .all(limit)
      .map((r) => ({
        id: r.id,
        startedAt: r.started_at,
        endedAt: r.ended_at,
        status: r.status,
        summary: r.summary === null ? null : JSON.parse(r.summary),
      }));
  }
}

function now(): string {
  return new Date().toISOString();
}
