import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Db, openDuckDb } from "../snapshot/duckdb.ts";
import {
  isSnapshotId,
  type Manifest,
  readManifest,
  snapshotDir,
  snapshotsDir,
  type TableEntry,
  tableFileProblem,
} from "../snapshot/store.ts";
import { type Finding, fail, ok, warn } from "./findings.ts";

/** Row count from the Parquet footer: DuckDB reads the metadata only, not the data. */
const PARQUET_ROWS = "SELECT coalesce(sum(num_rows), 0)::BIGINT AS n FROM parquet_file_metadata($path)";

/** The data dir exists, is a directory, and a file can be created in it. */
export function checkDataDir(dataDir: string): Finding[] {
  const stat = statSync(dataDir, { throwIfNoEntry: false });
  if (!stat) return [fail("data_dir", `data dir ${dataDir} does not exist`)];
  if (!stat.isDirectory()) return [fail("data_dir", `data dir ${dataDir} is not a directory`)];
  // A real write, not access(2): root passes access checks on read-only mounts.
  const probe = join(dataDir, `.doctor-${process.pid}.tmp`);
  try {
    writeFileSync(probe, "");
    return [ok("data_dir", `data dir ${dataDir} exists and is writable`)];
  } catch (error) {
    return [fail("data_dir", `data dir ${dataDir} is not writable: ${(error as Error).message}`)];
  } finally {
    rmSync(probe, { force: true });
  }
}

/** Staging directories left by an interrupted import (or belonging to one running now). */
export function checkStaging(dataDir: string): Finding[] {
  const dir = snapshotsDir(dataDir);
  const staging = existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith(".staging-")) : [];
  if (staging.length === 0) return [ok("staging", "no leftover staging directories")];
  return staging.map((name) =>
    warn(
      "staging",
      `${join(dir, name)}: left by an interrupted import (or one running now); the next import removes it`,
    ),
  );
}

/** CURRENT names a complete snapshot whose every table file matches the manifest. */
export async function checkActiveSnapshot(dataDir: string): Promise<Finding[]> {
  const current = readCurrentFile(dataDir);
  if (typeof current !== "string") return [current];
  const manifestPath = join(snapshotDir(dataDir, current), "manifest.json");
  if (!existsSync(manifestPath))
    return [
      fail("snapshot", `CURRENT names ${current}, but ${manifestPath} is missing (incomplete snapshot)`),
    ];
  let manifest: Manifest;
  try {
    manifest = readManifest(dataDir, current);
  } catch (error) {
    return [fail("snapshot", `${manifestPath}: unreadable: ${(error as Error).message}`)];
  }
  const problems = await checkTables(snapshotDir(dataDir, current), manifest);
  if (problems.length > 0) return problems;
  const tables = Object.keys(manifest.tables).length;
  return [ok("snapshot", `snapshot ${current}: ${tables} table files match the manifest (sha256, rows)`)];
}

/** The id in CURRENT, or the finding that says why there is none. */
function readCurrentFile(dataDir: string): string | Finding {
  const path = join(dataDir, "CURRENT");
  if (!existsSync(path))
    return fail("snapshot", `no active snapshot: ${path} is missing (run "stockd import" or "stockd demo")`);
  const id = readFileSync(path, "utf8").trim();
  if (!isSnapshotId(id))
    return fail("snapshot", `${path} does not hold a snapshot id: ${JSON.stringify(id.slice(0, 80))}`);
  return id;
}

async function checkTables(dir: string, manifest: Manifest): Promise<Finding[]> {
  const instance = await openDuckDb();
  const db = await Db.connect(instance);
  try {
    const problems: Finding[] = [];
    for (const [table, entry] of Object.entries(manifest.tables)) {
      const problem = await checkTable(db, dir, table, entry);
      if (problem) problems.push(fail("snapshot", problem));
    }
    // The files the server reads directly (the price file and its index): size and SHA-256.
    for (const [name, entry] of Object.entries(manifest.files ?? {})) {
      const problem = await tableFileProblem(dir, name, entry, true);
      if (problem) problems.push(fail("snapshot", problem));
    }
    return problems;
  } finally {
    db.close();
    instance.closeSync();
  }
}

/** What is wrong with one table file, or null when size, sha256 and row count all match. */
async function checkTable(db: Db, dir: string, table: string, entry: TableEntry): Promise<string | null> {
  const problem = await tableFileProblem(dir, table, entry, true);
  if (problem) return problem;
  const path = join(dir, entry.file);
  try {
    const [row] = await db.all<{ n: number }>(PARQUET_ROWS, { path });
    const rows = row?.n ?? 0;
    return rows === entry.rows ? null : `${path}: ${rows} rows, the manifest says ${entry.rows}`;
  } catch (error) {
    return `${path}: unreadable Parquet metadata: ${(error as Error).message}`;
  }
}
