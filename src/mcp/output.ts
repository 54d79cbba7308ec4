import { createHash } from "node:crypto";
import { isSnapshotId } from "../snapshot/store.ts";

/**
 * The largest serialized tool result, in bytes (~8k tokens): under the 25,000-token limit
 * some clients put on a tool result. Past it, a series is cut and continued by a cursor.
 */
export const MAX_RESULT_BYTES = 32 * 1024;

/** A series as tool results carry it: the column names once, then one array of values per row. */
export interface Columnar {
  columns: string[];
  rows: unknown[][];
}

/** What every tool result carries beside its data. */
export interface Meta {
  /** The snapshot the data was read from; null for answers that read none (the account). */
  snapshot_id: string | null;
  /** The last market date in that snapshot, when it is the active one. */
  data_as_of: string | null;
  /** False when a cursor kept reading a snapshot that a newer import has replaced since. */
  snapshot_active: boolean;
  rows_returned: number | null;
  rows_total: number | null;
  /** True when the series was cut to stay under the byte cap; `next_cursor` continues it. */
  truncated: boolean;
  next_cursor: string | null;
  credits_charged: number;
  credits_remaining: number | null;
  hint?: string;
}

/** The rows of a series, if the value is one: an array whose items are all plain objects. */
function objectRows(value: unknown): Record<string, unknown>[] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  return value.every((row) => row !== null && typeof row === "object" && !Array.isArray(row))
    ? (value as Record<string, unknown>[])
    : null;
}

/**
 * Rows of objects as one table: the columns of the first row, then the others' in order of
 * appearance. Plain loops, without a closure per row and per value: this runs on every series
 * a tool returns (a year of daily prices is 1,500 values).
 */
export function toColumnar(rows: readonly Record<string, unknown>[]): Columnar {
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const row of rows)
    for (const name in row)
      if (!seen.has(name)) {
        seen.add(name);
        columns.push(name);
      }
  const width = columns.length;
  const table: unknown[][] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as Record<string, unknown>;
    const values: unknown[] = new Array(width);
    for (let c = 0; c < width; c++) values[c] = row[columns[c] as string] ?? null;
    table[r] = values;
  }
  return { columns, rows: table };
}

/** Back from a table to rows of objects (what the REST API answers): the tests' way to compare. */
export function fromColumnar(table: Columnar): Record<string, unknown>[] {
  return table.rows.map((values) => Object.fromEntries(table.columns.map((name, i) => [name, values[i]])));
}

/**
 * A REST body as a tool's data: a series of objects (the whole body, or a top-level field
 * holding one) becomes a table; the rest is as the REST API answers it. Returns the data and
 * where its series is (null: the whole data; a field name; undefined: none).
 */
export function shapeBody(body: unknown): { data: unknown; series: string | null | undefined } {
  const whole = objectRows(body);
  if (whole) return { data: toColumnar(whole), series: null };
  if (body === null || typeof body !== "object" || Array.isArray(body))
    return { data: body, series: undefined };
  const data: Record<string, unknown> = {};
  let series: string | undefined;
  for (const [name, value] of Object.entries(body)) {
    const rows = series === undefined ? objectRows(value) : null;
    if (rows) series = name;
    data[name] = rows ? toColumnar(rows) : value;
  }
  return { data, series };
}

/** What a cursor holds: the call it continues (tool and arguments) and where, in which snapshot. */
interface CursorState {
  snapshot: string;
  tool: string;
  args: string;
  offset: number;
}

/** A short digest of a call's arguments other than its cursor, in a stable order. */
export function argsDigest(args: Record<string, unknown>): string {
  const kept = Object.keys(args)
    .filter((name) => name !== "cursor")
    .sort()
    .map((name) => [name, args[name]]);
  return createHash("sha256").update(JSON.stringify(kept)).digest("base64url").slice(0, 16);
}

export function encodeCursor(state: CursorState): string {
  const text = JSON.stringify([state.snapshot, state.tool, state.args, state.offset]);
  return Buffer.from(text).toString("base64url");
}

/** A cursor's state, or null for a value that is no cursor of ours. */
export function decodeCursor(cursor: string): CursorState | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 4) return null;
    const [snapshot, tool, args, offset] = value as unknown[];
    if (typeof snapshot !== "string" || !isSnapshotId(snapshot)) return null;
    if (typeof tool !== "string" || typeof args !== "string") return null;
    if (typeof offset !== "number" || !Number.isSafeInteger(offset) || offset < 1) return null;
    return { snapshot, tool, args, offset };
  } catch {
    return null;
  }
}

const byteLength = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/**
 * The part of a table from `offset` that fits, with the rest of the payload, in the byte cap:
 * at least one row. Returns the rows kept and whether rows are left after them.
 */
export function fitRows(
  table: Columnar,
  offset: number,
  payloadWithoutRows: unknown,
  cap = MAX_RESULT_BYTES,
): { rows: unknown[][]; more: boolean } {
  // The cursor, the counts and the hint the meta block gains once the rows are cut.
  let room = cap - byteLength(payloadWithoutRows) - 400;
  let end = offset;
  while (end < table.rows.length) {
    room -= byteLength(table.rows[end]) + 1;
    if (room < 0 && end > offset) break;
    end++;
  }
  return { rows: table.rows.slice(offset, end), more: end < table.rows.length };
}
