import { createHash } from "node:crypto";
import { createReadStream, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SNAPSHOT_TABLES, TABLE_ORDER, type TableName } from "../domain/snapshot-tables.ts";
import { Db, openDuckDb } from "../query/duckdb.ts";
import {
  cleanStaging,
  type Manifest,
  newSnapshotId,
  snapshotDir,
  snapshotsDir,
  type TableEntry,
} from "../snapshots.ts";

export type TableRows = Partial<Record<TableName, Iterable<object>>>;

/**
 * Writes a complete snapshot: each table to Parquet in a staging directory, the manifest
 * last, then one rename into place. Nothing is activated here; an interrupted write leaves
 * only a staging directory, removed by the next import. `meta` is called after every row
 * was consumed, so it may report what the row iterators saw.
 */
export async function writeSnapshot(
  dataDir: string,
  tables: TableRows,
  meta: () => Omit<Manifest, "id" | "created_at" | "tables">,
): Promise<Manifest> {
  cleanStaging(dataDir);
  const id = newSnapshotId();
  const staging = join(snapshotsDir(dataDir), `.staging-${id}`);
  mkdirSync(staging, { recursive: true });
  const instance = await openDuckDb();
  const db = await Db.connect(instance);
  const entries: Partial<Record<TableName, TableEntry>> = {};
  try {
    for (const name of Object.keys(SNAPSHOT_TABLES) as TableName[]) {
      const rows = tables[name];
      if (rows) entries[name] = await writeTable(db, staging, name, rows);
    }
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  } finally {
    db.close();
    instance.closeSync();
  }
  const manifest: Manifest = { id, created_at: new Date().toISOString(), ...meta(), tables: entries };
  writeFileSync(join(staging, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(staging, snapshotDir(dataDir, id));
  return manifest;
}

/** Appends rows to a typed in-memory table, then copies it to `<name>.parquet`. */
async function writeTable(db: Db, dir: string, name: TableName, rows: Iterable<object>): Promise<TableEntry> {
  const columns = SNAPSHOT_TABLES[name];
  // Dates and timestamps are appended as text and cast on the way out.
  const staged = columns.map(
    ([col, type]) => `"${col}" ${type === "DATE" || type === "TIMESTAMP" ? "VARCHAR" : type}`,
  );
  await db.run(`CREATE OR REPLACE TABLE staged (${staged.join(", ")})`);
  const appender = await db.appender("staged");
  let count = 0;
  for (const row of rows) {
    const values = row as Record<string, unknown>;
    for (const [col, type] of columns) appendValue(appender, type, values[col], name, col);
    appender.endRow();
    count++;
  }
  appender.closeSync();
  const select = columns.map(([col, type]) =>
    type === "DATE" || type === "TIMESTAMP" ? `CAST("${col}" AS ${type}) AS "${col}"` : `"${col}"`,
  );
  const file = `${name}.parquet`;
  const path = join(dir, file);
  // `path` is ours (data dir + generated id), never caller input.
  await db.run(
    `COPY (SELECT ${select.join(", ")} FROM staged ORDER BY ${TABLE_ORDER[name]}) TO '${path.replaceAll("'", "''")}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 100000)`,
  );
  await db.run("DROP TABLE staged");
  return { file, rows: count, bytes: statSync(path).size, sha256: await sha256File(path) };
}

type Appender = Awaited<ReturnType<Db["appender"]>>;

function appendValue(appender: Appender, type: string, value: unknown, table: string, col: string): void {
  if (value === null || value === undefined) appender.appendNull();
  else if (type === "DOUBLE" && typeof value === "number" && Number.isFinite(value))
    appender.appendDouble(value);
  else if (type === "BIGINT" && typeof value === "number" && Number.isSafeInteger(value))
    appender.appendBigInt(BigInt(value));
  else if (type === "INTEGER" && typeof value === "number" && Number.isInteger(value))
    appender.appendInteger(value);
  else if (type === "BOOLEAN" && typeof value === "boolean") appender.appendBoolean(value);
  else if ((type === "VARCHAR" || type === "DATE" || type === "TIMESTAMP") && typeof value === "string")
    appender.appendVarchar(value);
  else throw new Error(`${table}.${col}: cannot store ${JSON.stringify(value)} as ${type}`);
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
