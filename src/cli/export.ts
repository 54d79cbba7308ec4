import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Config } from "../config.ts";
import { EXPORT_FORMATS, type ExportFormat, exportFile, exportTables } from "../query/exports.ts";
import { LoadedSnapshot } from "../query/snapshot.ts";
import { openDuckDb } from "../snapshot/duckdb.ts";
import { isSnapshotId, listSnapshotIds, readCurrent } from "../snapshot/store.ts";
import { Flags, type Io, type ParsedArgs, printResult, UsageError } from "./args.ts";

/**
 * `export --to DIR [--tables A,B] [--format parquet|csv] [--snapshot ID] [--json]`: writes the
 * files `GET /exports/{name}.{format}` serves, made the same way, for the active snapshot (or
 * the one named): every table of the export list, or those named. Never overwrites a file.
 */
export async function exportCommand(args: ParsedArgs, config: Config, io: Io): Promise<number> {
  const flags = new Flags(args, ["to", "tables", "format", "snapshot"]);
  const to = resolve(flags.required("to"));
  const format = flags.string("format") ?? "parquet";
  if (!(EXPORT_FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--format must be ${EXPORT_FORMATS.join(" or ")}, got "${format}"`);
  const id = snapshotOf(config.dataDir, flags.string("snapshot"));
  const instance = await openDuckDb();
  const snapshot = await LoadedSnapshot.load(instance, config.dataDir, id);
  try {
    const tables = chosenTables(exportTables(snapshot), flags.string("tables"));
    for (const table of tables) {
      const path = join(to, `${table.name}.${format}`);
      if (existsSync(path)) throw new UsageError(`${path} exists; export into a folder without it`);
    }
    mkdirSync(to, { recursive: true });
    const files = [];
    for (const table of tables) {
      const file = await exportFile(snapshot, table, format as ExportFormat, { dir: to });
      const path = join(to, `${table.name}.${format}`);
      // A whole table's Parquet export is the snapshot's own file: copied, under a temporary name first.
      if (dirname(file.path) !== to) copyInto(file.path, path);
      files.push({ name: table.name, format, path, rows: file.rows, bytes: file.bytes });
    }
    printResult(
      io,
      flags.bool("json"),
      { snapshot_id: id, files },
      files.map((f) => `wrote ${f.path} (${f.rows} rows, ${f.bytes} bytes)`),
    );
    return 0;
  } finally {
    snapshot.retire();
  }
}

/** The snapshot to export: the one named (it must be on disk), else the active one. */
function snapshotOf(dataDir: string, named: string | undefined): string {
  if (named !== undefined) {
    if (!isSnapshotId(named) || !listSnapshotIds(dataDir).includes(named))
      throw new UsageError(`no snapshot ${named} in ${dataDir} (stockd snapshots list)`);
    return named;
  }
  const current = readCurrent(dataDir);
  if (current === null) throw new UsageError(`no active snapshot in ${dataDir}: import one first`);
  return current;
}

/** The tables `--tables` names (each must be in the list), or all of them. */
function chosenTables<T extends { name: string }>(all: T[], named: string | undefined): T[] {
  if (named === undefined) return all;
  return named.split(",").map((name) => {
    const table = all.find((t) => t.name === name.trim());
    if (!table)
      throw new UsageError(
        `no table "${name.trim()}" to export; the tables: ${all.map((t) => t.name).join(", ")}`,
      );
    return table;
  });
}

function copyInto(from: string, to: string): void {
  const partial = `${to}.${process.pid}.partial`;
  try {
    copyFileSync(from, partial);
    renameSync(partial, to);
  } finally {
    rmSync(partial, { force: true });
  }
}
