/**
 * One table being staged in the writer's DuckDB: rows are converted column by column into
 * typed buffers and appended a data chunk (2,048 rows) at a time, not one value at a time.
 */

import { toDayNumber } from "../../domain/dates.ts";
import type { Db, loadDuckDb } from "../../snapshot/duckdb.ts";
import { type Columns, type ColumnType, SNAPSHOT_TABLES, type TableName } from "../../snapshot/tables.ts";
import { isCalendarDate } from "../sources/value-readers.ts";
import { PRICE_VALUES, type PriceColumns, priceValue } from "./price-columns.ts";

type DuckDbApi = Awaited<ReturnType<typeof loadDuckDb>>;
type Appender = Awaited<ReturnType<Db["appender"]>>;
type DuckDbType = Parameters<DuckDbApi["DuckDBDataChunk"]["create"]>[0][number];

/** Rows per data chunk: DuckDB's vector size. */
const CHUNK_ROWS = 2048;

/** A value as its vector takes it, or REFUSED when it cannot be stored in its column's type. */
type Convert = (value: unknown) => unknown;
const REFUSED = Symbol("refused");

export class StagedTable {
  /** Rows appended in all. */
  rows = 0;
  /** Rows appended since the last spill. */
  pending = 0;
  /** Characters of text appended since the last spill (the derived table's rows are whole documents). */
  pendingChars = 0;
  readonly parts: string[] = [];
  private readonly columns: Columns;
  private readonly names: string[];
  private readonly types: DuckDbType[];
  private readonly converters: Convert[];
  private readonly buffers: unknown[][];

  constructor(
    private readonly table: TableName,
    private readonly api: DuckDbApi,
    private appender: Appender,
  ) {
    this.columns = SNAPSHOT_TABLES[table] as Columns;
    this.names = this.columns.map(([name]) => name);
    this.types = this.columns.map(([, type]) => stagedType(api, type));
    this.converters = this.columns.map(([, type]) => converter(type));
    this.buffers = this.columns.map(() => []);
  }

  /** Appends one row given as its values in the table's column order. */
  addValues(values: readonly unknown[]): void {
    for (let c = 0; c < this.names.length; c++) this.push(c, values[c]);
    this.endRow();
  }

  /** Appends one security's daily prices (to the `prices` table). */
  addPrices(securityId: string, prices: PriceColumns): void {
    const at = (col: string) => this.names.indexOf(col);
    const [id, date] = [at("security_id"), at("date")];
    const values = PRICE_VALUES.map((col) => [at(col), prices[col]] as const);
    for (let i = 0; i < prices.close.length; i++) {
      this.push(id, securityId);
      // The day number the worker computed from the parsed date for the serving files.
      (this.buffers[date] as unknown[]).push(prices.served.days[i]);
      for (const [c, column] of values) this.push(c, priceValue(column, i));
      this.endRow();
    }
  }

  /** Appends what is buffered and closes the appender (before the table is read). */
  close(): void {
    this.flushChunk();
    this.appender.closeSync();
  }

  /** After a spill to `part`: the table is empty again and appended through `appender`. */
  spilled(part: string, appender: Appender): void {
    this.parts.push(part);
    this.pending = 0;
    this.pendingChars = 0;
    this.appender = appender;
  }

  private push(c: number, value: unknown): void {
    const item = value === null || value === undefined ? null : (this.converters[c] as Convert)(value);
    if (item === REFUSED) {
      const [col, type] = this.columns[c] as Columns[number];
      throw new Error(`${this.table}.${col}: cannot store ${JSON.stringify(value)} as ${type}`);
    }
    if (typeof item === "string") this.pendingChars += item.length;
    (this.buffers[c] as unknown[]).push(item);
  }

  private endRow(): void {
    this.rows++;
    this.pending++;
    if ((this.buffers[0] as unknown[]).length === CHUNK_ROWS) this.flushChunk();
  }

  private flushChunk(): void {
    const size = (this.buffers[0] as unknown[]).length;
    if (size === 0) return;
    const chunk = this.api.DuckDBDataChunk.create(this.types, size);
    for (const [c, buffer] of this.buffers.entries()) {
      const vector = chunk.getColumnVector(c);
      const typed = TYPED.has((this.columns[c] as Columns[number])[1]) ? typedItems(vector) : null;
      for (let i = 0; i < size; i++) {
        const item = buffer[i];
        if (typed && item !== null) typed[i] = item as number & bigint;
        else vector.setItem(i, item as never);
      }
      vector.flush();
      buffer.length = 0;
    }
    this.appender.appendDataChunk(chunk);
  }
}

/** Timestamps are staged as text (cast when written out); every other type as itself. */
function stagedType(api: DuckDbApi, type: ColumnType): DuckDbType {
  const types: Record<ColumnType, DuckDbType> = {
    VARCHAR: api.VARCHAR,
    TIMESTAMP: api.VARCHAR,
    DATE: api.DATE,
    DOUBLE: api.DOUBLE,
    BIGINT: api.BIGINT,
    INTEGER: api.INTEGER,
    BOOLEAN: api.BOOLEAN,
  };
  return types[type];
}

/**
 * Column types whose vectors keep their items in a typed array (a DATE's is its day number).
 * Their values are written straight into it: @duckdb/node-api's `setItem` also marks every
 * item valid with BigInt arithmetic on the validity mask, which cost more than the rest of the
 * append together. Nulls still go through `setItem`, which clears their validity bit.
 */
const TYPED = new Set<ColumnType>(["DATE", "DOUBLE", "BIGINT", "INTEGER"]);

/** The typed storage of a vector of one of the TYPED types (not part of the package's typings). */
function typedItems(vector: unknown): { [i: number]: number | bigint } {
  return (vector as { items: { [i: number]: number | bigint } }).items;
}

function converter(type: ColumnType): Convert {
  switch (type) {
    case "VARCHAR":
    case "TIMESTAMP":
      return (v) => (typeof v === "string" ? v : REFUSED);
    case "DATE":
      return (v) => {
        const days = typeof v === "string" ? isoDateDays(v) : null;
        return days === null ? REFUSED : days;
      };
    case "DOUBLE":
      return (v) => (typeof v === "number" && Number.isFinite(v) ? v : REFUSED);
    case "BIGINT":
      return (v) => (typeof v === "number" && Number.isSafeInteger(v) ? BigInt(v) : REFUSED);
    case "INTEGER":
      return (v) => (typeof v === "number" && Number.isInteger(v) && Math.abs(v) <= INT32_MAX ? v : REFUSED);
    case "BOOLEAN":
      return (v) => (typeof v === "boolean" ? v : REFUSED);
  }
}

const INT32_MAX = 2 ** 31 - 1;
const ZERO = 48;
const DASH = 45;

/** Days since 1970-01-01 of a `YYYY-MM-DD` calendar date; null for anything else. */
function isoDateDays(s: string): number | null {
  if (s.length !== 10 || s.charCodeAt(4) !== DASH || s.charCodeAt(7) !== DASH) return null;
  const y = digitsAt(s, 0, 4);
  const m = digitsAt(s, 5, 7);
  const d = digitsAt(s, 8, 10);
  return isCalendarDate(y, m, d) ? toDayNumber(s) : null;
}

/** The decimal number written at `from` up to `to`; NaN unless all are digits. */
function digitsAt(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = s.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) return Number.NaN;
    n = n * 10 + d;
  }
  return n;
}
