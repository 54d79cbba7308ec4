/**
 * Writes zip archives at test and bench time: SEC-style bulk archives built from source files
 * (deflate, as the SEC's are), and hostile ones, whose headers say what a test needs them to
 * say (a wrong CRC, an encryption flag, another method, a size that lies, zip64 records).
 * Entries are written to the file one at a time; only the central directory is kept.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { crc32, deflateRawSync } from "node:zlib";

/** What an entry's headers say, where a test wants them to say something else. */
export interface EntryHeaders {
  /** General-purpose flags (1: encrypted). */
  flags?: number;
  /** The method written in the headers (the data is deflated for 8, stored otherwise). */
  method?: number;
  crc32?: number;
  /** The unpacked size the headers declare. */
  size?: number;
  /** Another name in the local header than in the central directory. */
  localName?: string;
  /** The central directory points at this earlier entry's local header instead (an overlap). */
  offsetOf?: string;
}

interface Written {
  name: Buffer;
  flags: number;
  method: number;
  crc32: number;
  compressedSize: number;
  size: number;
  offset: number;
}

const MAX32 = 0xffffffff;

export class ZipWriter {
  private readonly fd: number;
  private readonly entries: Written[] = [];
  private position = 0;

  /** `zip64` writes zip64 end records and zip64 sizes and offsets for every entry. */
  constructor(
    path: string,
    private readonly zip64 = false,
  ) {
    this.fd = openSync(path, "w");
  }

  /** Adds an entry: `data` deflated (or stored, for method 0). */
  add(name: string, data: Buffer | string, headers: EntryHeaders = {}): this {
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    const method = headers.method ?? 8;
    const packed = method === 8 ? deflateRawSync(bytes) : bytes;
    const entry: Written = {
      name: Buffer.from(name),
      flags: headers.flags ?? 0,
      method,
      crc32: headers.crc32 ?? crc32(bytes),
      compressedSize: packed.length,
      size: headers.size ?? bytes.length,
      offset: this.position,
    };
    const localName = Buffer.from(headers.localName ?? name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(this.zip64 ? 45 : 20, 4);
    local.writeUInt16LE(entry.flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(entry.crc32, 14);
    local.writeUInt32LE(this.zip64 ? MAX32 : entry.compressedSize, 18);
    local.writeUInt32LE(this.zip64 ? MAX32 : entry.size, 22);
    local.writeUInt16LE(localName.length, 26);
    const extra = this.zip64 ? zip64Extra([entry.size, entry.compressedSize]) : Buffer.alloc(0);
    local.writeUInt16LE(extra.length, 28);
    this.write(local, localName, extra, packed);
    if (headers.offsetOf !== undefined) {
      const earlier = this.entries.find((e) => e.name.toString() === headers.offsetOf);
      if (earlier) entry.offset = earlier.offset;
    }
    this.entries.push(entry);
    return this;
  }

  /** Writes the central directory and the end records, and closes the file. */
  close(): void {
    const start = this.position;
    for (const entry of this.entries) {
      const central = Buffer.alloc(46);
      central.writeUInt32LE(0x02014b50, 0);
      central.writeUInt16LE(0x031e, 4);
      central.writeUInt16LE(this.zip64 ? 45 : 20, 6);
      central.writeUInt16LE(entry.flags, 8);
      central.writeUInt16LE(entry.method, 10);
      central.writeUInt32LE(entry.crc32, 16);
      central.writeUInt32LE(this.zip64 ? MAX32 : entry.compressedSize, 20);
      central.writeUInt32LE(this.zip64 ? MAX32 : entry.size, 24);
      central.writeUInt16LE(entry.name.length, 28);
      const extra = this.zip64
        ? zip64Extra([entry.size, entry.compressedSize, entry.offset])
        : Buffer.alloc(0);
      central.writeUInt16LE(extra.length, 30);
      central.writeUInt32LE(0o100644 * 0x10000, 38);
      central.writeUInt32LE(this.zip64 ? MAX32 : entry.offset, 42);
      this.write(central, entry.name, extra);
    }
    const size = this.position - start;
    if (this.zip64) {
      const at = this.position;
      const record = Buffer.alloc(56);
      record.writeUInt32LE(0x06064b50, 0);
      record.writeBigUInt64LE(44n, 4);
      record.writeUInt16LE(45, 12);
      record.writeUInt16LE(45, 14);
      record.writeBigUInt64LE(BigInt(this.entries.length), 24);
      record.writeBigUInt64LE(BigInt(this.entries.length), 32);
      record.writeBigUInt64LE(BigInt(size), 40);
      record.writeBigUInt64LE(BigInt(start), 48);
      const locator = Buffer.alloc(20);
      locator.writeUInt32LE(0x07064b50, 0);
      locator.writeBigUInt64LE(BigInt(at), 8);
      locator.writeUInt32LE(1, 16);
      this.write(record, locator);
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    const count = this.zip64 ? 0xffff : this.entries.length;
    end.writeUInt16LE(count, 8);
    end.writeUInt16LE(count, 10);
    end.writeUInt32LE(this.zip64 ? MAX32 : size, 12);
    end.writeUInt32LE(this.zip64 ? MAX32 : start, 16);
    this.write(end);
    closeSync(this.fd);
  }

  private write(...parts: Buffer[]): void {
    for (const part of parts) {
      writeSync(this.fd, part);
      this.position += part.length;
    }
  }
}

/** A zip64 extra field holding these 8-byte values. */
function zip64Extra(values: number[]): Buffer {
  const extra = Buffer.alloc(4 + values.length * 8);
  extra.writeUInt16LE(0x0001, 0);
  extra.writeUInt16LE(values.length * 8, 2);
  values.forEach((value, i) => {
    extra.writeBigUInt64LE(BigInt(value), 4 + i * 8);
  });
  return extra;
}
