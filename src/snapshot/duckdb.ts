/**
 * The one module that imports @duckdb/node-api. DuckDB reads the snapshot's Parquet files on
 * the serving side and writes them on the import side.
 *
 * The package is loaded lazily (`loadDuckDb`) rather than imported at module scope: in the
 * compiled binary its native binding (`duckdb.node`) is unpacked to a temporary file and
 * cannot find the `libduckdb.so` it links against, so that library has to be loaded first.
 * Lazy loading also keeps `stockd --version`/`--help` from paying for DuckDB at all.
 */
import { dlopen } from "bun:ffi";
import { mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import type {
  DuckDBAppender,
  DuckDBConnection,
  DuckDBInstance,
  DuckDBResultReader,
  DuckDBTypeId,
  DuckDBValue,
} from "@duckdb/node-api";
import { VERSION } from "../version.ts";

export type { DuckDBInstance };
export type SqlParams = Record<string, DuckDBValue>;
export type Row = Record<string, unknown>;

type DuckDbApi = typeof import("@duckdb/node-api");

let loading: Promise<DuckDbApi> | null = null;

/** The @duckdb/node-api module, loaded once; in the compiled binary, after its native library. */
export function loadDuckDb(): Promise<DuckDbApi> {
  loading ??= (async () => {
    if (isCompiledBinary()) await loadEmbeddedLibDuckDb();
    return import("@duckdb/node-api");
  })();
  return loading;
}

/** A new in-process DuckDB. Without ICU loaded, DuckDB has no time zones: timestamps are UTC. */
export async function openDuckDb(): Promise<DuckDBInstance> {
  const { DuckDBInstance } = await loadDuckDb();
  return DuckDBInstance.create(":memory:", { threads: "2" });
}

/**
 * True inside a `bun build --compile` executable, whose modules live in Bun's embedded file
 * system. The build targets linux-x64 only, the one platform whose library is embedded.
 */
function isCompiledBinary(): boolean {
  return import.meta.path.startsWith("/$bunfs/") && process.platform === "linux" && process.arch === "x64";
}

/**
 * Writes the embedded libduckdb.so to disk (once per version: later starts reuse it) and
 * loads it. `duckdb.node` names it as a dependency (DT_NEEDED `libduckdb.so`); the dynamic
 * loader satisfies that from the already-loaded library with the same soname, wherever it is.
 */
async function loadEmbeddedLibDuckDb(): Promise<void> {
  // Resolved at build time and embedded; only reached in the binary (the package exists
  // only on linux-x64, so a checkout on another platform must never evaluate this import).
  const { default: embedded } = await import("@duckdb/node-bindings-linux-x64/libduckdb.so", {
    with: { type: "file" },
  });
  const cached = await copyToCache(embedded).catch(() => null);
  const path = cached ?? (await copyToPrivateTempDir(embedded));
  try {
    // bun:ffi wants at least one symbol. The handle is never closed (nor is it on GC): the
    // binding resolves its symbols into this library for the life of the process.
    dlopen(path, { duckdb_library_version: { args: [], returns: "cstring" } });
  } catch (error) {
    throw new Error(`cannot load ${path} (DuckDB needs glibc and libstdc++): ${String(error)}`);
  } finally {
    // A mapped library outlives its file: the temporary copy is not needed once loaded.
    if (!cached) rmSync(dirname(path), { recursive: true, force: true });
  }
}

/**
 * The library's path in the per-user cache (`$XDG_CACHE_HOME/stockd/<version>/`, else
 * `~/.cache/...`), copied there on the first start. The file name carries the content hash Bun
 * gave the embedded file, so another build never reuses a stale copy; it is written under a
 * temporary name and renamed, so a concurrent start never loads a partial one.
 */
async function copyToCache(embedded: string): Promise<string> {
  const dir = join(cacheRoot(), "stockd", VERSION);
  const path = join(dir, basename(embedded));
  if (statSync(path, { throwIfNoEntry: false })?.size === Bun.file(embedded).size) return path;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const partial = `${path}.${process.pid}.partial`;
  try {
    await Bun.write(partial, Bun.file(embedded));
    renameSync(partial, path);
    return path;
  } finally {
    rmSync(partial, { force: true });
  }
}

/**
 * Without a writable cache: a copy in a fresh mkdtemp dir (mode 0700; a fixed /tmp path could
 * be planted by another user), removed by the caller once loaded.
 */
async function copyToPrivateTempDir(embedded: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "stockd-duckdb-"));
  const path = join(dir, basename(embedded));
  try {
    await Bun.write(path, Bun.file(embedded));
    return path;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The XDG cache directory. Read here, not in config.ts: the library must be loadable before
 * (and independently of) any stockd setting, and this is a platform convention, not one.
 */
function cacheRoot(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  return xdg?.startsWith("/") ? xdg : join(homedir(), ".cache");
}

/** One DuckDB connection with row conversion to plain JSON-ready values. */
export class Db {
  private constructor(
    readonly conn: DuckDBConnection,
    private readonly converters: Converters,
  ) {}

  static async connect(instance: DuckDBInstance): Promise<Db> {
    const { DuckDBTypeId } = await loadDuckDb();
    return new Db(await instance.connect(), convertersFor(DuckDBTypeId));
  }

  async run(sql: string, params?: SqlParams): Promise<void> {
    await this.conn.run(sql, params);
  }

  /** Rows as plain objects: integers as numbers, DATE as `YYYY-MM-DD`, timestamps as ISO 8601. */
  async all<T = Row>(sql: string, params?: SqlParams): Promise<T[]> {
    return toRows(await this.conn.runAndReadAll(sql, params), this.converters) as T[];
  }

  async appender(table: string): Promise<DuckDBAppender> {
    return this.conn.createAppender(table);
  }

  close(): void {
    this.conn.closeSync();
  }
}

type Convert = (v: unknown) => unknown;
type Converters = ReadonlyMap<DuckDBTypeId, Convert>;

const asNumber: Convert = (v) => (typeof v === "bigint" ? Number(v) : v);
const asDate: Convert = (v) => (v instanceof Date ? v.toISOString().slice(0, 10) : v);
const asTimestamp: Convert = (v) => (v instanceof Date ? v.toISOString() : v);

/** Column types whose JS values need converting; the enum comes from the lazily loaded module. */
function convertersFor(id: DuckDbApi["DuckDBTypeId"]): Converters {
  return new Map<DuckDBTypeId, Convert>([
    [id.BIGINT, asNumber],
    [id.UBIGINT, asNumber],
    [id.HUGEINT, asNumber],
    [id.DECIMAL, asNumber],
    [id.DATE, asDate],
    [id.TIMESTAMP, asTimestamp],
    [id.TIMESTAMP_TZ, asTimestamp],
    [id.TIMESTAMP_MS, asTimestamp],
  ]);
}

/**
 * DuckDB's own JSON helpers turn BIGINT into strings; API bodies need numbers (volumes and
 * share counts fit a double exactly below 2^53).
 */
function toRows(result: DuckDBResultReader, converters: Converters): Row[] {
  const names = result.columnNames();
  const convert = result.columnTypes().map((t) => converters.get(t.typeId));
  const rows = result.getRowObjectsJS() as Row[];
  for (const row of rows) {
    for (const [i, fn] of convert.entries()) {
      if (!fn) continue;
      const name = names[i] as string;
      const value = row[name];
      if (value !== null && value !== undefined) row[name] = fn(value);
    }
  }
  return rows;
}
