import { closeSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import {
  dayNumber,
  PRICE_FILE,
  PRICE_INDEX_FILE,
  PRICE_RECORD,
  type PriceIndex,
} from "../domain/price-file.ts";
import type { PriceRow } from "./sources/prices.ts";

/** Writes the serving price file (see domain/price-file.ts) one security at a time. */
export class PriceFileWriter {
  private readonly fd: number;
  private readonly index: PriceIndex = {};
  private rows = 0;

  constructor(readonly dir: string) {
    this.fd = openSync(join(dir, PRICE_FILE), "w");
  }

  /** Appends one security's rows (ascending by date); a security is written once. */
  add(securityId: string, rows: readonly PriceRow[]): void {
    if (rows.length === 0) return;
    if (securityId in this.index) throw new Error(`prices of ${securityId} written twice`);
    const records = new Float64Array(rows.length * PRICE_RECORD);
    rows.forEach((row, i) => {
      const at = i * PRICE_RECORD;
      records[at] = dayNumber(row.date);
      records[at + 1] = row.open ?? Number.NaN;
      records[at + 2] = row.high ?? Number.NaN;
      records[at + 3] = row.low ?? Number.NaN;
      records[at + 4] = row.close;
      records[at + 5] = row.volume ?? Number.NaN;
    });
    writeSync(this.fd, new Uint8Array(records.buffer));
    this.index[securityId] = [this.rows, rows.length];
    this.rows += rows.length;
  }

  /** Closes the file and writes the index; returns the two file names and the row count. */
  finish(): { files: string[]; rows: number } {
    closeSync(this.fd);
    writeFileSync(join(this.dir, PRICE_INDEX_FILE), JSON.stringify(this.index));
    return { files: [PRICE_FILE, PRICE_INDEX_FILE], rows: this.rows };
  }

  abort(): void {
    try {
      closeSync(this.fd);
    } catch {
      // Already closed by finish.
    }
  }
}
