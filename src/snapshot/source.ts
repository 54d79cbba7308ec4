/**
 * A snapshot source: where an importer publishes snapshots and replicas pull them from
 * (docs/scale-out.md). `dir:/path` is a directory (a shared mount); `s3://bucket/prefix` an
 * S3-compatible bucket through Bun's S3 client, which takes its endpoint, region and
 * credentials from S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (or the
 * AWS_ ones): they are never part of the source's name, so never logged. Both hold the same
 * keys: `snapshots/<id>/<file>` and the `CURRENT` pointer.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  copyFileSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { dirname, isAbsolute, join, normalize } from "node:path";
import { withDeadline } from "../deadline.ts";

/** Where a source is, as parsed from its name. */
export type SourceSpec = { kind: "dir"; path: string } | { kind: "s3"; bucket: string; prefix: string };

/** S3 bucket names: 3–63 lower-case letters, digits, dots and dashes. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** Prefix segments: letters, digits and `._-` (no `..`, no empty segment). */
const PREFIX_SEGMENT = /^[\w.-]{1,100}$/;

/**
 * Parses `dir:/absolute/path` or `s3://bucket[/prefix]`; throws an Error saying what is
 * expected. Credentials in the name (`s3://key:secret@bucket`) are refused: they belong in
 * the environment, where logs never see them.
 */
export function parseSnapshotSource(text: string): SourceSpec {
  if (text.startsWith("dir:")) {
    const path = text.slice("dir:".length);
    if (!isAbsolute(path)) throw new Error("expected dir:/absolute/path");
    return { kind: "dir", path: normalize(path).replace(/(.)\/+$/, "$1") };
  }
  const s3 = /^s3:\/\/([^/]*)(?:\/(.*))?$/.exec(text);
  if (s3) {
    const [, bucket = "", rest = ""] = s3;
    if (bucket.includes("@") || bucket.includes(":"))
      throw new Error("credentials do not go in the source: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY");
    if (!BUCKET.test(bucket)) throw new Error("expected s3://bucket/prefix with a valid bucket name");
    const segments = rest.split("/").filter((s) => s !== "");
    if (segments.some((s) => !PREFIX_SEGMENT.test(s) || s === "." || s === ".."))
      throw new Error("expected a prefix of letters, digits, '.', '_' and '-' segments");
    return { kind: "s3", bucket, prefix: segments.join("/") };
  }
  throw new Error("expected dir:/path or s3://bucket/prefix");
}

/** The source's name as shown in logs and messages (no credentials ever). */
function sourceName(spec: SourceSpec): string {
  return spec.kind === "dir"
    ? `dir:${spec.path}`
    : `s3://${spec.bucket}${spec.prefix ? `/${spec.prefix}` : ""}`;
}

/** One file received: its byte count and SHA-256 (hex). */
export interface Received {
  bytes: number;
  sha256: string;
}

/** The bounds of one read or download. */
export interface DownloadLimits {
  maxBytes: number;
  idleMs: number;
  signal: AbortSignal;
}

/** The operations publishing and following need; keys are relative (`snapshots/<id>/<file>`, `CURRENT`). */
export interface SnapshotSource {
  readonly name: string;
  /**
   * An object's whole content, or null when there is none; throws past `maxBytes` (having read
   * at most one byte more), after `idleMs` without an answer, or once `signal` aborts.
   */
  read(key: string, limits: DownloadLimits): Promise<Uint8Array | null>;
  /** An object's size, or null when there is none. */
  size(key: string): Promise<number | null>;
  /**
   * Streams an object into `path`, failing past `maxBytes`, after `idleMs` without a byte, or
   * once `signal` aborts.
   */
  download(key: string, path: string, limits: DownloadLimits): Promise<Received>;
  /** Stores a local file under `key`; a reader sees the old object or the whole new one. */
  upload(key: string, path: string): Promise<void>;
  /** Stores `bytes` under `key`, whole or not at all. */
  write(key: string, bytes: Uint8Array): Promise<void>;
}

/** The source a spec names. */
export function openSnapshotSource(spec: SourceSpec): SnapshotSource {
  return spec.kind === "dir" ? new DirSource(spec.path) : new S3Source(spec.bucket, spec.prefix);
}

/** A directory: each write goes to a temporary file renamed over the key (atomic on one filesystem). */
class DirSource implements SnapshotSource {
  readonly name: string;

  constructor(private readonly root: string) {
    this.name = sourceName({ kind: "dir", path: root });
  }

  read(key: string, limits: DownloadLimits): Promise<Uint8Array | null> {
    return readBounded(`${this.name}/${key}`, Bun.file(this.path(key)), limits);
  }

  async size(key: string): Promise<number | null> {
    return statSync(this.path(key), { throwIfNoEntry: false })?.size ?? null;
  }

  download(key: string, path: string, limits: DownloadLimits): Promise<Received> {
    return receive(`${this.name}/${key}`, Bun.file(this.path(key)).stream(), path, limits);
  }

  async upload(key: string, path: string): Promise<void> {
    this.replace(key, (tmp) => copyFileSync(path, tmp));
  }

  async write(key: string, bytes: Uint8Array): Promise<void> {
    this.replace(key, (tmp) => {
      const fd = openSync(tmp, "w");
      try {
        writeAll(fd, bytes);
      } finally {
        closeSync(fd);
      }
    });
  }

  private replace(key: string, fill: (tmp: string) => void): void {
    const target = this.path(key);
    mkdirSync(dirname(target), { recursive: true });
    const tmp = `${target}.${process.pid}.tmp`;
    try {
      fill(tmp);
      renameSync(tmp, target);
    } catch (error) {
      rmSync(tmp, { force: true });
      throw error;
    }
  }

  private path(key: string): string {
    return join(this.root, key);
  }
}

/** An S3-compatible bucket (path-style requests, which MinIO and other servers expect by default). */
class S3Source implements SnapshotSource {
  readonly name: string;
  private readonly client: Bun.S3Client;

  constructor(
    bucket: string,
    private readonly prefix: string,
  ) {
    this.name = sourceName({ kind: "s3", bucket, prefix });
    this.client = new Bun.S3Client({ bucket });
  }

  read(key: string, limits: DownloadLimits): Promise<Uint8Array | null> {
    return readBounded(`${this.name}/${key}`, this.client.file(this.key(key)), limits);
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await this.client.file(this.key(key)).stat()).size;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  download(key: string, path: string, limits: DownloadLimits): Promise<Received> {
    return receive(`${this.name}/${key}`, this.client.file(this.key(key)).stream(), path, limits);
  }

  async upload(key: string, path: string): Promise<void> {
    await this.client.file(this.key(key)).write(Bun.file(path));
  }

  async write(key: string, bytes: Uint8Array): Promise<void> {
    await this.client.file(this.key(key)).write(bytes);
  }

  private key(key: string): string {
    return this.prefix ? `${this.prefix}/${key}` : key;
  }
}

/** Bun's S3 errors name a missing object NoSuchKey (a GET) or NotFound (a HEAD). */
function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "NoSuchKey" || code === "NotFound" || code === "ENOENT";
}

/**
 * The first `maxBytes + 1` bytes of a file or an object (a ranged read: an object replaced by
 * a larger one, or a special file, is never read whole), under the same idle timeout and stop
 * signal as a download; null when it does not exist.
 */
async function readBounded(
  name: string,
  file: { slice(start: number, end: number): { bytes(): Promise<Uint8Array> } },
  { maxBytes, idleMs, signal }: DownloadLimits,
): Promise<Uint8Array | null> {
  let bytes: Uint8Array;
  try {
    bytes = await idle(file.slice(0, maxBytes + 1).bytes(), idleMs, signal, name);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
  if (bytes.byteLength > maxBytes) throw new Error(`${name}: larger than ${maxBytes} bytes`);
  return bytes;
}

/**
 * Writes a stream to `path` while hashing it: fails once more than `maxBytes` arrive (a
 * larger object than the manifest says is never kept whole), when no byte comes for `idleMs`
 * (a stalled connection fails instead of holding the pull forever) or when `signal` aborts.
 */
async function receive(
  name: string,
  stream: ReadableStream<Uint8Array>,
  path: string,
  { maxBytes, idleMs, signal }: DownloadLimits,
): Promise<Received> {
  const reader = stream.getReader();
  const hash = createHash("sha256");
  const fd = openSync(path, "w");
  let bytes = 0;
  try {
    for (;;) {
      const chunk = await idle(reader.read(), idleMs, signal, name);
      if (chunk.done) break;
      bytes += chunk.value.byteLength;
      if (bytes > maxBytes) throw new Error(`${name}: more than the ${maxBytes} bytes the manifest says`);
      hash.update(chunk.value);
      writeAll(fd, chunk.value);
    }
    // On the disk before the caller renames the folder it is in into place.
    fsyncSync(fd);
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw isMissing(error) ? new Error(`${name}: missing`) : error;
  } finally {
    closeSync(fd);
  }
  return { bytes, sha256: hash.digest("hex") };
}

/** Writes all of `bytes` (one write may take fewer). */
export function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.byteLength; ) at += writeSync(fd, bytes, at);
}

/** `read`, or an error after `ms` without an answer or once `signal` aborts. */
function idle<T>(read: Promise<T>, ms: number, signal: AbortSignal, name: string): Promise<T> {
  return withDeadline(read, ms, () => new Error(`${name}: no data for ${ms} ms`), {
    signal,
    stopped: () => new Error(`${name}: stopped`),
  });
}
