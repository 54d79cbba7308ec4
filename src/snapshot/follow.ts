/**
 * A replica following a snapshot source (docs/scale-out.md): it reads the source's pointer
 * every few seconds and, when it names a snapshot this replica does not serve, downloads it
 * into a staging directory, checks each file against the manifest and the manifest against
 * the pointer, renames it into place and activates it as `stockd snapshots activate` does.
 * Whatever fails (the source, a hash, a size, a hostile manifest, the disk) leaves the served
 * snapshot as it is; the next poll tries again.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statfsSync,
} from "node:fs";
import { join } from "node:path";
import type { Logger } from "../log.ts";
import type { SnapshotService } from "../query/snapshot.ts";
import {
  MAX_MANIFEST_BYTES,
  MAX_POINTER_BYTES,
  POINTER_KEY,
  type Pointer,
  parseJsonBytes,
  parsePointer,
  publishedFiles,
  snapshotKey,
} from "./published.ts";
import { type DownloadLimits, type SnapshotSource, writeAll } from "./source.ts";
import {
  activateSnapshot,
  cleanStaging,
  pruneSnapshots,
  readCurrent,
  removeSnapshot,
  sha256File,
  snapshotDir,
  snapshotsDir,
  stagingName,
  verifySnapshot,
} from "./store.ts";

/**
 * What /health (no key needed) says of the source: neither its name nor why a pull failed,
 * which name buckets, paths and free space; those are in the log.
 */
export interface FollowStatus {
  /** The snapshot the source's pointer named at the last look (null: nothing published). */
  published: string | null;
  /** The snapshot being downloaded now, if any. */
  pulling: string | null;
  /** True when the last look or pull failed; false once one succeeds. */
  failed: boolean;
  /** When the pointer was last read. */
  checked_at: string | null;
}

export interface FollowOptions {
  /** How often the pointer is read. */
  pollMs: number;
  /** Complete snapshots kept in the data dir, the active one included. */
  keep: number;
  /** A download fails after this long without a byte. */
  idleMs?: number;
}

const DEFAULT_IDLE_MS = 30_000;

export class SnapshotFollower {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<void> | null = null;
  private readonly stopping = new AbortController();
  /** Snapshots this process pulled or checked whole: not hashed again on every poll. */
  private readonly verified = new Set<string>();
  /**
   * The pointer whose snapshot was pulled whole but did not load, and why: it is not activated
   * again (each try would switch CURRENT and fail) until the pointer changes.
   */
  private failed: { pointer: string; error: string } | null = null;
  private state: FollowStatus;
  /** Why the last look or pull failed (logged once at warn, then at debug while it repeats). */
  private lastError: string | null = null;

  constructor(
    private readonly source: SnapshotSource,
    private readonly dataDir: string,
    private readonly snapshots: SnapshotService,
    private readonly log: Logger,
    private readonly opts: FollowOptions,
  ) {
    this.state = { published: null, pulling: null, failed: false, checked_at: null };
  }

  /** Removes what interrupted pulls left, looks at once, then every `pollMs`. */
  start(): void {
    cleanStaging(this.dataDir);
    void this.poll();
    this.timer = setInterval(() => void this.poll(), this.opts.pollMs);
    this.timer.unref?.();
  }

  status(): FollowStatus {
    return { ...this.state };
  }

  /** One look at the pointer (and a pull when it names another snapshot); never two at once. */
  poll(): Promise<void> {
    this.running ??= this.look().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Stops polling and cuts off a download under way (its staging directory is removed). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.stopping.abort();
    await this.running;
  }

  private async look(): Promise<void> {
    if (this.stopping.signal.aborted) return;
    try {
      const pointer = await this.readPointer();
      if (pointer === null || this.snapshots.current()?.id === pointer.id) {
        this.succeeded();
        return;
      }
      if (this.failed?.pointer === pointerKey(pointer)) throw new Error(this.failed.error);
      await this.follow(pointer);
      this.succeeded();
    } catch (error) {
      if (this.stopping.signal.aborted) return;
      const message = error instanceof Error ? error.message : String(error);
      // Once per distinct failure at warn; the same one again on every poll at debug.
      const level = message === this.lastError ? "debug" : "warn";
      this.log[level]("snapshot pull failed; still serving the previous one", {
        source: this.source.name,
        snapshot: this.state.published,
        serving: this.snapshots.current()?.id ?? null,
        error: message,
      });
      this.lastError = message;
      this.state.failed = true;
    }
  }

  private succeeded(): void {
    this.lastError = null;
    this.state.failed = false;
  }

  private async readPointer(): Promise<Pointer | null> {
    const bytes = await this.source.read(POINTER_KEY, this.limits(MAX_POINTER_BYTES));
    this.state.checked_at = new Date().toISOString();
    const pointer = bytes === null ? null : parsePointer(bytes, `${this.source.name}/${POINTER_KEY}`);
    this.state.published = pointer?.id ?? null;
    return pointer;
  }

  private async follow(pointer: Pointer): Promise<void> {
    const { id } = pointer;
    const started = performance.now();
    const pulled =
      !existsSync(join(snapshotDir(this.dataDir, id), "manifest.json")) || !(await this.checkLocal(pointer));
    if (pulled) await this.pull(pointer);
    // A publish during the pull moved the pointer on: the next look follows that one instead.
    const now = await this.readPointer();
    if (now === null || pointerKey(now) !== pointerKey(pointer)) return;
    const previous = readCurrent(this.dataDir);
    activateSnapshot(this.dataDir, id);
    // A load the CURRENT poll started before the switch may still be under way: then once more.
    await this.snapshots.refresh();
    if (this.snapshots.current()?.id !== id) await this.snapshots.refresh();
    if (this.snapshots.current()?.id !== id) {
      // CURRENT goes back to what is served, so that a restart serves it too.
      if (previous === null) rmSync(join(this.dataDir, "CURRENT"), { force: true });
      else activateSnapshot(this.dataDir, previous);
      const error = `snapshot ${id} is verified but did not load (see the log line before); not activated again while the source's pointer names it`;
      this.failed = { pointer: pointerKey(pointer), error };
      throw new Error(error);
    }
    const removed = pruneSnapshots(this.dataDir, this.opts.keep);
    this.log.info("snapshot followed", {
      source: this.source.name,
      snapshot: id,
      pulled,
      ms: Math.round(performance.now() - started),
      removed,
    });
  }

  /**
   * True when the copy already in the data dir (an earlier pull, or an import here) is the
   * published one, whole; otherwise it is removed, to be pulled again.
   */
  private async checkLocal(pointer: Pointer): Promise<boolean> {
    const { id } = pointer;
    if (this.verified.has(id)) return true;
    const path = join(snapshotDir(this.dataDir, id), "manifest.json");
    const problems =
      (await sha256File(path)) === pointer.manifest_sha256
        ? await verifySnapshot(this.dataDir, id, true)
        : [`${path} differs from the published manifest`];
    if (problems.length === 0) {
      this.verified.add(id);
      return true;
    }
    this.log.warn("snapshot in the data dir is not the published one; pulling it again", {
      snapshot: id,
      problems,
    });
    removeSnapshot(this.dataDir, id);
    return false;
  }

  /** Downloads into `.staging-<id>-<pid>`, checking as it goes; renames it into place only whole. */
  private async pull(pointer: Pointer): Promise<void> {
    const { id } = pointer;
    const staging = join(snapshotsDir(this.dataDir), stagingName(id));
    this.state.pulling = id;
    try {
      rmSync(staging, { recursive: true, force: true });
      mkdirSync(staging, { recursive: true });
      const manifest = await this.readManifest(pointer);
      const files = publishedFiles(
        parseJsonBytes(manifest, `${this.source.name}/${snapshotKey(id, "manifest.json")}`),
        id,
      );
      this.checkSpace(files.reduce((n, f) => n + f.bytes, 0));
      for (const file of files) {
        const key = snapshotKey(id, file.file);
        const got = await this.source.download(key, join(staging, file.file), this.limits(file.bytes));
        const where = `${this.source.name}/${key}`;
        if (got.bytes !== file.bytes)
          throw new Error(`${where}: ${got.bytes} bytes, the manifest says ${file.bytes}`);
        if (got.sha256 !== file.sha256)
          throw new Error(`${where}: sha256 ${got.sha256} does not match the manifest's ${file.sha256}`);
      }
      writeDurably(join(staging, "manifest.json"), manifest);
      // Every file is on the disk before the folder's name says the snapshot is whole.
      fsyncPath(staging);
      // A folder of that id without a manifest is no snapshot (imports rename theirs in whole).
      removeSnapshot(this.dataDir, id);
      renameSync(staging, snapshotDir(this.dataDir, id));
      fsyncPath(snapshotsDir(this.dataDir));
      this.verified.add(id);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      throw error;
    } finally {
      this.state.pulling = null;
    }
  }

  /** The manifest's bytes, which must be the ones the pointer names. */
  private async readManifest(pointer: Pointer): Promise<Uint8Array> {
    const key = snapshotKey(pointer.id, "manifest.json");
    const where = `${this.source.name}/${key}`;
    const bytes = await this.source.read(key, this.limits(MAX_MANIFEST_BYTES));
    if (bytes === null) throw new Error(`${where}: missing`);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    if (bytes.byteLength !== pointer.manifest_bytes || sha256 !== pointer.manifest_sha256)
      throw new Error(
        `${where}: ${bytes.byteLength} bytes with sha256 ${sha256}, the pointer says ${pointer.manifest_bytes} bytes with ${pointer.manifest_sha256}`,
      );
    return bytes;
  }

  /** The bounds of one read or download from the source: a stalled one fails, and a stop cuts it off. */
  private limits(maxBytes: number): DownloadLimits {
    return { maxBytes, idleMs: this.opts.idleMs ?? DEFAULT_IDLE_MS, signal: this.stopping.signal };
  }

  /** A pull that cannot fit on the disk fails before it starts, not when the disk is full. */
  private checkSpace(bytes: number): void {
    const fs = statfsSync(snapshotsDir(this.dataDir));
    const free = fs.bavail * fs.bsize;
    if (bytes > free)
      throw new Error(`the snapshot needs ${bytes} bytes, ${free} are free in ${this.dataDir}`);
  }
}

/** What identifies a published snapshot: its id and its manifest's hash. */
function pointerKey(pointer: Pointer): string {
  return `${pointer.id} ${pointer.manifest_sha256}`;
}

/** Writes `bytes` to a new file and flushes it to the disk. */
function writeDurably(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, "w");
  try {
    writeAll(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Flushes a directory's entries (the names of the files in it) to the disk. */
function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
