import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { toDayNumber } from "../domain/dates.ts";
import {
  PRICE_DAYS_FILE,
  PRICE_INDEX_FILE,
  PRICE_OFFSETS_FILE,
  PRICE_TEXT_FILE,
  type PriceIndex,
} from "../snapshot/price-layout.ts";

const OPEN = new TextEncoder().encode("[");
const CLOSE = new TextEncoder().encode("]");
const EMPTY = new TextEncoder().encode("[]");

/** A file mapped into memory, or an empty array (mmap of an empty file fails). */
function mapped(path: string): Uint8Array {
  return existsSync(path) && statSync(path).size > 0 ? Bun.mmap(path) : new Uint8Array(0);
}

/**
 * A snapshot's daily prices, memory-mapped (see snapshot/price-layout.ts): only the pages a call
 * reads are loaded, and the operating system shares them with the page cache.
 */
export class PriceStore {
  private constructor(
    private readonly text: Uint8Array,
    private readonly days: Int32Array,
    private readonly offsets: Float64Array,
    private readonly index: PriceIndex,
  ) {}

  /** The snapshot's price files, or an empty store when it has no prices. */
  static open(dir: string): PriceStore {
    const text = mapped(join(dir, PRICE_TEXT_FILE));
    const days = mapped(join(dir, PRICE_DAYS_FILE));
    const offsets = mapped(join(dir, PRICE_OFFSETS_FILE));
    const indexPath = join(dir, PRICE_INDEX_FILE);
    const index = existsSync(indexPath) ? (JSON.parse(readFileSync(indexPath, "utf8")) as PriceIndex) : {};
    return new PriceStore(
      text,
      new Int32Array(days.buffer, days.byteOffset, days.byteLength / 4),
      new Float64Array(offsets.buffer, offsets.byteOffset, offsets.byteLength / 8),
      index,
    );
  }

  has(securityId: string): boolean {
    return securityId in this.index;
  }

  /**
   * The JSON array of one security's rows with dates in [start, end], ascending; `[]` when
   * none, in pieces: the brackets and a view of the mapped rows, copied only where the
   * response is written (http/body.ts).
   */
  window(securityId: string, start: string, end: string): Uint8Array[] {
    const slot = this.index[securityId];
    if (!slot) return [EMPTY];
    const [first, count] = slot;
    const from = this.lowerBound(first, count, toDayNumber(start));
    const to = this.lowerBound(first, count, toDayNumber(end) + 1);
    if (from === to) return [EMPTY];
    // The rows' text without the comma after the last one, between brackets.
    const begin = this.offsets[from] as number;
    const stop = (this.offsets[to] as number) - 1;
    return [OPEN, this.text.subarray(begin, stop), CLOSE];
  }

  /** The first row in [first, first + count) whose day is ≥ `day`. */
  private lowerBound(first: number, count: number, day: number): number {
    let lo = first;
    let hi = first + count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.days[mid] as number) < day) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
