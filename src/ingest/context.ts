import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  statSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import type { ImportReport } from "../snapshot/store.ts";
import { asImportError, ImportError } from "./errors.ts";
import type { ParseOptions, ParseResult, SkippedRecord } from "./sources/value-readers.ts";
import { listZip, readZipEntry, type ZipEntry, type ZipListing } from "./zip-reader.ts";

export type Parser<T> = (text: string, file: string, opts: ParseOptions) => ParseResult<T>;

/**
 * The largest source file read, in bytes: SEC's companyfacts and submissions files of the
 * largest filers run to ~100 MB; every other source file is far smaller (a daily price
 * history of 100 years is ~3 MB).
 */
const MAX_EDGAR_BYTES = 256 * 1024 * 1024;
const MAX_OTHER_BYTES = 64 * 1024 * 1024;

function maxBytesOf(name: string): number {
  return name.startsWith(`edgar${sep}companyfacts${sep}`) || name.startsWith(`edgar${sep}submissions${sep}`)
    ? MAX_EDGAR_BYTES
    : MAX_OTHER_BYTES;
}

/** Manifest reports list this many skipped records; the total counts them all. */
const LISTED_SKIPS = 1000;

const LEADS_OUTSIDE = "a link that leads outside the source directory";

/** Where Linux names the file behind each open descriptor of this process. */
const OPEN_FILES = "/proc/self/fd";

/**
 * The real path of the file open as `fd`. Linux gives the open file's own (whatever has become
 * of the path it was opened by); elsewhere it is the path's, resolved once the file is open.
 */
function openedPath(fd: number, file: string): string {
  hasOpenFiles ??= existsSync(OPEN_FILES);
  return hasOpenFiles ? readlinkSync(join(OPEN_FILES, String(fd))) : realpathSync(file);
}

/** Whether this system has `OPEN_FILES`: asked once, not for every file read. */
let hasOpenFiles: boolean | undefined;

/** Where a link is: its folder's real path and its own name (the same link by any route). */
function placeOf(link: string): string {
  return join(realpathSync(dirname(link)), basename(link));
}

/** Whether `path` (a real path) is `root` (a real path) or lies below it. */
function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || !(rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel));
}

/**
 * Every file below `dir` (none when it is absent), following links to files and folders, each
 * real folder once; a link to the folder itself or to one above it (a cycle) is not followed.
 * Bun's recursive `readdirSync` follows such a link until ELOOP, listing the tree over and
 * over. `broken` lists the links that lead nowhere (a missing target, or a link loop);
 * `outside` the links (or `dir` itself) whose real target is not below `root`, which are
 * neither followed nor looked into.
 */
function filesBelow(dir: string, root: string): { files: string[]; broken: string[]; outside: string[] } {
  const found = { files: [] as string[], broken: [] as string[], outside: [] as string[] };
  if (!existsSync(dir)) return found;
  const start = realpathSync(dir);
  if (!isWithin(root, start)) {
    found.outside.push(dir);
    return found;
  }
  const seen = new Set<string>();
  const walk = (folder: string, real: string) => {
    if (seen.has(real) || (folder !== dir && (start === real || start.startsWith(real + sep)))) return;
    seen.add(real);
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      let target = join(real, entry.name);
      let stat: { isDirectory(): boolean; isFile(): boolean } = entry;
      if (entry.isSymbolicLink()) {
        try {
          target = realpathSync(path);
        } catch {
          found.broken.push(path);
          continue;
        }
        if (!isWithin(root, target)) {
          found.outside.push(path);
          continue;
        }
        stat = statSync(target);
      }
      // A pipe, socket or device is listed like a file: reading it is refused, by name.
      if (stat.isDirectory()) walk(path, target);
      else found.files.push(path);
    }
  };
  walk(dir, start);
  return found;
}

/** File discovery, parsing with file names relative to the source root, and the import report. */
export class ImportContext {
  readonly report: ImportReport = { sources: {}, skipped: [], skipped_total: 0, notes: [] };
  readonly parseOptions: ParseOptions;
  /** What the readers looked for: folders with extensions, and single files. */
  private readonly claims: { dir: string; exts: string[] }[] = [];
  private readonly claimedFiles = new Set<string>();
  /** Files a reader looked at and left: not in its format after all. */
  private readonly passedOver = new Set<string>();
  /** Links leading outside the source directory that were skipped, by where each link is. */
  private readonly refused = new Set<string>();
  /** The source directory's real path: no file is read unless its real path lies below it. */
  readonly root: string;

  constructor(
    root: string,
    lenient: boolean,
    private readonly progress?: (message: string) => void,
  ) {
    this.root = realpathSync(root);
    this.parseOptions = { lenient };
  }

  /** Path relative to the source root, as printed in messages. */
  name(file: string): string {
    return relative(this.root, file) || basename(file);
  }

  /** Files with this extension below `dir` (recursively), sorted; none when `dir` is absent. */
  files(dir: string, ...exts: string[]): string[] {
    this.claims.push({ dir: join(dir, sep), exts });
    const { files, broken, outside } = filesBelow(dir, this.root);
    this.refuse(outside);
    const ours = (f: string) => exts.some((ext) => f.toLowerCase().endsWith(ext));
    const lost = broken.find(ours);
    if (lost)
      throw new ImportError(this.name(lost), null, "a link that leads nowhere (its target is missing)");
    return files.filter(ours).sort();
  }

  /**
   * Files below the source root that no reader looked for (by `files` or `readOne`), dot
   * files and folders aside, and the files a reader passed over: named in the report so that
   * no file is left out in silence. A link leading outside is refused here too, unless it is
   * in a dot folder (or is a dot file), which the import leaves alone.
   */
  unread(): { unknown: string[]; passedOver: string[] } {
    const claimed = (file: string) =>
      this.claimedFiles.has(file) ||
      this.claims.some(
        (c) => file.startsWith(c.dir) && c.exts.some((ext) => file.toLowerCase().endsWith(ext)),
      );
    const visible = (file: string) =>
      !relative(this.root, file)
        .split(sep)
        .some((part) => part.startsWith("."));
    const { files, broken, outside } = filesBelow(this.root, this.root);
    this.refuse(outside.filter(visible));
    const unknown = [...files, ...broken].filter(visible).filter((file) => !claimed(file));
    const names = (files: Iterable<string>) => [...files].map((file) => this.name(file)).sort();
    return { unknown: names(unknown), passedOver: names(this.passedOver) };
  }

  /** Leaves a file that `files` found: its content is not the reader's format (see `unread`). */
  passOver(file: string): void {
    this.passedOver.add(file);
  }

  /**
   * Links whose real target lies outside the source directory, found by a walk: a strict
   * import fails on the first; a lenient one skips and counts each once, by the link's own name.
   */
  private refuse(links: readonly string[]): void {
    for (const link of links.toSorted()) {
      const place = placeOf(link);
      if (this.refused.has(place)) continue;
      const error = new ImportError(this.name(link), null, LEADS_OUTSIDE);
      if (!this.parseOptions.lenient) throw error;
      this.refused.add(place);
      this.listSkipped(link, [{ line: null, reason: `file skipped: ${error.message}` }]);
    }
  }

  /**
   * A source file's text (see `open`); a file over its size cap (`maxBytesOf`) is refused
   * before it is read, so memory stays bounded whatever a source directory holds.
   */
  read(file: string): string {
    return this.open(file, (fd) => {
      const bytes = fstatSync(fd).size;
      const cap = maxBytesOf(this.name(file));
      if (bytes > cap)
        throw new ImportError(
          this.name(file),
          null,
          `${bytes} bytes is over this kind of file's limit of ${cap}`,
        );
      // Read no more than it measured: a file that grows meanwhile is refused, not read on.
      const buffer = Buffer.allocUnsafe(bytes + 1);
      let read = 0;
      for (let n = 1; n > 0 && read < buffer.length; read += n)
        n = readSync(fd, buffer, read, buffer.length - read, read);
      if (read > bytes) throw new ImportError(this.name(file), null, "changed while it was read");
      return buffer.toString("utf8", 0, read);
    });
  }

  /**
   * The entries of a zip archive (`zip-reader.ts`) whose names `keep` takes, and the names of
   * the others; null when there is no such file. The archive is opened as every source file
   * is (`open`), and claimed, so that it is not listed as unread.
   */
  archive(file: string, keep: (name: string) => boolean): ZipListing | null {
    this.claimedFiles.add(file);
    if (!existsSync(file)) return null;
    return this.open(file, (fd) => listZip(fd, fstatSync(fd).size, this.name(file), keep));
  }

  /** The text of an entry that `archive` listed, unpacked and checked; errors name `entryPath`. */
  readEntry(file: string, entry: ZipEntry): string {
    return this.open(file, (fd) =>
      readZipEntry(fd, entry, this.name(entryPath(file, entry))).toString("utf8"),
    );
  }

  /** A file's first 4 KiB, as text (a header or a symbol, without reading the whole file). */
  head(file: string): string {
    return this.open(file, (fd) => {
      const buffer = Buffer.alloc(4096);
      return buffer.toString("utf8", 0, readSync(fd, buffer, 0, buffer.length, 0));
    });
  }

  /**
   * Opens a source file for `use`, which runs only when what was opened is a regular file
   * below the source directory. The check is on the open file's own real path, so a file
   * swapped for a link after discovery (or a folder on its way swapped for one) is refused,
   * never read. Opened without blocking, so that a named pipe is refused, not waited on.
   */
  private open<T>(file: string, use: (fd: number) => T): T {
    let fd: number;
    try {
      fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new ImportError(this.name(file), null, `cannot be opened (${code})`);
    }
    try {
      if (!isWithin(this.root, openedPath(fd, file))) {
        // Counted by the caller (`guard`); the walk for unread files must not count it again.
        this.refused.add(placeOf(file));
        throw new ImportError(this.name(file), null, LEADS_OUTSIDE);
      }
      if (!fstatSync(fd).isFile()) throw new ImportError(this.name(file), null, "not a regular file");
      return use(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** Parses one file; in lenient mode a file that fails as a whole gives no rows. */
  parse<T>(file: string, source: string, parser: Parser<T>): T[] {
    const result = this.guard(file, source, () =>
      parser(this.read(file), this.name(file), this.parseOptions),
    );
    if (!result) return [];
    this.count(source, file, result.rows.length, result.skipped);
    return result.rows;
  }

  readOne<T>(file: string, source: string, parser: Parser<T>): T[] {
    this.claimedFiles.add(file);
    return existsSync(file) ? this.parse(file, source, parser) : [];
  }

  readAll<T>(dir: string, ext: string, source: string, parser: Parser<T>): T[] {
    return this.files(dir, ext).flatMap((file) => this.parse(file, source, parser));
  }

  count(source: string, file: string, records: number, skipped: readonly SkippedRecord[] = []): void {
    const entry = this.report.sources[source] ?? { files: 0, records: 0 };
    this.report.sources[source] = entry;
    entry.files++;
    entry.records += records;
    this.listSkipped(file, skipped);
    if (entry.files % 100 === 0) this.progress?.(`${source}: ${entry.files} files`);
  }

  /** Counts skipped records of `file` and lists them while the report has room. */
  private listSkipped(file: string, skipped: readonly SkippedRecord[]): void {
    this.report.skipped_total += skipped.length;
    for (const s of skipped.slice(0, Math.max(0, LISTED_SKIPS - this.report.skipped.length))) {
      this.report.skipped.push({ file: this.name(file), line: s.line, reason: s.reason });
    }
  }

  /**
   * Runs `read` for one file. In lenient mode a file that fails as a whole (malformed JSON or
   * XML, a wrong structure) is skipped and listed with its reason; in strict mode it fails
   * the import. Any other exception `read` throws (a parser's) fails the file the same way, as
   * an ImportError naming it.
   */
  guard<T>(file: string, source: string, read: () => T): T | null {
    try {
      return read();
    } catch (error) {
      const failure = asImportError(error, this.name(file));
      if (!this.parseOptions.lenient) throw failure;
      this.count(source, file, 0, [{ line: failure.line, reason: `file skipped: ${failure.message}` }]);
      return null;
    }
  }

  note(message: string): void {
    this.report.notes.push(message);
  }

  status(message: string): void {
    this.progress?.(message);
  }
}

/** The path that names an archive's entry in messages and reports: `edgar/companyfacts.zip/CIK##########.json`. */
export function entryPath(archive: string, entry: ZipEntry): string {
  return join(archive, entry.name);
}

/**
 * A context that keeps its `count` calls instead of reporting them: a company worker's, whose
 * counts the importer replays into the one report in company order.
 */
export class RecordingContext extends ImportContext {
  private counts: Parameters<ImportContext["count"]>[] = [];

  override count(...args: Parameters<ImportContext["count"]>): void {
    this.counts.push(args);
  }

  /** The counts recorded since the last call. */
  takeCounts(): Parameters<ImportContext["count"]>[] {
    const counts = this.counts;
    this.counts = [];
    return counts;
  }
}
