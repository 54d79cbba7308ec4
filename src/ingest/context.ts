import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  statSync,
} from "node:fs";
import { basename, join, relative, sep } from "node:path";
import type { ImportReport } from "../snapshots.ts";
import { ImportError } from "./errors.ts";
import type { ParseOptions, ParseResult, SkippedRecord } from "./sources/values.ts";

export type Parser<T> = (text: string, file: string, opts: ParseOptions) => ParseResult<T>;

/** Manifest reports list this many skipped records; the total counts them all. */
const LISTED_SKIPS = 1000;

/**
 * Every file below `dir` (none when it is absent), following links to files and folders, each
 * real folder once; a link to the folder itself or to one above it (a cycle) is not followed.
 * Bun's recursive `readdirSync` follows such a link until ELOOP, listing the tree over and
 * over. `broken` lists the links that lead nowhere (a missing target, or a link loop).
 */
function filesBelow(dir: string): { files: string[]; broken: string[] } {
  const files: string[] = [];
  const broken: string[] = [];
  if (!existsSync(dir)) return { files, broken };
  const start = realpathSync(dir);
  const seen = new Set<string>();
  const walk = (folder: string) => {
    const real = realpathSync(folder);
    if (seen.has(real) || (folder !== dir && (start === real || start.startsWith(real + sep)))) return;
    seen.add(real);
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      let stat: { isDirectory(): boolean; isFile(): boolean } = entry;
      if (entry.isSymbolicLink()) {
        try {
          stat = statSync(path);
        } catch {
          broken.push(path);
          continue;
        }
      }
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile()) files.push(path);
    }
  };
  walk(dir);
  return { files, broken };
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

  constructor(
    readonly root: string,
    lenient: boolean,
    private readonly progress?: (message: string) => void,
  ) {
    this.parseOptions = { lenient };
  }

  /** Path relative to the source root, as printed in messages. */
  name(file: string): string {
    return relative(this.root, file) || basename(file);
  }

  /** Files with this extension below `dir` (recursively), sorted; none when `dir` is absent. */
  files(dir: string, ...exts: string[]): string[] {
    this.claims.push({ dir: join(dir, sep), exts });
    const { files, broken } = filesBelow(dir);
    const ours = (f: string) => exts.some((ext) => f.toLowerCase().endsWith(ext));
    const lost = broken.find(ours);
    if (lost)
      throw new ImportError(this.name(lost), null, "a link that leads nowhere (its target is missing)");
    return files.filter(ours).sort();
  }

  /**
   * Files below the source root that no reader looked for (by `files` or `readOne`), dot
   * files and folders aside, and the files a reader passed over: named in the report so that
   * no file is left out in silence.
   */
  unread(): { unknown: string[]; passedOver: string[] } {
    const claimed = (file: string) =>
      this.claimedFiles.has(file) ||
      this.claims.some(
        (c) => file.startsWith(c.dir) && c.exts.some((ext) => file.toLowerCase().endsWith(ext)),
      );
    const { files, broken } = filesBelow(this.root);
    const unknown = [...files, ...broken]
      .filter(
        (file) =>
          !relative(this.root, file)
            .split(sep)
            .some((part) => part.startsWith(".")),
      )
      .filter((file) => !claimed(file));
    const names = (files: Iterable<string>) => [...files].map((file) => this.name(file)).sort();
    return { unknown: names(unknown), passedOver: names(this.passedOver) };
  }

  /** Leaves a file that `files` found: its content is not the reader's format (see `unread`). */
  passOver(file: string): void {
    this.passedOver.add(file);
  }

  read(file: string): string {
    return readFileSync(file, "utf8");
  }

  /** A file's first 4 KiB, as text (a header or a symbol, without reading the whole file). */
  head(file: string): string {
    const fd = openSync(file, "r");
    try {
      const buffer = Buffer.alloc(4096);
      return buffer.toString("utf8", 0, readSync(fd, buffer, 0, buffer.length, 0));
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
    this.report.skipped_total += skipped.length;
    for (const s of skipped.slice(0, Math.max(0, LISTED_SKIPS - this.report.skipped.length))) {
      this.report.skipped.push({ file: this.name(file), line: s.line, reason: s.reason });
    }
    if (entry.files % 100 === 0) this.progress?.(`${source}: ${entry.files} files`);
  }

  /**
   * Runs `read` for one file. In lenient mode a file that fails as a whole (malformed JSON or
   * XML, a wrong structure) is skipped and listed with its reason; in strict mode it fails
   * the import.
   */
  guard<T>(file: string, source: string, read: () => T): T | null {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof ImportError) || !this.parseOptions.lenient) throw error;
      this.count(source, file, 0, [{ line: error.line, reason: `file skipped: ${error.message}` }]);
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
