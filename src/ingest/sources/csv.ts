/**
 * A small, fast CSV reader shared by every CSV source parser (prices, dividends, calendar,
 * estimates, growth signals).
 *
 * Accepted: RFC 4180 — comma separator, fields optionally in double quotes, `""` inside a
 * quoted field is one `"`, quoted fields may hold commas and line breaks. Also a leading
 * UTF-8 byte-order mark, LF or CRLF line ends, a missing final line break, and blank lines
 * (skipped, still counted for line numbers). The first non-blank record is the header.
 * Cells are returned as written (no trimming, no type conversion); unquoted cells never
 * contain `"`.
 *
 * Speed: a line without a `"` (the usual case: price files) is cut with one native
 * `split(",")`; only lines that contain a quote go through the character-level parser.
 *
 * Errors (thrown as ImportError, because they break the structure of the rest of the
 * file): an unterminated quoted field, a character other than `,` or a line end after a
 * closing quote, a `"` inside an unquoted field, a record longer than MAX_RECORD_LENGTH, a
 * file with no header. A record whose cell count differs from the header's is the caller's
 * decision (see `checkWidth`).
 */
import { ImportError } from "../errors.ts";
import { shown } from "./value-readers.ts";

/** One data record: its cells and the 1-based line on which it starts. */
export interface CsvRecord {
  line: number;
  cells: string[];
}

/** A parsed file: header cells (as written) and the data records after it. */
export interface CsvTable {
  header: string[];
  /** The line of the header record (1 unless the file starts with blank lines). */
  headerLine: number;
  records: CsvRecord[];
}

/**
 * The longest record (a line, or the lines of a record with a quoted line break), in
 * characters. Real ones are under 1,000 (listed-filer metadata's longest is ~700). A longer one
 * is refused before it is cut into cells or copied, so that a file of one huge line costs its
 * text and no more: cut into cells, a 200 MB line took ten times that.
 */
const MAX_RECORD_LENGTH = 64 * 1024;

const QUOTE = 34; // "
const COMMA = 44; // ,
const CR = 13;
const LF = 10;

/**
 * Calls `onRecord(cells, line)` for every non-blank record of `text`, header included, in
 * file order. The streaming core of `readCsv`; use it directly to avoid holding all
 * records of a very large file.
 */
export function forEachCsvRecord(
  text: string,
  file: string,
  onRecord: (cells: string[], line: number) => void,
): void {
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  const end = text.length;
  // Position of the next `"` at or after pos; searched again only once pos has passed it,
  // so a file without quotes is scanned for them once, not once per line.
  let quoteAt = -1;
  while (pos < end) {
    let nl = text.indexOf("\n", pos);
    if (nl === -1) nl = end;
    const lineEnd = nl > pos && text.charCodeAt(nl - 1) === CR ? nl - 1 : nl;
    if (quoteAt !== end && quoteAt < pos) {
      quoteAt = text.indexOf('"', pos);
      if (quoteAt === -1) quoteAt = end;
    }
    if (quoteAt >= lineEnd) {
      if (lineEnd - pos > MAX_RECORD_LENGTH) throw tooLong(file, line);
      if (lineEnd > pos) onRecord(text.slice(pos, lineEnd).split(","), line);
      pos = nl + 1;
      line += 1;
      continue;
    }
    const parsed = readQuotedRecord(text, pos, file, line);
    onRecord(parsed.cells, line);
    pos = parsed.next;
    line += parsed.lines;
  }
}

interface QuotedRecord {
  cells: string[];
  /** Index just past the record's line break. */
  next: number;
  /** How many physical lines the record spans. */
  lines: number;
}

function tooLong(file: string, line: number): ImportError {
  return new ImportError(file, line, `line longer than ${MAX_RECORD_LENGTH} characters`);
}

/** Character-level parse of one record that contains at least one `"`. */
function readQuotedRecord(text: string, start: number, file: string, line: number): QuotedRecord {
  const cells: string[] = [];
  // The index past the longest record: the record ends before it or is refused.
  const limit = start + MAX_RECORD_LENGTH;
  let pos = start;
  let lines = 1;
  for (;;) {
    let cell: string;
    if (text.charCodeAt(pos) === QUOTE) {
      const quoted = readQuotedCell(text, pos, limit, file, line);
      cell = quoted.value;
      lines += quoted.breaks;
      pos = quoted.next;
    } else {
      let stop = pos;
      const end = Math.min(text.length, limit + 1);
      while (stop < end) {
        const c = text.charCodeAt(stop);
        if (c === COMMA || c === LF || c === CR) break;
        if (c === QUOTE) throw new ImportError(file, line, `stray '"' inside an unquoted field`);
        stop += 1;
      }
      if (stop > limit) throw tooLong(file, line);
      cell = text.slice(pos, stop);
      pos = stop;
    }
    cells.push(cell);
    const c = text.charCodeAt(pos);
    if (c === COMMA) {
      pos += 1;
      continue;
    }
    if (pos >= text.length) return { cells, next: pos, lines };
    if (c === CR && text.charCodeAt(pos + 1) === LF) return { cells, next: pos + 2, lines };
    if (c === LF || c === CR) return { cells, next: pos + 1, lines };
    throw new ImportError(file, line, `unexpected character after a closing quote`);
  }
}

/** Reads `"..."` from the opening quote, closed before `limit` (else too long); `""` is an escaped quote. */
function readQuotedCell(
  text: string,
  open: number,
  limit: number,
  file: string,
  line: number,
): { value: string; next: number; breaks: number } {
  let value = "";
  let from = open + 1;
  for (;;) {
    const close = text.indexOf('"', from);
    if (close === -1) throw new ImportError(file, line, "unterminated quoted field");
    if (close >= limit) throw tooLong(file, line);
    value += text.slice(from, close);
    if (text.charCodeAt(close + 1) !== QUOTE) {
      return { value, next: close + 1, breaks: countLineBreaks(value) };
    }
    value += '"';
    from = close + 2;
  }
}

function countLineBreaks(s: string): number {
  let n = 0;
  for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) n += 1;
  return n;
}

/** Parses a whole CSV text into its header and data records. Throws on a file with no header. */
export function readCsv(text: string, file: string): CsvTable {
  let header: string[] | null = null;
  let headerLine = 0;
  const records: CsvRecord[] = [];
  forEachCsvRecord(text, file, (cells, line) => {
    if (header === null) {
      header = cells;
      headerLine = line;
    } else {
      records.push({ line, cells });
    }
  });
  if (header === null) throw new ImportError(file, 1, "empty file: no header row");
  return { header, headerLine, records };
}

/**
 * Canonical form of a header name for matching: trimmed, lower case, runs of spaces,
 * `-` and `.` turned into `_`. "Adj Close" → "adj_close", "ex-date" → "ex_date".
 */
export function normalizeHeader(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s.-]+/g, "_");
}

/**
 * Index of the first header cell whose normalised name is one of `names` (given already
 * normalised), or -1.
 */
export function findColumn(header: readonly string[], names: readonly string[]): number {
  for (let i = 0; i < header.length; i += 1) {
    if (names.includes(normalizeHeader(header[i] ?? ""))) return i;
  }
  return -1;
}

/**
 * Like `findColumn`, but a missing column is a file-level error at the header line.
 * `label` is the name used in the message (the canonical column name).
 */
export function requireColumn(
  table: CsvTable,
  file: string,
  label: string,
  names: readonly string[],
): number {
  const at = findColumn(table.header, names);
  if (at === -1) {
    const seen = shown(table.header.join(","));
    throw new ImportError(file, table.headerLine, `missing required column ${label} (header is ${seen})`);
  }
  return at;
}

/**
 * Message for a record whose cell count differs from the header's, or null when it
 * matches. Callers decide whether it is an error (strict) or a skip (lenient).
 */
export function checkWidth(record: CsvRecord, width: number): string | null {
  if (record.cells.length === width) return null;
  return `expected ${width} fields as in the header, found ${record.cells.length}`;
}
