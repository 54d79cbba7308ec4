/**
 * A snapshot's tables as whole files, Parquet and CSV, for DuckDB, pandas or a spreadsheet
 * (docs/api.md, "Exports"). The list is the snapshot's own: every table its manifest names
 * (so tables added to the format appear without a change here), a statement table once per
 * period type, and not the `derived` table (its documents' figures are the typed tables).
 *
 * A whole table's Parquet export is the snapshot's own file, served as it is. Any other file
 * (a statement's period type, any CSV) is made once, by DuckDB, from the snapshot's table:
 * written under a temporary name in `dir`, then renamed, so a reader never sees a partial
 * file. At most one file is made at a time in a process, and each once (single flight).
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { PeriodType } from "../domain/statements.ts";
import { isSnapshotId, snapshotDir } from "../snapshot/store.ts";
import type { TableName } from "../snapshot/tables.ts";
import type { LoadedSnapshot } from "./snapshot.ts";

export const EXPORT_FORMATS = ["parquet", "csv"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** One table of the export list. */
export interface ExportTable {
  /** Its name in the URL and the file name: the table's, or `<statement>_<period type>`. */
  readonly name: string;
  /** The snapshot table it is read from. */
  readonly table: string;
  /** The period type a statement's export holds; null for the whole table. */
  readonly periodType: PeriodType | null;
}

/** A file ready to be read: where it is, its size and its rows. */
export interface ExportFile {
  readonly path: string;
  readonly bytes: number;
  readonly rows: number;
}

/** Tables kept out of the list: the derived documents as JSON text (the typed tables hold their figures). */
const NOT_EXPORTED = new Set(["derived"]);
const STATEMENTS = new Set(["balance_sheet", "cash_flow_statement", "income_statement"]);
const PERIOD_TYPES: readonly PeriodType[] = ["annual", "quarterly", "ttm"];
/** A table name as the manifest may hold it and a URL may name it; anything else is never exported. */
const TABLE_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** The export list of a snapshot, by name. */
export function exportTables(snapshot: LoadedSnapshot): ExportTable[] {
  const tables: ExportTable[] = [];
  for (const table of Object.keys(snapshot.manifest.tables).sort()) {
    if (NOT_EXPORTED.has(table) || !TABLE_NAME.test(table)) continue;
    if (!STATEMENTS.has(table)) tables.push({ name: table, table, periodType: null });
    else
      for (const periodType of PERIOD_TYPES)
        tables.push({ name: `${table}_${periodType}`, table, periodType });
  }
  return tables;
}

/** The export of that name, or null: a name from a URL is only ever matched against the list. */
export function findExport(snapshot: LoadedSnapshot, name: string): ExportTable | null {
  return exportTables(snapshot).find((t) => t.name === name) ?? null;
}

/** Files made (or being made) by this process, by path: each once. */
const making = new Map<string, Promise<ExportFile>>();
/** The one file being made at a time: a chain of the makes in line. */
let line: Promise<unknown> = Promise.resolve();

/** Where made files go. */
export interface MadeFiles {
  /** The folder of the files made for the snapshot. */
  readonly dir: string;
  /** The server's cache: bound its folder (`dir`'s parent) to this many bytes after making a file (makeRoom). */
  readonly cacheBytes?: number;
}

/**
 * The file of an export, made into `made.dir` the first time (a whole table's Parquet is the
 * snapshot's own file, wherever that is).
 */
export async function exportFile(
  snapshot: LoadedSnapshot,
  table: ExportTable,
  format: ExportFormat,
  made: MadeFiles,
): Promise<ExportFile> {
  const entry = snapshot.manifest.tables[table.table as TableName];
  if (format === "parquet" && table.periodType === null && entry)
    return { path: join(snapshot.dir, entry.file), bytes: entry.bytes, rows: entry.rows };
  const path = join(made.dir, `${table.name}.${format}`);
  let pending = making.get(path);
  if (!pending) {
    pending = existingFile(snapshot, path).then(
      (file) =>
        file ??
        inLine(async () => {
          const file = await makeFile(snapshot, table, format, path);
          if (made.cacheBytes !== undefined) makeRoom(made.dir, made.cacheBytes, file.path);
          return file;
        }),
    );
    pending.catch(() => making.delete(path));
    making.set(path, pending);
  }
  const file = await pending;
  if (existsSync(file.path)) return file;
  // Removed since (the cache made room for another snapshot's): made again.
  making.delete(path);
  return exportFile(snapshot, table, format, made);
}

/** The server's folder of the files made for a snapshot: `DATA_DIR/exports/<id>`. */
export function exportCacheDir(snapshot: LoadedSnapshot): string {
  return join(dirname(dirname(snapshot.dir)), "exports", snapshot.id);
}

/** A file already made (by this process before, or by an earlier one), or null. */
async function existingFile(snapshot: LoadedSnapshot, path: string): Promise<ExportFile | null> {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return null;
  return { path, bytes: stat.size, rows: await rowsOf(snapshot, path) };
}

function inLine<T>(make: () => Promise<T>): Promise<T> {
  const next = line.then(make, make);
  line = next.catch(() => {});
  return next;
}

/** Writes the file under a temporary name, then renames it into place. */
async function makeFile(
  snapshot: LoadedSnapshot,
  table: ExportTable,
  format: ExportFormat,
  path: string,
): Promise<ExportFile> {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  try {
    const select = await selectSql(snapshot, table, format);
    const options =
      format === "parquet" ? "FORMAT parquet, COMPRESSION zstd" : "FORMAT csv, HEADER, NEW_LINE '\\r\\n'";
    // The table and column names come from the manifest and DuckDB's own description of the
    // snapshot's files, the period type from our list, the path from our data dir: no input.
    const [written] = await snapshot.all<{ Count: number }>(
      `COPY (${select}) TO ${literal(partial)} (${options})`,
    );
    renameSync(partial, path);
    return { path, bytes: statSync(path).size, rows: Number(written?.Count ?? 0) };
  } finally {
    rmSync(partial, { force: true });
  }
}

/**
 * The query of an export: the table's columns in order, its rows in the order the snapshot
 * holds them. For CSV, a text a spreadsheet would take for a formula (`=`, `+`, `-`, `@`, tab,
 * CR first, and no number) gets a `'` in front (as `format=csv` does, http/csv.ts), and a
 * timestamp is written as ISO 8601 in UTC, as the JSON answers write it.
 */
async function selectSql(
  snapshot: LoadedSnapshot,
  table: ExportTable,
  format: ExportFormat,
): Promise<string> {
  const where = table.periodType === null ? "" : ` WHERE period_type = ${literal(table.periodType)}`;
  if (format === "parquet") return `SELECT * FROM ${table.table}${where}`;
  const columns = await snapshot.all<{ column_name: string; column_type: string }>(
    `DESCRIBE SELECT * FROM ${table.table}`,
  );
  const select = columns.map(
    ({ column_name, column_type }) =>
      `${csvColumn(identifier(column_name), column_type)} AS ${identifier(column_name)}`,
  );
  return `SELECT ${select.join(", ")} FROM ${table.table}${where}`;
}

function csvColumn(column: string, type: string): string {
  if (type === "VARCHAR")
    return `CASE WHEN regexp_matches(${column}, '^[=+\\-@\\t\\r]') AND TRY_CAST(trim(${column}) AS DOUBLE) IS NULL THEN '''' || ${column} ELSE ${column} END`;
  if (type.startsWith("TIMESTAMP")) return `strftime(${column}, '%Y-%m-%dT%H:%M:%S.%gZ')`;
  return column;
}

/** The rows of a file made before: a Parquet file's from its footer, a CSV's counted. */
async function rowsOf(snapshot: LoadedSnapshot, path: string): Promise<number> {
  const sql = path.endsWith(".parquet")
    ? `SELECT coalesce(sum(num_rows), 0)::BIGINT AS n FROM parquet_file_metadata(${literal(path)})`
    : `SELECT count(*)::BIGINT AS n FROM read_csv(${literal(path)}, header = true, all_varchar = true)`;
  const [row] = await snapshot.all<{ n: number }>(sql);
  return Number(row?.n ?? 0);
}

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Keeps the export cache (`dir`'s parent: the files made for every snapshot, the active one's
 * too; not the snapshots' own Parquet files, served where they are) within `maxBytes` once
 * `made` was made: the folders of snapshots no longer on disk are removed, then, while the
 * cache holds more, made files one by one, other snapshots' before this one's, the least
 * recently made first; never `made` (needed now, even when it alone is larger) nor a file
 * still being written. A file being sent that goes fails its read, and the call is refunded
 * as undelivered; one asked for again is made again.
 */
function makeRoom(dir: string, maxBytes: number, made: string): void {
  const root = dirname(dir);
  const dataDir = dirname(root);
  const files: { path: string; bytes: number; mtime: number; other: boolean }[] = [];
  let total = 0;
  for (const name of readdirSync(root)) {
    const folder = join(root, name);
    if (
      folder !== dir &&
      (!isSnapshotId(name) || !existsSync(join(snapshotDir(dataDir, name), "manifest.json")))
    ) {
      rmSync(folder, { recursive: true, force: true });
      continue;
    }
    for (const file of readdirSync(folder)) {
      const path = join(folder, file);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      total += stat.size;
      if (path !== made && !file.endsWith(".partial"))
        files.push({ path, bytes: stat.size, mtime: stat.mtimeMs, other: folder !== dir });
    }
  }
  files.sort((a, b) => Number(b.other) - Number(a.other) || a.mtime - b.mtime);
  for (const file of files) {
    if (total <= maxBytes) break;
    rmSync(file.path, { force: true });
    total -= file.bytes;
  }
}
