/**
 * Named-field access over a CSV record or a flat JSON object, so one row builder serves
 * every layout of a source. Fields are canonical names; each has a list of aliases
 * (normalised as by `normalizeHeader`: "epsForecast" → "epsforecast", "Ex-Date" → "ex_date").
 */
import { type CsvRecord, type CsvTable, checkWidth, normalizeHeader } from "./csv.ts";
import { FieldError, type JsonObject, textProp } from "./value-readers.ts";

/** Canonical field name → accepted (normalised) column names or JSON keys. */
export type Aliases<F extends string> = Readonly<Record<F, readonly string[]>>;

/** One record's fields, whatever the layout. */
export interface FieldSource<F extends string> {
  /** The raw text of a field, or undefined when the layout lacks it. */
  get(field: F): string | undefined;
  /** The field's name as written in the source, for messages. */
  label(field: F): string;
}

/** Column index of each field in a CSV header (-1 when absent). */
export type ColumnMap<F extends string> = Record<F, number>;

/** Finds every field's column in `table`'s header (first matching alias wins). */
export function mapColumns<F extends string>(table: CsvTable, aliases: Aliases<F>): ColumnMap<F> {
  const normalised = table.header.map(normalizeHeader);
  const map = {} as ColumnMap<F>;
  for (const field of Object.keys(aliases) as F[]) {
    map[field] = normalised.findIndex((name) => aliases[field].includes(name));
  }
  return map;
}

/**
 * The fields of one CSV record. A record whose cell count differs from the header's is a
 * FieldError (thrown here, so the caller's collector applies strict/lenient).
 */
export function fieldsFromCsv<F extends string>(
  record: CsvRecord,
  table: CsvTable,
  columns: ColumnMap<F>,
): FieldSource<F> {
  const widthProblem = checkWidth(record, table.header.length);
  if (widthProblem !== null) throw new FieldError(widthProblem);
  return {
    get: (field) => (columns[field] === -1 ? undefined : record.cells[columns[field]]),
    label: (field) => (columns[field] === -1 ? field : (table.header[columns[field]] ?? field).trim()),
  };
}

/** The fields of one flat JSON object; keys are matched through `aliases`. */
export function fieldsFromObject<F extends string>(obj: JsonObject, aliases: Aliases<F>): FieldSource<F> {
  const byName = new Map<string, string>();
  for (const key of Object.keys(obj)) byName.set(normalizeHeader(key), key);
  const keyOf = (field: F): string | undefined => {
    for (const alias of aliases[field]) {
      const key = byName.get(alias);
      if (key !== undefined) return key;
    }
    return undefined;
  };
  return {
    get: (field) => {
      const key = keyOf(field);
      return key === undefined ? undefined : textProp(obj, key);
    },
    label: (field) => keyOf(field) ?? field,
  };
}
