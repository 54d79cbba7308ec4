/**
 * Reads SEC bulk archives (`edgar/companyfacts.zip`, `edgar/submissions.zip`) entry by entry,
 * straight from the file: the central directory is listed once, and each entry is read at its
 * offset, inflated in memory and checked (size, CRC-32) when it is wanted. Nothing is unpacked
 * to disk, and at most one entry per reader is held unpacked.
 *
 * Every byte of an archive is untrusted: the listing is bounded (entry count, directory size,
 * total unpacked size), entries must not overlap, and an entry is refused when it is encrypted,
 * uses another method than stored or deflate, declares or unpacks to more than
 * `ZIP_LIMITS.entryBytes`, unpacks to another size than it declares, or fails its CRC-32.
 * Zip64 archives (more than 65,535 entries, as submissions.zip has) are read; multi-disk
 * archives are not. docs/sources.md states the limits.
 */
import { readSync } from "node:fs";
import { crc32, inflateRawSync } from "node:zlib";
import { ImportError } from "./errors.ts";

/** What an archive may hold; over any of them it is refused. */
export const ZIP_LIMITS = {
  /** submissions.zip lists ~990,000 entries (2026); listing a million takes ~600 MB for a moment. */
  entries: 2_000_000,
  /** The central directory's bytes (about 80 per entry). */
  directoryBytes: 256 * 1024 * 1024,
  /** One entry unpacked: the cap of a companyfacts or submissions file read from a directory. */
  entryBytes: 256 * 1024 * 1024,
  /** The entries read from one archive, unpacked (companyfacts.zip unpacks to ~20 GB). */
  totalBytes: 256 * 1024 * 1024 * 1024,
};

/** One entry, as the central directory lists it. */
export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  crc32: number;
  compressedSize: number;
  size: number;
  /** Where its local header starts. */
  offset: number;
  /** Where the next entry (or the central directory) starts: its bytes must end before. */
  end: number;
}

/** A listing: the entries kept, and the names of those `keep` turned down. */
export interface ZipListing {
  entries: ZipEntry[];
  skipped: string[];
}

const EOCD = 0x06054b50;
const EOCD64 = 0x06064b50;
const EOCD64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const EOCD_BYTES = 22;
const CENTRAL_BYTES = 46;
const LOCAL_BYTES = 30;
const MAX_COMMENT = 0xffff;
const ZIP64_EXTRA = 0x0001;
const STORED = 0;
const DEFLATED = 8;
/** General-purpose flags: encrypted, strong encryption, encrypted central directory. */
const ENCRYPTION_FLAGS = 0x0001 | 0x0040 | 0x2000;
const UTF8_FLAG = 0x0800;
const AES_METHOD = 99;

/**
 * Lists the entries of the archive open as `fd` (`size` bytes), named `label` in errors.
 * Entries whose name `keep` rejects are listed by name only; the kept ones count towards
 * the total unpacked size. Throws ImportError on anything a sound archive does not hold.
 */
export function listZip(
  fd: number,
  size: number,
  label: string,
  keep: (name: string) => boolean,
): ZipListing {
  const fail = (message: string) => new ImportError(label, null, message);
  const directory = locateDirectory(fd, size, fail);
  if (directory.entries > ZIP_LIMITS.entries)
    throw fail(`lists ${directory.entries} entries, over the limit of ${ZIP_LIMITS.entries}`);
  if (directory.bytes > ZIP_LIMITS.directoryBytes)
    throw fail(
      `its central directory of ${directory.bytes} bytes is over the limit of ${ZIP_LIMITS.directoryBytes}`,
    );
  const bytes = readAt(fd, directory.offset, directory.bytes, fail);
  const all: ZipEntry[] = [];
  const names = new Set<string>();
  let at = 0;
  for (let i = 0; i < directory.entries; i++) {
    const entry = centralEntry(bytes, at, fail);
    at = entry.next;
    if (names.has(entry.entry.name)) throw fail(`entry ${shownName(entry.entry.name)} is listed twice`);
    names.add(entry.entry.name);
    all.push(entry.entry);
  }
  if (at !== bytes.length) throw fail("its central directory holds more than the entries it counts");
  boundEntries(all, directory.offset, fail);
  const listing: ZipListing = { entries: [], skipped: [] };
  let total = 0;
  for (const entry of all) {
    if (!keep(entry.name)) {
      listing.skipped.push(entry.name);
      continue;
    }
    total += entry.size;
    if (total > ZIP_LIMITS.totalBytes)
      throw fail(`its entries unpack to more than the limit of ${ZIP_LIMITS.totalBytes} bytes`);
    listing.entries.push(entry);
  }
  return listing;
}

/**
 * One entry's bytes, unpacked and checked, from the archive open as `fd`; `label` names the
 * entry in errors (`edgar/companyfacts.zip/CIK0000320193.json`).
 */
export function readZipEntry(fd: number, entry: ZipEntry, label: string): Buffer {
  const fail = (message: string) => new ImportError(label, null, message);
  if ((entry.flags & ENCRYPTION_FLAGS) !== 0 || entry.method === AES_METHOD) throw fail("is encrypted");
  if (entry.method !== STORED && entry.method !== DEFLATED)
    throw fail(`uses compression method ${entry.method} (only stored and deflate are read)`);
  if (entry.size > ZIP_LIMITS.entryBytes)
    throw fail(`unpacks to ${entry.size} bytes, over the limit of ${ZIP_LIMITS.entryBytes}`);
  if (entry.compressedSize > ZIP_LIMITS.entryBytes)
    throw fail(`is ${entry.compressedSize} bytes packed, over the limit of ${ZIP_LIMITS.entryBytes}`);
  if (entry.method === STORED && entry.compressedSize !== entry.size)
    throw fail("is stored, but its packed and unpacked sizes differ");
  const header = readAt(fd, entry.offset, LOCAL_BYTES, fail);
  if (header.readUInt32LE(0) !== LOCAL) throw fail("has no local header where the central directory puts it");
  const localFlags = header.readUInt16LE(6);
  if ((localFlags & ENCRYPTION_FLAGS) !== 0) throw fail("is encrypted");
  if (header.readUInt16LE(8) !== entry.method)
    throw fail("its local header names another compression method");
  const nameBytes = header.readUInt16LE(26);
  const dataStart = entry.offset + LOCAL_BYTES + nameBytes + header.readUInt16LE(28);
  if (dataStart + entry.compressedSize > entry.end)
    throw fail("its data runs into the next entry or the central directory");
  const localName = readAt(fd, entry.offset + LOCAL_BYTES, nameBytes, fail);
  if (decodeName(localName, localFlags) !== entry.name) throw fail("its local header names another entry");
  const packed = readAt(fd, dataStart, entry.compressedSize, fail);
  const data = entry.method === STORED ? packed : inflate(packed, entry.size, fail);
  if (data.length !== entry.size)
    throw fail(`unpacks to ${data.length} bytes, not the ${entry.size} it declares`);
  if (crc32(data) !== entry.crc32) throw fail("fails its CRC-32 check (the archive is damaged)");
  return data;
}

/** `packed` inflated, refused as soon as it unpacks past `size` (a bomb that lies about its size). */
function inflate(packed: Buffer, size: number, fail: (message: string) => ImportError): Buffer {
  try {
    // One byte over the declared size tells a lie from an exact fit.
    return inflateRawSync(packed, { maxOutputLength: size + 1 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ERR_BUFFER_TOO_LARGE") throw fail(`unpacks to more than the ${size} bytes it declares`);
    throw fail(`cannot be unpacked (${error instanceof Error ? error.message : String(error)})`);
  }
}

interface Directory {
  offset: number;
  bytes: number;
  entries: number;
}

/** The central directory's place and size, from the end record (and its zip64 form). */
function locateDirectory(fd: number, size: number, fail: (message: string) => ImportError): Directory {
  const notZip = "has no end-of-archive record: it is no zip archive, or it is cut short";
  if (size < EOCD_BYTES) throw fail(notZip);
  const tailStart = Math.max(0, size - EOCD_BYTES - MAX_COMMENT);
  const tail = readAt(fd, tailStart, size - tailStart, fail);
  let end = -1;
  // The record whose comment runs exactly to the end of the file: a comment holding the
  // signature cannot pass for it.
  for (let i = tail.length - EOCD_BYTES; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD && i + EOCD_BYTES + tail.readUInt16LE(i + 20) === tail.length) {
      end = i;
      break;
    }
  }
  if (end < 0) throw fail(notZip);
  const record = tail.subarray(end);
  const endAt = tailStart + end;
  const disk = record.readUInt16LE(4);
  const directoryDisk = record.readUInt16LE(6);
  const onDisk = record.readUInt16LE(8);
  const directory: Directory = {
    entries: record.readUInt16LE(10),
    bytes: record.readUInt32LE(12),
    offset: record.readUInt32LE(16),
  };
  let directoryEnd = endAt;
  if (directory.entries === 0xffff || directory.bytes === 0xffffffff || directory.offset === 0xffffffff) {
    const zip64 = zip64Directory(fd, endAt, fail);
    Object.assign(directory, zip64.directory);
    directoryEnd = zip64.at;
  } else if (disk !== 0 || directoryDisk !== 0 || onDisk !== directory.entries) {
    throw fail("spans several disks, which is not read");
  }
  if (directory.offset + directory.bytes !== directoryEnd)
    throw fail("its central directory is not where its end record puts it (cut short, or data before it)");
  return directory;
}

/** The zip64 end record that the locator just before the end record points at. */
function zip64Directory(
  fd: number,
  endAt: number,
  fail: (message: string) => ImportError,
): { directory: Directory; at: number } {
  const locatorAt = endAt - 20;
  if (locatorAt < 0) throw fail("its end record asks for a zip64 record that is not there");
  const locator = readAt(fd, locatorAt, 20, fail);
  if (locator.readUInt32LE(0) !== EOCD64_LOCATOR)
    throw fail("its end record asks for a zip64 record that is not there");
  if (locator.readUInt32LE(4) !== 0 || locator.readUInt32LE(16) > 1)
    throw fail("spans several disks, which is not read");
  const at = bigToNumber(locator.readBigUInt64LE(8), fail);
  if (at + 56 > locatorAt) throw fail("its zip64 end record lies outside the archive");
  const record = readAt(fd, at, 56, fail);
  if (record.readUInt32LE(0) !== EOCD64) throw fail("has no zip64 end record where its locator points");
  if (record.readUInt32LE(16) !== 0 || record.readUInt32LE(20) !== 0)
    throw fail("spans several disks, which is not read");
  const entries = bigToNumber(record.readBigUInt64LE(32), fail);
  if (bigToNumber(record.readBigUInt64LE(24), fail) !== entries)
    throw fail("spans several disks, which is not read");
  return {
    directory: {
      entries,
      bytes: bigToNumber(record.readBigUInt64LE(40), fail),
      offset: bigToNumber(record.readBigUInt64LE(48), fail),
    },
    at,
  };
}

/** The central directory entry at `at`, and where the next one starts. */
function centralEntry(
  bytes: Buffer,
  at: number,
  fail: (message: string) => ImportError,
): { entry: ZipEntry; next: number } {
  if (at + CENTRAL_BYTES > bytes.length || bytes.readUInt32LE(at) !== CENTRAL)
    throw fail("its central directory is damaged (an entry is missing or cut short)");
  const flags = bytes.readUInt16LE(at + 8);
  const nameBytes = bytes.readUInt16LE(at + 28);
  const extraBytes = bytes.readUInt16LE(at + 30);
  const next = at + CENTRAL_BYTES + nameBytes + extraBytes + bytes.readUInt16LE(at + 32);
  if (next > bytes.length) throw fail("its central directory is damaged (an entry runs past its end)");
  const name = decodeName(bytes.subarray(at + CENTRAL_BYTES, at + CENTRAL_BYTES + nameBytes), flags);
  const entry: ZipEntry = {
    name,
    method: bytes.readUInt16LE(at + 10),
    flags,
    crc32: bytes.readUInt32LE(at + 16),
    compressedSize: bytes.readUInt32LE(at + 20),
    size: bytes.readUInt32LE(at + 24),
    offset: bytes.readUInt32LE(at + 42),
    end: 0,
  };
  if (bytes.readUInt16LE(at + 34) !== 0) throw fail("spans several disks, which is not read");
  const extraAt = at + CENTRAL_BYTES + nameBytes;
  applyZip64(entry, bytes.subarray(extraAt, extraAt + extraBytes), fail);
  return { entry, next };
}

/**
 * Replaces the fields a zip64 entry marks 0xFFFFFFFF by those of its zip64 extra field, in
 * the order the format gives them (size, packed size, offset).
 */
function applyZip64(entry: ZipEntry, extra: Buffer, fail: (message: string) => ImportError): void {
  const wide = (["size", "compressedSize", "offset"] as const).filter((field) => entry[field] === 0xffffffff);
  if (wide.length === 0) return;
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (id === ZIP64_EXTRA) {
      if (length < wide.length * 8 || at + 4 + length > extra.length)
        throw fail(`entry ${shownName(entry.name)} has a short zip64 field`);
      wide.forEach((field, i) => {
        entry[field] = bigToNumber(extra.readBigUInt64LE(at + 4 + i * 8), fail);
      });
      return;
    }
    at += 4 + length;
  }
  throw fail(`entry ${shownName(entry.name)} lacks the zip64 field its sizes ask for`);
}

/**
 * Gives each entry the end of its span (the next entry's start, or the central directory's)
 * and refuses entries that share a start or begin inside the directory: no byte is read as
 * part of two entries, so no small archive unpacks to many copies of one payload.
 */
function boundEntries(
  entries: ZipEntry[],
  directoryAt: number,
  fail: (message: string) => ImportError,
): void {
  const byOffset = entries.toSorted((a, b) => a.offset - b.offset);
  byOffset.forEach((entry, i) => {
    const next = byOffset[i + 1];
    entry.end = next ? next.offset : directoryAt;
    if (entry.offset + LOCAL_BYTES > entry.end)
      throw fail(
        next
          ? `entries ${shownName(entry.name)} and ${shownName(next.name)} overlap`
          : `entry ${shownName(entry.name)} starts inside the central directory`,
      );
  });
}

/** An entry name: UTF-8 when its flag says so, else the bytes as Latin-1 (names that matter are ASCII). */
function decodeName(bytes: Buffer, flags: number): string {
  return bytes.toString((flags & UTF8_FLAG) !== 0 ? "utf8" : "latin1");
}

/** An entry name as printed: quoted, control characters escaped. */
export function shownName(name: string): string {
  return JSON.stringify(name.length > 200 ? `${name.slice(0, 200)}…` : name);
}

function bigToNumber(value: bigint, fail: (message: string) => ImportError): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw fail("holds an offset or size past what is read");
  return Number(value);
}

/** Exactly `length` bytes at `position`; fewer means the archive is cut short. */
function readAt(
  fd: number,
  position: number,
  length: number,
  fail: (message: string) => ImportError,
): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const n = readSync(fd, buffer, read, length - read, position + read);
    if (n === 0) throw fail("is cut short");
    read += n;
  }
  return buffer;
}
