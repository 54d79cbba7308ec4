/**
 * A serving layout for daily prices (prototype of a suggestion for src/): one binary file of
 * rows sorted by security and date, six float64 per row (epoch day, open, high, low, close,
 * volume; NaN for null), plus a JSON index `security_id → [first row, row count]`.
 * Written once from the snapshot's prices.parquet (at import, in the real thing); served
 * through `Bun.mmap`, so a start costs no load time and only touched pages become resident.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { DuckDBConnection } from "@duckdb/node-api";

const FIELDS = 6;
const DAY_MS = 86_400_000;

type Index = Record<string, [number, number]>;

/** Appends float64 rows to a file through a growable buffer. */
class RowWriter {
  private buffer = new Float64Array(FIELDS * 65_536);
  private used = 0;
  rows = 0;

  constructor(private readonly sink: ReturnType<ReturnType<typeof Bun.file>["writer"]>) {}

  push(values: readonly number[]): void {
    this.buffer.set(values, this.used);
    this.used += FIELDS;
    this.rows++;
    if (this.used === this.buffer.length) this.flush();
  }

  flush(): void {
    if (this.used === 0) return;
    this.sink.write(new Uint8Array(this.buffer.buffer, 0, this.used * 8).slice());
    this.used = 0;
  }
}

const number = (v: unknown): number => (v === null || v === undefined ? Number.NaN : Number(v));

/** Writes `<out>` and `<out>.json` from the prices of `parquet` (rows of a security contiguous). */
export async function writePriceFile(conn: DuckDBConnection, parquet: string, out: string): Promise<number> {
  const sql = `SELECT security_id, (date - DATE '1970-01-01')::INTEGER AS day, open, high, low, close,
    volume::DOUBLE AS volume FROM read_parquet('${parquet.replaceAll("'", "''")}')`;
  const result = await conn.stream(sql);
  const sink = Bun.file(out).writer();
  const writer = new RowWriter(sink);
  const index: Index = {};
  let current: string | null = null;
  let lastDay = -Infinity;
  for (
    let chunk = await result.fetchChunk();
    chunk && chunk.rowCount > 0;
    chunk = await result.fetchChunk()
  ) {
    const columns = chunk.getColumns();
    const ids = columns[0] as unknown[];
    for (let i = 0; i < chunk.rowCount; i++) {
      const id = String(ids[i]);
      const day = number(columns[1]?.[i]);
      if (id !== current) {
        if (index[id]) throw new Error(`prices of ${id} are not contiguous`);
        index[id] = [writer.rows, 0];
        current = id;
        lastDay = -Infinity;
      }
      if (day <= lastDay) throw new Error(`prices of ${id} are not in date order`);
      lastDay = day;
      writer.push([day, ...[2, 3, 4, 5, 6].map((c) => number(columns[c]?.[i]))]);
      (index[id] as [number, number])[1]++;
    }
  }
  writer.flush();
  await sink.end();
  writeFileSync(`${out}.json`, JSON.stringify(index));
  return writer.rows;
}

/** "YYYY-MM-DD" of an epoch day, memoised (a few thousand distinct days). */
const dateText: string[] = [];
function dateOf(day: number): string {
  let text = dateText[day];
  if (text === undefined) {
    text = new Date(day * DAY_MS).toISOString().slice(0, 10);
    dateText[day] = text;
  }
  return text;
}

const json = (v: number) => (Number.isNaN(v) ? "null" : String(v));

/** The memory-mapped price file: 1-year windows as JSON text without any query. */
export class PriceFile {
  private readonly rows: Float64Array;
  private readonly index: Map<string, [number, number]>;

  constructor(path: string) {
    if (!existsSync(path)) throw new Error(`${path} is missing`);
    const bytes = Bun.mmap(path, { shared: false });
    this.rows = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
    this.index = new Map(Object.entries(JSON.parse(readFileSync(`${path}.json`, "utf8")) as Index));
  }

  has(securityId: string): boolean {
    return this.index.has(securityId);
  }

  /** Every row (six float64 each), for building other layouts. */
  allRows(): Float64Array {
    return this.rows;
  }

  /** The rows of [startDay, endDay] as the JSON array the price endpoint returns. */
  window(securityId: string, startDay: number, endDay: number): string {
    const range = this.index.get(securityId);
    if (!range) return "[]";
    const [first, count] = range;
    let i = this.lowerBound(first, first + count, startDay);
    const parts: string[] = [];
    for (; i < first + count; i++) {
      const at = i * FIELDS;
      const day = this.rows[at] as number;
      if (day > endDay) break;
      const r = this.rows;
      parts.push(
        `{"date":"${dateOf(day)}","open":${json(r[at + 1] as number)},"close":${json(r[at + 4] as number)},"high":${json(r[at + 2] as number)},"low":${json(r[at + 3] as number)},"volume":${json(r[at + 5] as number)}}`,
      );
    }
    return `[${parts.join(",")}]`;
  }

  /** First row in [from, to) whose day is ≥ `day`. */
  private lowerBound(from: number, to: number, day: number): number {
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.rows[mid * FIELDS] as number) < day) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Epoch day of a valid `YYYY-MM-DD`, else null. */
export function epochDay(text: string | null): number | null {
  if (text === null || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const t = Date.parse(text);
  if (Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== text) return null;
  return t / DAY_MS;
}

/** `{"date":...,"volume":...},` — one row as the endpoint serialises it, with a trailing comma. */
function rowText(row: readonly number[]): string {
  const [day, open, high, low, close, volume] = row as [number, number, number, number, number, number];
  return `{"date":"${dateOf(day)}","open":${json(open)},"close":${json(close)},"high":${json(high)},"low":${json(low)},"volume":${json(volume)}},`;
}

/**
 * The pre-serialised variant: `<bin>.txt` holds every row's JSON text (from `<bin>`), `<bin>.days`
 * each row's epoch day (int32) and `<bin>.offsets` each row's start in the text (float64, one
 * extra at the end). A window is then a binary search and one copy, with no number formatting.
 */
export async function writePriceText(bin: string): Promise<void> {
  const rows = new PriceFile(bin).allRows();
  const count = rows.length / FIELDS;
  const days = new Int32Array(count);
  const offsets = new Float64Array(count + 1);
  const sink = Bun.file(`${bin}.txt`).writer();
  const encoder = new TextEncoder();
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const bytes = encoder.encode(rowText(Array.from(rows.subarray(i * FIELDS, (i + 1) * FIELDS))));
    days[i] = rows[i * FIELDS] as number;
    offsets[i] = offset;
    offset += bytes.length;
    sink.write(bytes);
  }
  offsets[count] = offset;
  await sink.end();
  await Bun.write(`${bin}.days`, days);
  await Bun.write(`${bin}.offsets`, offsets);
}

/** Windows of the pre-serialised text, memory-mapped. */
export class PriceText {
  private readonly text: Uint8Array;
  private readonly days: Int32Array;
  private readonly offsets: Float64Array;
  private readonly index: Map<string, [number, number]>;

  constructor(bin: string) {
    const map = (suffix: string) => Bun.mmap(`${bin}${suffix}`, { shared: false });
    this.text = map(".txt");
    const days = map(".days");
    this.days = new Int32Array(days.buffer, days.byteOffset, days.byteLength / 4);
    const offsets = map(".offsets");
    this.offsets = new Float64Array(offsets.buffer, offsets.byteOffset, offsets.byteLength / 8);
    this.index = new Map(Object.entries(JSON.parse(readFileSync(`${bin}.json`, "utf8")) as Index));
  }

  /** The JSON array of the rows in [startDay, endDay]. */
  window(securityId: string, startDay: number, endDay: number): Uint8Array {
    const range = this.index.get(securityId);
    if (!range) return new TextEncoder().encode("[]");
    const [first, count] = range;
    const from = this.bound(first, first + count, startDay);
    const to = this.bound(from, first + count, endDay + 1);
    if (from === to) return new TextEncoder().encode("[]");
    const start = this.offsets[from] as number;
    const end = (this.offsets[to] as number) - 1; // without the last row's comma
    const body = new Uint8Array(end - start + 2);
    body[0] = 0x5b;
    body.set(this.text.subarray(start, end), 1);
    body[body.length - 1] = 0x5d;
    return body;
  }

  /** First row in [from, to) whose day is ≥ `day`. */
  private bound(from: number, to: number, day: number): number {
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.days[mid] as number) < day) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
