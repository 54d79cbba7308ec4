/**
 * Writes the typed analytic tables (snapshot/typed-tables.ts) once the derived documents are
 * written: DuckDB reads each stored body back with the JSON structure its schema gives and
 * writes the fields as columns. The values are the documents' own (no second computation),
 * and `json_transform_strict` fails the import if a body ever lacks a field or holds another
 * type than its schema says, rather than writing a NULL.
 */
import { join } from "node:path";
import type { Db } from "../../snapshot/duckdb.ts";
import type { TableEntry } from "../../snapshot/store.ts";
import { type Columns, SNAPSHOT_TABLES, TABLE_ORDER, type TableName } from "../../snapshot/tables.ts";
import {
  type DocumentColumn,
  FIGURE_COLUMNS,
  HISTORY_TABLES,
  SECURITY_COLUMNS,
} from "../../snapshot/typed-tables.ts";

/** The typed tables written, given the tables already written (their entries, by name). */
export async function writeTypedTables(
  db: Db,
  dir: string,
  written: Partial<Record<TableName, TableEntry>>,
  entry: (file: string, rows: number) => Promise<TableEntry>,
): Promise<Partial<Record<TableName, TableEntry>>> {
  if (!written.securities || !written.derived) return {};
  const source = (table: TableName) => {
    const file = written[table]?.file;
    return file ? `read_parquet(${literal(join(dir, file))})` : `(${emptyRelation(table)})`;
  };
  const from = {
    securities: source("securities"),
    companies: source("companies"),
    derived: source("derived"),
  };
  const out: Partial<Record<TableName, TableEntry>> = {};
  const write = async (table: TableName, select: string) => {
    const file = `${table}.parquet`;
    const [result] = await db.all<{ Count: number }>(
      `COPY (${select} ORDER BY ${TABLE_ORDER[table]}) TO ${literal(join(dir, file))}
       (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 100000)`,
    );
    out[table] = await entry(file, Number(result?.Count ?? 0));
  };
  await write("security_figures", securityFigures(from));
  for (const table of Object.keys(HISTORY_TABLES) as (keyof typeof HISTORY_TABLES)[])
    await write(table, historyRows(table, from));
  return out;
}

interface Sources {
  securities: string;
  companies: string;
  derived: string;
}

/**
 * One row per security: its own columns, then each figure document's fields (NULL where the
 * security has no such document). The figure documents are read from the derived table once
 * (materialized: they are small), not once per kind.
 */
function securityFigures(from: Sources): string {
  const kinds = [...new Set(FIGURE_COLUMNS.map((c) => c.kind))];
  const documents = kinds.map((kind) => {
    const structure = structureOf(FIGURE_COLUMNS.filter((c) => c.kind === kind));
    return `LEFT JOIN (SELECT security_id, json_transform_strict(body, ${literal(structure)}) AS d
      FROM figures WHERE kind = ${literal(kind)}) AS "${kind}" ON "${kind}".security_id = s.security_id`;
  });
  const columns = [
    ...SECURITY_COLUMNS.map((c) => `${c.sql} AS "${c.name}"`),
    ...FIGURE_COLUMNS.map((c) => `${fieldOf(`"${c.kind}".d`, c.path)} AS "${c.name}"`),
  ];
  return `WITH figures AS MATERIALIZED (SELECT security_id, kind, body FROM ${from.derived}
      WHERE kind IN (${kinds.map(literal).join(", ")}))
    SELECT ${columns.join(", ")}
    FROM ${from.securities} AS s LEFT JOIN ${from.companies} AS c ON c.cik = s.cik
    ${documents.join("\n")}`;
}

/** One row per element of each document's array, with the security's id and symbol. */
function historyRows(table: keyof typeof HISTORY_TABLES, from: Sources): string {
  const { kind, rows, columns } = HISTORY_TABLES[table];
  const structure = JSON.stringify({ [rows]: [JSON.parse(structureOf(columns))] });
  return `SELECT h.security_id, s.ticker AS symbol, ${columns.map((c) => `${fieldOf("h.r", c.path)} AS "${c.name}"`).join(", ")}
    FROM (SELECT security_id, unnest(json_transform_strict(body, ${literal(structure)})[${literal(rows)}]) AS r
          FROM ${from.derived} WHERE kind = ${literal(kind)}) AS h
    JOIN ${from.securities} AS s ON s.security_id = h.security_id`;
}

/** The JSON structure `json_transform_strict` reads the columns' fields with: nested objects of types. */
function structureOf(columns: readonly DocumentColumn[]): string {
  const root: Record<string, unknown> = {};
  for (const { path, type } of columns) {
    let node = root;
    for (const key of path.slice(0, -1)) {
      node[key] ??= {};
      node = node[key] as Record<string, unknown>;
    }
    node[path.at(-1) as string] = type;
  }
  return JSON.stringify(root);
}

/** A field of a struct value, by its path (the names are the schemas', not input). */
function fieldOf(struct: string, path: readonly string[]): string {
  return `${struct}${path.map((key) => `[${literal(key)}]`).join("")}`;
}

/** A relation with a table's columns and no rows, for a table the snapshot does not have. */
function emptyRelation(table: TableName): string {
  const columns = SNAPSHOT_TABLES[table] as Columns;
  return `SELECT ${columns.map(([name, type]) => `NULL::${type} AS "${name}"`).join(", ")} WHERE false`;
}

/** A SQL string literal of our own text (a path of our data dir, a schema's name or structure). */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
