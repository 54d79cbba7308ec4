/**
 * The screener: one page of `security_figures` rows (snapshot/typed-tables.ts) matching a
 * parsed `where` (screener-expression.ts), in a stable order. The SQL is built from the
 * table's own column names (quoted) and fixed keywords; every value the caller wrote is a
 * bound parameter.
 */
import type { SqlParams } from "../snapshot/duckdb.ts";
import { type Columns, type ColumnType, SNAPSHOT_TABLES } from "../snapshot/tables.ts";
import type { Expression } from "./screener-expression.ts";
import type { LoadedSnapshot } from "./snapshot.ts";

/** The screener's fields, in table order, with their types: the allow-list of every name a call uses. */
export const SCREENER_COLUMNS = new Map(SNAPSHOT_TABLES.security_figures as Columns);

/** One sort key: a screener field, ascending or descending. */
export interface SortKey {
  column: string;
  descending: boolean;
}

export interface Screen {
  where: Expression | null;
  sort: readonly SortKey[];
  fields: readonly string[];
  page: number;
  perPage: number;
}

/**
 * The rows of one page, with the number of rows that match; null when the snapshot has no
 * `security_figures` (imported before the typed tables existed).
 */
export async function screen(
  snapshot: LoadedSnapshot,
  query: Screen,
): Promise<{ rows: Record<string, unknown>[]; total: number } | null> {
  if (!snapshot.has("security_figures")) return null;
  const params: SqlParams = {};
  const where = query.where ? `WHERE ${condition(query.where, params)}` : "";
  const order = [...query.sort.map(orderTerm), `"symbol" ASC`, `"security_id" ASC`].join(", ");
  const select = `SELECT ${query.fields.map(quoted).join(", ")} FROM security_figures ${where}
    ORDER BY ${order} LIMIT $limit OFFSET $offset`;
  const page = { limit: query.perPage, offset: (query.page - 1) * query.perPage };
  const [rows, count] = await Promise.all([
    snapshot.all(select, { ...params, ...page }),
    snapshot.all<{ n: number }>(`SELECT count(*) AS n FROM security_figures ${where}`, params),
  ]);
  return { rows, total: count[0]?.n ?? 0 };
}

/** A column name of the allow-list, quoted; anything else is a programming error, never SQL. */
function quoted(column: string): string {
  if (!SCREENER_COLUMNS.has(column)) throw new Error(`screener: ${column} is not a screener field`);
  return `"${column}"`;
}

/** Nulls last in either direction, as the docs promise. */
function orderTerm(key: SortKey): string {
  return `${quoted(key.column)} ${key.descending ? "DESC" : "ASC"} NULLS LAST`;
}

/** The SQL type a value compared with a column of each type is bound as. */
const VALUE_TYPES: Record<ColumnType, string> = {
  DOUBLE: "DOUBLE",
  BIGINT: "DOUBLE",
  INTEGER: "DOUBLE",
  DATE: "DATE",
  TIMESTAMP: "TIMESTAMP",
  VARCHAR: "VARCHAR",
  BOOLEAN: "BOOLEAN",
};

/** The expression as SQL, its values added to `params` as `$v1`, `$v2`, ... */
function condition(expression: Expression, params: SqlParams): string {
  switch (expression.type) {
    case "and":
    case "or":
      return `(${expression.terms.map((t) => condition(t, params)).join(` ${expression.type.toUpperCase()} `)})`;
    case "null":
      return `${quoted(expression.column)} IS ${expression.negated ? "NOT " : ""}NULL`;
    case "compare": {
      const name = `v${Object.keys(params).length + 1}`;
      // A number goes as its shortest round-trip text, cast to DOUBLE below: the driver binds an
      // integral number as INTEGER or BIGINT, which -1e19 overflows.
      params[name] = typeof expression.value === "number" ? String(expression.value) : expression.value;
      // Typed by the column's kind, not inferred from it: 2025.5 stays a DOUBLE beside a BIGINT column.
      const value = `CAST($${name} AS ${VALUE_TYPES[SCREENER_COLUMNS.get(expression.column) ?? "VARCHAR"]})`;
      return `${quoted(expression.column)} ${expression.comparator} ${value}`;
    }
  }
}
