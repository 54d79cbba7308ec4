import { type TSchema, t } from "elysia";
import type { BodyBytes } from "./body.ts";

/** The content type of every CSV answer. */
export const CSV_TYPE = "text/csv; charset=utf-8";

/** The `format` query parameter of the tabular endpoints: the JSON document or its rows as CSV. */
export const FormatParam = t.String({
  pattern: "^(json|csv)$",
  default: "json",
  description: "json (default), or csv: the rows as RFC 4180 text with a header row (docs/api.md)",
  error: "format: must be json or csv",
});

/**
 * Where a tabular endpoint's rows are in its JSON body, and their schema, for `?format=csv`:
 * the columns are the row's fields in order, an object-valued field replaced by its own fields.
 */
export interface Tabular<B = never> {
  row: TSchema;
  rows(body: B): readonly unknown[];
  /** The columns, when the call chooses them (the screener's `fields`); else the row schema's. */
  columns?(body: B): readonly string[];
}

/** A cell a spreadsheet would read as a formula: a text starting with =, +, -, @, tab or CR. */
const FORMULA = /^[=+\-@\t\r]/;
/** A cell that must be quoted (RFC 4180 §2.6). */
const QUOTED = /[",\r\n]/;

/**
 * The columns of rows of this schema: its fields in order; an object-valued field (e.g. a
 * statement's `income_statement`) is replaced by its own fields, under their own names.
 */
export function columnsOf(schema: TSchema): string[] {
  if (Array.isArray(schema.allOf)) return (schema.allOf as TSchema[]).flatMap(columnsOf);
  const columns: string[] = [];
  for (const [name, field] of Object.entries((schema.properties ?? {}) as Record<string, TSchema>)) {
    if (isRecord(field)) columns.push(...columnsOf(field));
    else columns.push(name);
  }
  return columns;
}

/** A schema whose value is an object with fields of its own (not a union with null). */
function isRecord(schema: TSchema): boolean {
  return schema.type === "object" || Array.isArray(schema.allOf);
}

/** The rows as RFC 4180 text: a header row, then one line per row, every line ending CRLF. */
export function toCsv(schema: TSchema, rows: readonly unknown[]): string {
  return csvText(columnsOf(schema), rows);
}

/** The rows' `columns` as RFC 4180 text. */
function csvText(columns: readonly string[], rows: readonly unknown[]): string {
  const lines = [columns.map(cell).join(",")];
  for (const row of rows) {
    const flat = flatten(row as Record<string, unknown>);
    lines.push(columns.map((name) => cell(flat[name])).join(","));
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** A row's fields with every object-valued field replaced by its own fields. */
function flatten(row: Record<string, unknown>, into: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [name, value] of Object.entries(row)) {
    if (value !== null && typeof value === "object" && !Array.isArray(value))
      flatten(value as Record<string, unknown>, into);
    else into[name] = value;
  }
  return into;
}

/**
 * One value as a cell: empty for null, numbers as JavaScript writes them (no grouping, `.`
 * decimals), a list as its JSON text; a text a spreadsheet would take for a formula (and that
 * is not a number) prefixed with `'`; quoted when it holds a comma, a quote or a line break.
 */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = typeof value === "object" ? JSON.stringify(value) : String(value);
  if (typeof value === "string" && FORMULA.test(text) && !isNumeric(text)) text = `'${text}`;
  return QUOTED.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const isNumeric = (text: string): boolean => text.trim() === text && Number.isFinite(Number(text));

/** The rows of a JSON body, as a tabular endpoint's CSV. */
export function csvOf<B>(tabular: Tabular<B>, body: B): string {
  const rows = tabular.rows(body);
  return tabular.columns ? csvText(tabular.columns(body), rows) : toCsv(tabular.row, rows);
}

/** A fast-path body (JSON text or its pieces) parsed back. */
export function parseBody(bytes: BodyBytes): unknown {
  return JSON.parse(typeof bytes === "string" ? bytes : Buffer.concat(bytes).toString("utf8"));
}
