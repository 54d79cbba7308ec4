import { existsSync } from "node:fs";
import { join } from "node:path";
import type { DuckDBInstance } from "@duckdb/node-api";
import type { QuoteRow } from "../domain/quote.ts";
import type { Logger } from "../log.ts";
import { Db, type Row, type SqlParams } from "../snapshot/duckdb.ts";
import {
  isSnapshotId,
  type Manifest,
  readCurrent,
  readManifest,
  snapshotDir,
  verifySnapshot,
} from "../snapshot/store.ts";
import type { TableName } from "../snapshot/tables.ts";
import { type CompanyRow, loadCompanies } from "./companies.ts";
import { loadDerived } from "./derived-bodies.ts";
import { PriceStore } from "./price-store.ts";
import { SecurityIndex } from "./securities.ts";

/**
 * Tables copied into DuckDB's memory when a snapshot loads, instead of read from Parquet by
 * each query: the screener's, one row per security (a few MB for 5,000), which every screener
 * call scans whole (bench/screener.ts).
 */
const HELD_IN_MEMORY: ReadonlySet<TableName> = new Set(["security_figures"]);

/** Connections per snapshot: one per core is enough for DuckDB's own parallelism. */
const POOL_SIZE = 2;
let generation = 0;

/**
 * One activated snapshot: its manifest, the small tables held in memory, and DuckDB
 * connections whose default schema holds one view per Parquet file. Immutable once loaded;
 * closed only after the last request holding it has finished.
 */
export class LoadedSnapshot {
  private holders = 0;
  private retired = false;
  /** Queries in flight on each pooled connection. */
  private readonly busy: number[] = Array(POOL_SIZE).fill(0);
  /** Response bodies built from this snapshot, by kind and security: it never changes, so neither do they. */
  private readonly bodies = new Map<string, Map<string, string>>();

  private constructor(
    readonly manifest: Manifest,
    readonly securities: SecurityIndex,
    readonly companies: Map<string, CompanyRow>,
    readonly quotes: Map<string, QuoteRow>,
    readonly derived: Map<string, Map<string, string>>,
    readonly prices: PriceStore,
    /** Its folder (`DATA_DIR/snapshots/<id>`). */
    readonly dir: string,
    private readonly pool: Db[],
    private readonly schema: string,
  ) {}

  static async load(instance: DuckDBInstance, dataDir: string, id: string): Promise<LoadedSnapshot> {
    // Sizes only here (start-up must stay fast); `snapshots activate` and `doctor` check SHA-256.
    const problems = await verifySnapshot(dataDir, id, false);
    if (problems.length > 0) throw new Error(`snapshot ${id} is damaged: ${problems.join("; ")}`);
    const manifest = readManifest(dataDir, id);
    const dir = snapshotDir(dataDir, id);
    const schema = `snap_${++generation}`;
    const setup = await Db.connect(instance);
    try {
      await setup.run(`CREATE SCHEMA ${schema}`);
      for (const [table, entry] of Object.entries(manifest.tables)) {
        const path = join(dir, entry.file).replaceAll("'", "''");
        // Table names come from our manifest schema and paths from our data dir: no input.
        const held = HELD_IN_MEMORY.has(table as TableName) ? "TABLE" : "VIEW";
        await setup.run(
          `CREATE ${held} ${schema}.${table as TableName} AS SELECT * FROM read_parquet('${path}')`,
        );
      }
    } finally {
      setup.close();
    }
    const pool: Db[] = [];
    for (let i = 0; i < POOL_SIZE; i++) {
      const db = await Db.connect(instance);
      await db.run(`SET schema = '${schema}'`);
      pool.push(db);
    }
    const first = pool[0] as Db;
    const has = (t: TableName) => t in manifest.tables;
    const securities = new SecurityIndex(
      has("securities") ? await first.all("SELECT * FROM securities") : [],
    );
    const companies = loadCompanies(has("companies") ? await first.all("SELECT * FROM companies") : []);
    const quotes = new Map(
      (has("quotes") ? await first.all<QuoteRow>("SELECT * FROM quotes") : []).map((q) => [q.security_id, q]),
    );
    const derived = has("derived") ? await loadDerived((sql) => first.all(sql), id) : new Map();
    const prices = PriceStore.open(dir);
    return new LoadedSnapshot(manifest, securities, companies, quotes, derived, prices, dir, pool, schema);
  }

  get id(): string {
    return this.manifest.id;
  }

  /** True when the snapshot has this table (a source that was not imported has none). */
  has(table: TableName): boolean {
    return table in this.manifest.tables;
  }

  /**
   * Runs a parameterised query on the pooled connection with the fewest queries in flight: a
   * connection runs one query at a time, so a short query must not queue behind a long one
   * while another connection is free.
   */
  all<T = Row>(sql: string, params?: SqlParams): Promise<T[]> {
    let pick = 0;
    for (let i = 1; i < this.pool.length; i++)
      if ((this.busy[i] as number) < (this.busy[pick] as number)) pick = i;
    this.busy[pick] = (this.busy[pick] as number) + 1;
    return (this.pool[pick] as Db).all<T>(sql, params).finally(() => {
      this.busy[pick] = (this.busy[pick] as number) - 1;
    });
  }

  /** The `kind` body of a security, built by `build` the first time it is asked for. */
  body(kind: string, securityId: string, build: () => string): string {
    let byKind = this.bodies.get(kind);
    if (!byKind) {
      byKind = new Map();
      this.bodies.set(kind, byKind);
    }
    let body = byKind.get(securityId);
    if (body === undefined) {
      body = build();
      byKind.set(securityId, body);
    }
    return body;
  }

  /** Marks a request as using this snapshot; pair with `release`. */
  acquire(): this {
    this.holders++;
    return this;
  }

  /** Like `acquire`, or null once the snapshot is retired (it may be closed). */
  tryAcquire(): this | null {
    return this.retired ? null : this.acquire();
  }

  release(): void {
    this.holders--;
    if (this.retired && this.holders === 0) this.close();
  }

  /** No new requests will get this snapshot; it closes when the last holder releases. */
  retire(): void {
    this.retired = true;
    if (this.holders === 0) this.close();
  }

  private close(): void {
    const [first] = this.pool;
    first?.run(`DROP SCHEMA IF EXISTS ${this.schema} CASCADE`).finally(() => {
      for (const db of this.pool) db.close();
    });
  }
}

/** How many pinned snapshots other than the active one stay loaded (each maps its price file and holds DuckDB views). */
const PINNED_KEPT = 2;

/**
 * Which snapshot is served. Follows `CURRENT`: a snapshot activated by another process (the
 * CLI) is loaded and swapped in without a restart; requests in flight finish on the one they
 * started with.
 */
export class SnapshotService {
  private active: LoadedSnapshot | null = null;
  /** Snapshots other than the active one that calls pinned (`?snapshot=ID`), least recently used first. */
  private readonly pinned = new Map<string, Promise<LoadedSnapshot | null>>();
  private loading: Promise<void> | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly instance: DuckDBInstance,
    private readonly dataDir: string,
    private readonly log: Logger,
  ) {}

  /** The served snapshot, acquired for one request (release it), or null when none is active. */
  acquire(): LoadedSnapshot | null {
    return this.active?.acquire() ?? null;
  }

  /**
   * The snapshot `id`, acquired for one request (release it): the active one, else one still on
   * disk, loaded once and kept while it is among the PINNED_KEPT most recently pinned; null when
   * no snapshot of that id is on disk.
   */
  async acquirePinned(id: string): Promise<LoadedSnapshot | null> {
    if (this.active?.id === id) return this.active.acquire();
    if (!isSnapshotId(id) || !existsSync(join(snapshotDir(this.dataDir, id), "manifest.json"))) return null;
    let loading = this.pinned.get(id);
    if (loading === undefined) {
      loading = LoadedSnapshot.load(this.instance, this.dataDir, id).catch((error) => {
        this.pinned.delete(id);
        throw error;
      });
      this.pinned.set(id, loading);
      this.evictPinned();
    } else {
      // Most recently used last.
      this.pinned.delete(id);
      this.pinned.set(id, loading);
    }
    // Evicted (so retired, maybe closed) while this call waited for it: load it again.
    return (await loading)?.tryAcquire() ?? this.acquirePinned(id);
  }

  private evictPinned(): void {
    for (const [id, loading] of this.pinned) {
      if (this.pinned.size <= PINNED_KEPT) return;
      this.pinned.delete(id);
      void loading.then(
        (snapshot) => snapshot?.retire(),
        () => {},
      );
    }
  }

  current(): LoadedSnapshot | null {
    return this.active;
  }

  /** Loads whatever CURRENT names, if it is not already served. */
  refresh(): Promise<void> {
    this.loading ??= this.loadCurrent().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  /** Polls CURRENT every `ms` milliseconds. */
  watch(ms: number): void {
    this.timer = setInterval(() => void this.refresh(), ms);
    this.timer.unref?.();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.active?.retire();
    this.active = null;
    for (const loading of this.pinned.values())
      void loading.then(
        (snapshot) => snapshot?.retire(),
        () => {},
      );
    this.pinned.clear();
  }

  private async loadCurrent(): Promise<void> {
    const id = readCurrent(this.dataDir);
    if (id === null || id === this.active?.id) return;
    if (!existsSync(join(snapshotDir(this.dataDir, id), "manifest.json"))) return;
    try {
      const next = await LoadedSnapshot.load(this.instance, this.dataDir, id);
      const previous = this.active;
      this.active = next;
      previous?.retire();
      this.log.info("snapshot activated", { snapshot: id });
    } catch (error) {
      this.log.error("snapshot load failed; still serving the previous one", {
        snapshot: id,
        error: String(error),
      });
    }
  }
}
