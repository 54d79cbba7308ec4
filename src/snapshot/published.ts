/**
 * What a snapshot source holds (docs/scale-out.md): `snapshots/<id>/<file>` for each file
 * of a snapshot, `snapshots/<id>/manifest.json` (its manifest, which gives every file's size
 * and SHA-256), and `CURRENT`, the pointer, written last: the id and the manifest's own size
 * and SHA-256. A replica trusts nothing else: each byte it serves is checked against the
 * pointer, through the manifest.
 */
import { PRICE_FILES } from "./price-layout.ts";
import { isSnapshotId, type Manifest } from "./store.ts";
import { SNAPSHOT_TABLES } from "./tables.ts";

export const POINTER_KEY = "CURRENT";
/** A pointer is one short JSON object. */
export const MAX_POINTER_BYTES = 4096;
/** A manifest is a few KB (its import report lists at most a few hundred lines). */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
/** One file of a snapshot: far beyond any real one, and a bound on what a source can make a replica write. */
export const MAX_FILE_BYTES = 1024 ** 4;

/** The pointer's content. */
export interface Pointer {
  id: string;
  manifest_bytes: number;
  manifest_sha256: string;
}

/** One file to fetch: its name in the snapshot folder, size and SHA-256. */
export interface PublishedFile {
  file: string;
  bytes: number;
  sha256: string;
}

const SHA256 = /^[0-9a-f]{64}$/;

export function snapshotKey(id: string, file: string): string {
  return `snapshots/${id}/${file}`;
}

/** The pointer's bytes (identical for one snapshot, so publishing it again changes nothing). */
export function encodePointer(pointer: Pointer): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(pointer)}\n`);
}

/** Strict UTF-8 JSON from a source; throws `<where>: not <what>` otherwise. */
export function parseJsonBytes(bytes: Uint8Array, where: string, what = "JSON"): unknown {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new Error(`${where}: not ${what}`);
  }
}

/** Reads a pointer's bytes; throws naming what is wrong. */
export function parsePointer(bytes: Uint8Array, where: string): Pointer {
  const p = parseJsonBytes(bytes, where, "a snapshot pointer (JSON)") as Partial<Pointer> | null;
  if (
    typeof p !== "object" ||
    p === null ||
    typeof p.id !== "string" ||
    !isSnapshotId(p.id) ||
    !isByteCount(p.manifest_bytes, MAX_MANIFEST_BYTES) ||
    typeof p.manifest_sha256 !== "string" ||
    !SHA256.test(p.manifest_sha256)
  )
    throw new Error(`${where}: not a snapshot pointer (id, manifest_bytes, manifest_sha256)`);
  return { id: p.id, manifest_bytes: p.manifest_bytes, manifest_sha256: p.manifest_sha256 };
}

/**
 * The files a published manifest names, checked as hostile input: the id is the pointer's,
 * every file name is one a snapshot holds (`<table>.parquet` of a known table, the price
 * files), so never a path; sizes are bounded integers, hashes are SHA-256. Throws naming the
 * first problem.
 */
export function publishedFiles(manifest: unknown, id: string): PublishedFile[] {
  const m = manifest as Partial<Manifest> | null;
  const where = `manifest of ${id}`;
  if (typeof m !== "object" || m === null || Array.isArray(m)) throw new Error(`${where}: not a JSON object`);
  if (m.id !== id) throw new Error(`${where}: names snapshot ${JSON.stringify(m.id)}`);
  const files: PublishedFile[] = [];
  const entries = (group: "tables" | "files", allowed: (key: string) => string | null) => {
    const value = m[group];
    if (value === undefined && group === "files") return;
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new Error(`${where}: ${group} is not an object`);
    for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
      const e = entry as Partial<PublishedFile> | null;
      const expected = allowed(key);
      if (expected === null)
        throw new Error(`${where}: ${group}: ${JSON.stringify(key)} is not part of a snapshot`);
      if (typeof e !== "object" || e === null || e.file !== expected)
        throw new Error(`${where}: ${group}.${key}: the file must be ${JSON.stringify(expected)}`);
      if (!isByteCount(e.bytes, MAX_FILE_BYTES))
        throw new Error(`${where}: ${group}.${key}: bytes must be an integer from 0 to ${MAX_FILE_BYTES}`);
      if (typeof e.sha256 !== "string" || !SHA256.test(e.sha256))
        throw new Error(`${where}: ${group}.${key}: sha256 must be 64 hex digits`);
      files.push({ file: expected, bytes: e.bytes, sha256: e.sha256 });
    }
  };
  entries("tables", (key) => (Object.hasOwn(SNAPSHOT_TABLES, key) ? `${key}.parquet` : null));
  entries("files", (key) => (PRICE_FILES.includes(key) ? key : null));
  return files;
}

function isByteCount(value: unknown, max: number): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && value <= max;
}
