/**
 * The typed analytic tables of a snapshot: the derived documents' figures as real columns
 * (DOUBLE, BIGINT, DATE, VARCHAR; a null as NULL), for the screener, the exports and anyone
 * reading the Parquet files with DuckDB or pandas. The importer writes them from the stored
 * documents themselves (ingest/writing/typed-tables.ts), so a column can never differ from the
 * field an endpoint serves. The columns are derived from the documents' schemas
 * (documents.ts): there is no second list of fields to keep in step.
 *
 * Naming (docs/api.md, "Typed tables"): a column is named by its field in the document, its
 * containing objects dropped (`metrics.roe` → `roe`, `metadata.as_of_date` → `as_of_date`);
 * a name that the security's own columns or more than one document use is prefixed with the
 * document's kind (`metrics_as_of_date`, `dividend_dividend_yield_ttm`). A text field named
 * `date`, `*_date` or `*_date_*` is a DATE.
 */
import type { TSchema } from "@sinclair/typebox";
import type { DerivedKind } from "../domain/derived.ts";
import {
  CapitalAllocation,
  Dividend,
  FundamentalMetrics,
  Growth,
  OwnerEarnings,
  Valuation,
  ValuationHistory,
  ValuationPoints,
} from "./documents.ts";

/** The column types a document's scalar field maps to (a subset of tables.ts ColumnType, which takes these columns). */
type FieldType = "VARCHAR" | "DATE" | "DOUBLE" | "BIGINT" | "BOOLEAN";

/** A column of `security_figures` that comes from the security's own rows, not a document. */
export interface SecurityColumn {
  name: string;
  type: FieldType;
  /** The SQL expression over `s` (securities) and `c` (its company): our own text, no input. */
  sql: string;
  /** Where `/stocks/{symbol}/profile` serves the same value. */
  profile: readonly [string, string];
}

/** A column that is a field of a derived document. */
export interface DocumentColumn {
  name: string;
  type: FieldType;
  kind: DerivedKind;
  /** The field's path in the document (or in one row of a history's array). */
  path: readonly string[];
}

/** The security's own columns of `security_figures`, first in each row. */
export const SECURITY_COLUMNS: readonly SecurityColumn[] = [
  { name: "security_id", type: "VARCHAR", sql: "s.security_id", profile: ["identity", "security_id"] },
  { name: "symbol", type: "VARCHAR", sql: "s.ticker", profile: ["identity", "symbol"] },
  { name: "name", type: "VARCHAR", sql: "coalesce(c.name, s.name)", profile: ["identity", "company_name"] },
  { name: "cik", type: "VARCHAR", sql: "s.cik", profile: ["identity", "cik"] },
  { name: "exchange", type: "VARCHAR", sql: "s.exchange", profile: ["identity", "exchange"] },
  { name: "security_type", type: "VARCHAR", sql: "s.security_type", profile: ["identity", "security_type"] },
  { name: "currency", type: "VARCHAR", sql: "s.currency_code", profile: ["general", "currency"] },
  { name: "sic", type: "VARCHAR", sql: "c.sic", profile: ["general", "sic"] },
  {
    name: "sic_description",
    type: "VARCHAR",
    sql: "c.sic_description",
    profile: ["general", "sic_description"],
  },
  { name: "country_iso", type: "VARCHAR", sql: "c.country_iso", profile: ["general", "country_iso"] },
  { name: "country", type: "VARCHAR", sql: "c.country", profile: ["general", "company_country"] },
];

/** The documents whose latest figures `security_figures` holds, in column order. */
const FIGURE_DOCUMENTS: readonly (readonly [DerivedKind, TSchema])[] = [
  ["valuation", Valuation],
  ["metrics", FundamentalMetrics],
  ["growth", Growth],
  ["capital_allocation", CapitalAllocation],
  ["owner_earnings", OwnerEarnings],
  ["dividend", Dividend],
];

/** Fields left out of the tables: the symbol is a column already, null reasons are prose. */
const LEFT_OUT = new Set(["symbol", "null_reasons"]);

/** A leaf field of a schema: its path and column type. */
interface Leaf {
  path: string[];
  type: FieldType;
}

/** Every scalar field of an object schema, in order (objects and intersections flattened; arrays skipped). */
function leaves(schema: TSchema, path: string[] = []): Leaf[] {
  if (Array.isArray(schema.allOf)) return (schema.allOf as TSchema[]).flatMap((part) => leaves(part, path));
  const out: Leaf[] = [];
  for (const [name, field] of Object.entries((schema.properties ?? {}) as Record<string, TSchema>)) {
    if (LEFT_OUT.has(name)) continue;
    const at = [...path, name];
    if (field.type === "object" || Array.isArray(field.allOf)) out.push(...leaves(field, at));
    else if (field.type !== "array") out.push({ path: at, type: columnType(name, field) });
  }
  return out;
}

const DATE_NAME = /(^|_)date($|_)/;

/** The column type of a scalar field: a union is typed by its non-null member. */
function columnType(name: string, schema: TSchema): FieldType {
  const members = (Array.isArray(schema.anyOf) ? schema.anyOf : [schema]) as TSchema[];
  const types = new Set(members.map((m) => m.type as string).filter((t) => t !== "null"));
  if (types.has("integer")) return "BIGINT";
  if (types.has("number")) return "DOUBLE";
  if (types.has("boolean")) return "BOOLEAN";
  if (types.has("string")) return DATE_NAME.test(name) ? "DATE" : "VARCHAR";
  throw new Error(`typed-tables: no column type for the field ${name}`);
}

/** The document columns of `security_figures`: every scalar field of each figure document, named by the rule above. */
function figureColumns(): DocumentColumn[] {
  const fields = FIGURE_DOCUMENTS.flatMap(([kind, schema]) =>
    leaves(schema).map((leaf) => ({ kind, ...leaf, field: leaf.path.at(-1) as string })),
  );
  const uses = new Map<string, number>(SECURITY_COLUMNS.map((c) => [c.name, 1]));
  for (const f of fields) uses.set(f.field, (uses.get(f.field) ?? 0) + 1);
  return fields.map(({ kind, path, type, field }) => ({
    name: (uses.get(field) ?? 0) > 1 ? `${kind}_${field}` : field,
    type,
    kind,
    path,
  }));
}

/** The columns of `security_figures` that come from documents. */
export const FIGURE_COLUMNS: readonly DocumentColumn[] = figureColumns();

/** A history table: one row per security and date, from the array `rows` of each `kind` document. */
export interface HistoryTable {
  kind: DerivedKind;
  rows: string;
  /** The columns of one array element. */
  columns: readonly DocumentColumn[];
}

function history(kind: DerivedKind, schema: TSchema, rows: string): HistoryTable {
  const items = (schema.properties as Record<string, TSchema>)[rows]?.items as TSchema;
  const columns = leaves(items).map(({ path, type }) => ({ name: path.join("_"), type, kind, path }));
  return { kind, rows, columns };
}

/** The history tables, by table name. */
export const HISTORY_TABLES = {
  valuation_history: history("valuation_history", ValuationHistory, "valuation_history"),
  valuation_points: history("valuation_points", ValuationPoints, "points"),
} as const;

/** The full column list of `security_figures`, as tables.ts lists every table's. */
export function securityFiguresColumns(): (readonly [string, FieldType])[] {
  const names = [...SECURITY_COLUMNS, ...FIGURE_COLUMNS].map((c) => [c.name, c.type] as const);
  const unique = new Set(names.map(([name]) => name));
  if (unique.size !== names.length)
    throw new Error("typed-tables: two columns of security_figures share a name");
  return names;
}

/** The full column list of a history table: the security, then one element's fields. */
export function historyColumns(table: keyof typeof HISTORY_TABLES): (readonly [string, FieldType])[] {
  return [
    ["security_id", "VARCHAR"],
    ["symbol", "VARCHAR"],
    ...HISTORY_TABLES[table].columns.map((c) => [c.name, c.type] as const),
  ];
}
