/**
 * The source mirror (`DATA_DIR/sources/`, the layout of docs/sources.md) and its one way in: a
 * body is written to a temporary file under `DATA_DIR/sync/tmp/`, checked with the importer's
 * own parser of its kind, flushed to disk and renamed over the mirror's file. A crash leaves
 * the old file or the new one, never a part, and a body the importer would refuse never
 * reaches the mirror (so it never reaches a snapshot).
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { parseCompanyFacts } from "../ingest/sources/companyfacts.ts";
import { parseOwnershipDocument, parseSubmissionText } from "../ingest/sources/form4.ts";
import { parsePrices } from "../ingest/sources/price-files.ts";
import { parseSubmissions } from "../ingest/sources/submissions.ts";
import { parseCompanyTickers, parseTickersExchange } from "../ingest/sources/tickers.ts";
import { mirrorDir, syncDir } from "./state.ts";

/** A body that failed its check: the mirror keeps what it had. */
export class BadBodyError extends Error {
  override name = "BadBodyError";
}

/** What a body is, which decides its check. */
export type BodyKind =
  | "tickers-exchange"
  | "tickers"
  | "submissions"
  | "companyfacts"
  | "ownership-xml"
  | "ownership-text"
  | "zip"
  | "price-csv";

/** A mirror path: relative, forward slashes, no `..`, only the characters the layout uses. */
const SAFE_PATH = /^(?:[A-Za-z0-9_.-]+\/)*[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** The mirror of one data dir. */
export class Mirror {
  readonly root: string;
  private readonly tmp: string;
  private readonly partial: string;

  /**
   * @param onWrite called before the first file of a run is renamed in, so that a run killed
   *   right after still leaves "the mirror changed, import it" in the state.
   */
  constructor(
    dataDir: string,
    private readonly onWrite: () => void = () => {},
  ) {
    this.root = mirrorDir(dataDir);
    this.tmp = join(syncDir(dataDir), "tmp");
    this.partial = join(syncDir(dataDir), "partial");
    mkdirSync(this.root, { recursive: true });
    // What a killed run left half-written is dropped: it was never renamed in.
    rmSync(this.tmp, { recursive: true, force: true });
    mkdirSync(this.tmp, { recursive: true });
  }

  /** The absolute path of a mirror path, refusing anything that is not a plain relative path. */
  path(relative: string): string {
    if (!SAFE_PATH.test(relative) || relative.split("/").some((part) => part === "." || part === ".."))
      throw new BadBodyError(`${relative}: not a path of the mirror`);
    return join(this.root, relative);
  }

  has(relative: string): boolean {
    return existsSync(this.path(relative));
  }

  read(relative: string): string {
    return readFileSync(this.path(relative), "utf8");
  }

  /** A fresh temporary file name for a download (renamed in by `commitFile`). */
  tempFile(): string {
    return join(this.tmp, `${process.pid}-${crypto.randomUUID()}.part`);
  }

  /**
   * Checks `body` as `kind`, then writes it in place of `relative` atomically; returns its
   * SHA-256. Throws BadBodyError (the mirror unchanged) when the check fails.
   */
  write(relative: string, kind: BodyKind, body: Uint8Array): string {
    const target = this.path(relative);
    verifyBody(relative, kind, body);
    const temp = this.tempFile();
    const fd = openSync(temp, "w", 0o644);
    try {
      writeSync(fd, body);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return this.rename(temp, target, sha256(body));
  }

  /**
   * Where the download of a mirror file is kept until it is whole (`DATA_DIR/sync/partial/`):
   * unlike the temporary files, it outlives a run, so a later run resumes it.
   */
  partialFile(relative: string): string {
    this.path(relative);
    mkdirSync(this.partial, { recursive: true });
    return join(this.partial, relative.replaceAll("/", "_"));
  }

  /** Moves a downloaded temporary file (already on disk) into place after checking it as `kind`. */
  commitFile(temp: string, relative: string, kind: BodyKind): void {
    const target = this.path(relative);
    if (kind === "zip") verifyZip(relative, temp);
    const fd = openSync(temp, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.rename(temp, target, "");
  }

  /** Removes a mirror file (a ticker whose provider no longer has it). */
  remove(relative: string): void {
    rmSync(this.path(relative), { force: true });
  }

  /** Every file under a mirror folder, as mirror paths. */
  list(folder: string): string[] {
    const base = this.path(folder);
    if (!existsSync(base)) return [];
    return readdirSync(base, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(this.root.length + 1));
  }

  private rename(temp: string, target: string, hash: string): string {
    this.onWrite();
    mkdirSync(dirname(target), { recursive: true });
    renameSync(temp, target);
    const dir = openSync(dirname(target), "r");
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    return hash;
  }
}

export function sha256(body: Uint8Array): string {
  return createHash("sha256").update(body).digest("hex");
}

/** Checks a body the way the importer will read it (strictly); throws BadBodyError. */
export function verifyBody(file: string, kind: BodyKind, body: Uint8Array): void {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    throw new BadBodyError(`${file}: not UTF-8 text`);
  }
  if (text.trim() === "") throw new BadBodyError(`${file}: empty body`);
  try {
    checkText(file, kind, text);
  } catch (error) {
    if (error instanceof BadBodyError) throw error;
    throw new BadBodyError(`${file}: ${error instanceof Error ? error.toString() : String(error)}`);
  }
}

function checkText(file: string, kind: BodyKind, text: string): void {
  switch (kind) {
    case "tickers-exchange":
      parseTickersExchange(text, file);
      return;
    case "tickers":
      parseCompanyTickers(text, file);
      return;
    case "submissions":
      parseSubmissions(text, file);
      return;
    case "companyfacts":
      parseCompanyFacts(JSON.parse(text), file);
      return;
    case "ownership-xml":
      parseOwnershipDocument(text, file);
      return;
    case "ownership-text":
      if (parseSubmissionText(text, file).length === 0)
        throw new BadBodyError(`${file}: no ownership document in the submission`);
      return;
    case "price-csv":
      parsePrices(text, file);
      return;
    case "zip":
      throw new BadBodyError(`${file}: a zip is written with commitFile`);
  }
}

/** A zip file ends with an end-of-central-directory record (22 bytes plus a comment of at most 64 KiB). */
function verifyZip(file: string, path: string): void {
  const fd = openSync(path, "r");
  try {
    const size = Bun.file(path).size;
    const tail = Buffer.alloc(Math.min(size, 22 + 65_535));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    if (size < 22 || tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06])) < 0)
      throw new BadBodyError(`${file}: not a complete zip archive`);
  } finally {
    closeSync(fd);
  }
}
