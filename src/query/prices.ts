import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  dateOfDay,
  dayNumber,
  PRICE_FILE,
  PRICE_INDEX_FILE,
  PRICE_RECORD,
  type PriceIndex,
} from "../domain/price-file.ts";

/** One daily row as served (spec §2.17). */
export interface DailyPrice {
  date: string;
  open: number | null;
  close: number;
  high: number | null;
  low: number | null;
  volume: number | null;
}

/**
 * A snapshot's daily prices, memory-mapped (see domain/price-file.ts): only the pages a call
 * reads are loaded, and the operating system shares them with the page cache.
 */
export class PriceStore {
  private constructor(
    private readonly records: Float64Array,
    private readonly index: PriceIndex,
  ) {}

  /** The snapshot's price file, or an empty store when it has no prices. */
  static open(dir: string): PriceStore {
    const path = join(dir, PRICE_FILE);
    // mmap of an empty file fails: a snapshot without prices has an empty price file.
    if (!existsSync(path) || statSync(path).size === 0) return new PriceStore(new Float64Array(0), {});
    const bytes = Bun.mmap(path);
    const records = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
    const index = JSON.parse(readFileSync(join(dir, PRICE_INDEX_FILE), "utf8")) as PriceIndex;
    return new PriceStore(records, index);
  }

  has(securityId: string): boolean {
    return securityId in this.index;
  }

  /** Rows of one security with dates in [start, end], ascending; empty when none. */
  range(securityId: string, start: string, end: string): DailyPrice[] {
    const slot = this.index[securityId];
    if (!slot) return [];
    const [first, count] = slot;
    const from = this.lowerBound(first, count, dayNumber(start));
    const to = this.lowerBound(first, count, dayNumber(end) + 1);
    const rows: DailyPrice[] = [];
    for (let row = from; row < to; row++) rows.push(this.row(row));
    return rows;
  }

  /** The first row in [first, first + count) whose day is ≥ `day`. */
  private lowerBound(first: number, count: number, day: number): number {
    let lo = first;
    let hi = first + count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.records[mid * PRICE_RECORD] as number) < day) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private row(row: number): DailyPrice {
    const at = row * PRICE_RECORD;
    const r = this.records;
    const orNull = (v: number) => (Number.isNaN(v) ? null : v);
    return {
      date: dateOfDay(r[at] as number),
      open: orNull(r[at + 1] as number),
      close: r[at + 4] as number,
      high: orNull(r[at + 2] as number),
      low: orNull(r[at + 3] as number),
      volume: orNull(r[at + 5] as number),
    };
  }
}
