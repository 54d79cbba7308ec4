import { closeSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { toDayNumber } from "../../domain/dates.ts";
import {
  PRICE_DAYS_FILE,
  PRICE_FILES,
  PRICE_INDEX_FILE,
  PRICE_OFFSETS_FILE,
  PRICE_TEXT_FILE,
  type PriceIndex,
  priceRowText,
} from "../../snapshot/price-layout.ts";
import type { PriceRow } from "../sources/price-rows.ts";

/** One security's rows as the serving files hold them: built on the company pass's threads. */
export interface SerializedPrices {
  /** Days since 1970-01-01, one per row. */
  days: Int32Array;
  /** Where each row's text starts in `text`. */
  offsets: Float64Array;
  /** Every row's JSON text, each followed by a comma; ASCII. */
  text: string;
}

/** Serialises ascending rows for `PriceFileWriter.add`. */
export function serializePrices(rows: readonly PriceRow[]): SerializedPrices {
  const days = new Int32Array(rows.length);
  const offsets = new Float64Array(rows.length);
  let text = "";
  for (const [i, row] of rows.entries()) {
    days[i] = toDayNumber(row.date);
    offsets[i] = text.length;
    text += `${priceRowText(row)},`;
  }
  return { days, offsets, text };
}

/** Writes the serving price files (see snapshot/price-layout.ts) one security at a time. */
export class PriceFileWriter {
  private readonly text: number;
  private readonly days: number;
  private readonly offsets: number;
  private readonly index: PriceIndex = {};
  private rows = 0;
  private bytes = 0;

  constructor(readonly dir: string) {
    this.text = openSync(join(dir, PRICE_TEXT_FILE), "w");
    this.days = openSync(join(dir, PRICE_DAYS_FILE), "w");
    this.offsets = openSync(join(dir, PRICE_OFFSETS_FILE), "w");
  }

  /** Appends one security's serialised rows (ascending by date); a security is written once. */
  add(securityId: string, prices: SerializedPrices): void {
    const { days, offsets, text } = prices;
    if (days.length === 0) return;
    if (securityId in this.index) throw new Error(`prices of ${securityId} written twice`);
    const absolute = new Float64Array(offsets.length);
    for (let i = 0; i < offsets.length; i++) absolute[i] = this.bytes + (offsets[i] as number);
    // Dates and numbers are ASCII: one character is one byte.
    writeSync(this.text, Buffer.from(text, "latin1"));
    writeSync(this.days, new Uint8Array(days.buffer, days.byteOffset, days.byteLength));
    writeSync(this.offsets, new Uint8Array(absolute.buffer));
    this.index[securityId] = [this.rows, days.length];
    this.rows += days.length;
    this.bytes += text.length;
  }

  /** Closes the files and writes the index; returns the file names and the row count. */
  finish(): { files: string[]; rows: number } {
    writeSync(this.offsets, new Uint8Array(new Float64Array([this.bytes]).buffer));
    this.close();
    writeFileSync(join(this.dir, PRICE_INDEX_FILE), JSON.stringify(this.index));
    return { files: PRICE_FILES, rows: this.rows };
  }

  abort(): void {
    try {
      this.close();
    } catch {
      // Already closed by finish.
    }
  }

  private close(): void {
    for (const fd of [this.text, this.days, this.offsets]) closeSync(fd);
  }
}
