/**
 * The one module that imports @duckdb/node-api. DuckDB reads the snapshot's Parquet files on
 * the serving side and writes them on the import side.
 */
import {
  type DuckDBAppender,
  type DuckDBConnection,
  DuckDBInstance,
  type DuckDBResultReader,
  DuckDBTypeId,
  type DuckDBValue,
} from "@duckdb/node-api";

export type SqlParams = Record<string, DuckDBValue>;
export type Row = Record<string, unknown>;

/** A new in-process DuckDB. Without ICU loaded, DuckDB has no time zones: timestamps are UTC. */
export async function openDuckDb(): Promise<DuckDBInstance> {
  return DuckDBInstance.create(":memory:", { threads: "2" });
}

/** One DuckDB connection with row conversion to plain JSON-ready values. */
export class Db {
  private constructor(readonly conn: DuckDBConnection) {}

  static async connect(instance: DuckDBInstance): Promise<Db> {
    return new Db(await instance.connect());
  }

  async run(sql: string, params?: SqlParams): Promise<void> {
    await this.conn.run(sql, params);
  }

  /** Rows as plain objects: integers as numbers, DATE as `YYYY-MM-DD`, timestamps as ISO 8601. */
  async all<T = Row>(sql: string, params?: SqlParams): Promise<T[]> {
    return toRows(await this.conn.runAndReadAll(sql, params)) as T[];
  }

  async appender(table: string): Promise<DuckDBAppender> {
    return this.conn.createAppender(table);
  }

  close(): void {
    this.conn.closeSync();
  }
}

type Convert = (v: unknown) => unknown;

const asNumber: Convert = (v) => (typeof v === "bigint" ? Number(v) : v);
const asDate: Convert = (v) => (v instanceof Date ? v.toISOString().slice(0, 10) : v);
const asTimestamp: Convert = (v) => (v instanceof Date ? v.toISOString() : v);

function converterFor(typeId: DuckDBTypeId): Convert | null {
  switch (typeId) {
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.DECIMAL:
      return asNumber;
    case DuckDBTypeId.DATE:
      return asDate;
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_TZ:
    case DuckDBTypeId.TIMESTAMP_MS:
      return asTimestamp;
    default:
      return null;
  }
}

/**
 * DuckDB's own JSON helpers turn BIGINT into strings; API bodies need numbers (volumes and
 * share counts fit a double exactly below 2^53).
 */
function toRows(result: DuckDBResultReader): Row[] {
  const names = result.columnNames();
  const converters = result.columnTypes().map((t) => converterFor(t.typeId));
  const rows = result.getRowObjectsJS() as Row[];
  for (const row of rows) {
    for (const [i, convert] of converters.entries()) {
      if (!convert) continue;
      const name = names[i] as string;
      const value = row[name];
      if (value !== null && value !== undefined) row[name] = convert(value);
    }
  }
  return rows;
}
