import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Db, loadDuckDb, openDuckDb } from "../../snapshot/duckdb.ts";
import {
  cleanStaging,
  type Manifest,
  newSnapshotId,
  sha256File,
  snapshotDir,
  snapshotsDir,
  stagingName,
  type TableEntry,
} from "../../snapshot/store.ts";
import {
  type Columns,
  SNAPSHOT_TABLES,
  TABLE_ORDER,
  type TableName,
  tableValues,
} from "../../snapshot/tables.ts";
import type { PriceColumns } from "./price-columns.ts";
import { PriceFileWriter } from "./price-file.ts";
import { StagedTable } from "./staged-table.ts";
import { writeTypedTables } from "./typed-tables.ts";

/** Rows, or characters of text, a staged table holds before it is spilled to a Parquet part (bounds memory). */
const SPILL_ROWS = 1_000_000;
const SPILL_CHARS = 128_000_000;

/**
 * Tables whose rows are whole JSON documents (the derived table's): written in row groups of
 * 2,048 rows instead of 100,000, and sorted on one thread: two threads' sort buffers of such
 * rows overflow the memory cap.
 */
const DOCUMENT_TABLES = new Set<TableName>(["derived"]);

/**
 * Writes one snapshot: rows are appended per table (several tables at once, so the importer
 * can stream each source file once), spilled to Parquet parts in a staging directory, and on
 * `finish` each table becomes one sorted Parquet file, the manifest is written last, and the
 * staging directory is renamed into place. Nothing is activated here. `abort` (or a crash)
 * leaves at most a staging directory, which the next import removes.
 */
export class SnapshotWriter {
  private readonly staged = new Map<TableName, StagedTable>();
  private closed = false;
  private readonly prices: PriceFileWriter;

  private constructor(
    private readonly dataDir: string,
    readonly id: string,
    private readonly dir: string,
    private readonly instance: Awaited<ReturnType<typeof openDuckDb>>,
    private readonly db: Db,
  ) {
    this.prices = new PriceFileWriter(dir);
  }

  static async open(dataDir: string): Promise<SnapshotWriter> {
    cleanStaging(dataDir);
    const id = newSnapshotId();
    const dir = join(snapshotsDir(dataDir), stagingName(id));
    mkdirSync(dir, { recursive: true });
    const instance = await openDuckDb();
    const db = await Db.connect(instance);
    // Bounded memory: DuckDB spills its sorts to the staging directory instead of growing.
    // 2 GB: a 5,000-company import fails at 1 GB (sorting the derived table's large bodies).
    await db.run(`SET memory_limit = '2GB'`);
    await db.run(`SET temp_directory = ${literal(join(dir, ".tmp"))}`);
    return new SnapshotWriter(dataDir, id, dir, instance, db);
  }

  /** Appends one security's daily prices (ascending) to the table and to the serving price file. */
  async appendPrices(securityId: string, prices: PriceColumns): Promise<void> {
    const staged = this.staged.get("prices") ?? (await this.stage("prices"));
    staged.addPrices(securityId, prices);
    this.prices.add(securityId, prices.served);
    await this.spillIfFull("prices", staged);
  }

  /** Appends rows (objects keyed by column name) to a table; may spill to disk. */
  async append(table: TableName, rows: Iterable<object>): Promise<void> {
    await this.appendValues(table, tableValues(table, rows));
  }

  /** Appends rows given as their values in the table's column order; may spill to disk. */
  async appendValues(table: TableName, rows: readonly (readonly unknown[])[]): Promise<void> {
    const staged = this.staged.get(table) ?? (await this.stage(table));
    for (const values of rows) staged.addValues(values);
    await this.spillIfFull(table, staged);
  }

  /** Writes every table, then the manifest, then renames the snapshot into place. */
  async finish(meta: Omit<Manifest, "id" | "created_at" | "tables">): Promise<Manifest> {
    const tables: Partial<Record<TableName, TableEntry>> = {};
    const files: NonNullable<Manifest["files"]> = {};
    try {
      for (const [table, staged] of this.staged) tables[table] = await this.writeTable(table, staged);
      const entry = async (file: string, rows: number) => {
        const { bytes, sha256 } = await this.fileEntry(file);
        return { file, rows, bytes, sha256 };
      };
      Object.assign(tables, await writeTypedTables(this.db, this.dir, tables, entry));
      const prices = this.prices.finish();
      for (const file of prices.files) files[file] = await this.fileEntry(file);
    } catch (error) {
      this.abort();
      throw error;
    }
    this.close();
    rmSync(join(this.dir, ".tmp"), { recursive: true, force: true });
    const manifest: Manifest = { id: this.id, created_at: new Date().toISOString(), ...meta, tables, files };
    writeFileSync(join(this.dir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    renameSync(this.dir, snapshotDir(this.dataDir, this.id));
    return manifest;
  }

  /** Drops everything written so far. */
  abort(): void {
    this.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async fileEntry(file: string) {
    const path = join(this.dir, file);
    return { file, bytes: statSync(path).size, sha256: await sha256File(path) };
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.prices.abort();
    for (const staged of this.staged.values()) staged.close();
    this.db.close();
    this.instance.closeSync();
  }

  private async stage(table: TableName): Promise<StagedTable> {
    await this.createStaged(table);
    const staged = new StagedTable(table, await loadDuckDb(), await this.db.appender(`staged_${table}`));
    this.staged.set(table, staged);
    return staged;
  }

  /** Timestamps are staged as text and cast when written out. */
  private async createStaged(table: TableName): Promise<void> {
    const columns = SNAPSHOT_TABLES[table] as Columns;
    const defs = columns.map(([col, type]) => `"${col}" ${type === "TIMESTAMP" ? "VARCHAR" : type}`);
    await this.db.run(`CREATE TABLE staged_${table} (${defs.join(", ")})`);
  }

  private async spillIfFull(table: TableName, staged: StagedTable): Promise<void> {
    if (staged.pending >= SPILL_ROWS || staged.pendingChars >= SPILL_CHARS) await this.spill(table, staged);
  }

  private async spill(table: TableName, staged: StagedTable): Promise<void> {
    staged.close();
    const part = join(this.dir, `${table}.part${staged.parts.length}.parquet`);
    await this.db.run(
      `COPY (${castSelect(table)} FROM staged_${table}) TO ${literal(part)} (FORMAT parquet)`,
    );
    // Dropped, not emptied: an in-memory database never checkpoints, so deleted rows would
    // keep their memory until the end.
    await this.db.run(`DROP TABLE staged_${table}`);
    await this.createStaged(table);
    staged.spilled(part, await this.db.appender(`staged_${table}`));
  }

  private async writeTable(table: TableName, staged: StagedTable): Promise<TableEntry> {
    if (staged.pending > 0 || staged.parts.length === 0) await this.spill(table, staged);
    const file = `${table}.parquet`;
    const path = join(this.dir, file);
    const parts = `[${staged.parts.map(literal).join(", ")}]`;
    const documents = DOCUMENT_TABLES.has(table);
    if (documents) await this.db.run("SET threads = 1");
    await this.db.run(
      `COPY (SELECT * FROM read_parquet(${parts}) ORDER BY ${TABLE_ORDER[table]}) TO ${literal(path)}
       (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${documents ? 2048 : 100_000})`,
    );
    if (documents) await this.db.run("RESET threads");
    for (const part of staged.parts) rmSync(part);
    return { file, rows: staged.rows, bytes: statSync(path).size, sha256: await sha256File(path) };
  }
}

/** `SELECT` of a table's columns with the staged text timestamps cast back to their type. */
function castSelect(table: TableName): string {
  const columns = SNAPSHOT_TABLES[table] as Columns;
  const select = columns.map(([col, type]) =>
    type === "TIMESTAMP" ? `CAST("${col}" AS ${type}) AS "${col}"` : `"${col}"`,
  );
  return `SELECT ${select.join(", ")}`;
}

/** A SQL string literal of one of our own paths (data dir + generated id, never input). */
function literal(path: string): string {
  return `'${path.replaceAll("'", "''")}'`;
}
