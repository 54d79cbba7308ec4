/**
 * Publishing a snapshot of the data dir to a snapshot source (docs/scale-out.md): every file,
 * then the manifest, then the pointer. Until the pointer is written nothing a replica reads
 * has changed, so a publish that fails part-way moves nothing; publishing again writes the
 * same bytes under the same keys.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  encodePointer,
  MAX_MANIFEST_BYTES,
  POINTER_KEY,
  type PublishedFile,
  publishedFiles,
  snapshotKey,
} from "./published.ts";
import type { SnapshotSource } from "./source.ts";
import { isSnapshotId, listSnapshotIds, snapshotDir, verifySnapshot } from "./store.ts";

/** What a publish sent. */
export interface Published {
  id: string;
  source: string;
  files: number;
  bytes: number;
}

/**
 * Publishes snapshot `id` of `dataDir` to `source` and points the source's CURRENT at it.
 * The snapshot is checked first (every file's size and SHA-256, and the same manifest checks
 * a replica makes), so a damaged one is never published; each upload's size is read back
 * before the next step. Throws, with the pointer unchanged, on any failure.
 */
export async function publishSnapshot(
  dataDir: string,
  id: string,
  source: SnapshotSource,
  progress: (message: string) => void = () => {},
): Promise<Published> {
  if (!isSnapshotId(id) || !listSnapshotIds(dataDir).includes(id))
    throw new Error(`no snapshot ${id} in ${dataDir}`);
  progress(`checking snapshot ${id}`);
  const problems = await verifySnapshot(dataDir, id, true);
  if (problems.length > 0) throw new Error(`snapshot ${id} is damaged: ${problems.join("; ")}`);
  const dir = snapshotDir(dataDir, id);
  const manifest = readFileSync(join(dir, "manifest.json"));
  if (manifest.byteLength > MAX_MANIFEST_BYTES)
    throw new Error(`snapshot ${id}: manifest.json is larger than ${MAX_MANIFEST_BYTES} bytes`);
  const files = publishedFiles(JSON.parse(manifest.toString("utf8")), id);
  let sent = 0;
  for (const [i, file] of files.entries()) {
    progress(`uploading ${file.file} (${i + 1} of ${files.length}) to ${source.name}`);
    await upload(source, id, file, join(dir, file.file));
    sent += file.bytes;
  }
  const manifestEntry: PublishedFile = {
    file: "manifest.json",
    bytes: manifest.byteLength,
    sha256: createHash("sha256").update(manifest).digest("hex"),
  };
  await upload(source, id, manifestEntry, join(dir, "manifest.json"));
  await source.write(
    POINTER_KEY,
    encodePointer({ id, manifest_bytes: manifestEntry.bytes, manifest_sha256: manifestEntry.sha256 }),
  );
  return { id, source: source.name, files: files.length, bytes: sent + manifest.byteLength };
}

/** How long an upload's size may take to read back right (READ_BACK_TRIES looks, doubling waits). */
const READ_BACK_TRIES = 5;
const READ_BACK_FIRST_WAIT_MS = 100;

/**
 * Uploads one file and reads its size back: a short object is an error here, not on a
 * replica. Some S3-compatible servers answer a PUT before the object is whole on their disk
 * (s3rver does, under load), so a wrong size is read again a few times before it counts.
 */
async function upload(source: SnapshotSource, id: string, file: PublishedFile, path: string): Promise<void> {
  const key = snapshotKey(id, file.file);
  await source.upload(key, path);
  let size = await source.size(key);
  for (let i = 1; i < READ_BACK_TRIES && size !== file.bytes; i++) {
    await Bun.sleep(READ_BACK_FIRST_WAIT_MS * 2 ** (i - 1));
    size = await source.size(key);
  }
  if (size !== file.bytes)
    throw new Error(
      `${source.name}/${key}: ${size ?? "no"} bytes stored after the upload, expected ${file.bytes}`,
    );
}
