import { type TSchema, t } from "elysia";
import { ApiError, invalidParameter } from "../../errors.ts";
import { SCREENER_COLUMNS, type SortKey, screen } from "../../query/screener.ts";
import { type Expression, ExpressionError, parseExpression } from "../../query/screener-expression.ts";
import type { ColumnType } from "../../snapshot/tables.ts";
import { Nullable, Pagination, pagination } from "../models/common.ts";
import { Params, queryParams } from "../params.ts";
import { defineRoute } from "../route.ts";

const NO_FIGURES =
  "this snapshot has no security_figures table (it was imported before the typed tables existed): import again to screen it";

/** Most sort keys in one call. */
const MAX_SORT_KEYS = 3;

const text = (name: string, description: string, maxLength: number) =>
  t.Optional(t.String({ maxLength, description, error: `${name}: must be at most ${maxLength} characters` }));

const ScreenerQuery = queryParams({
  where: text(
    "where",
    "which securities: comparisons of fields with numbers or quoted texts, joined by and/or, in parentheses (docs/api.md), e.g. roe>0.15 and pe_ratio<20",
    2000,
  ),
  sort: text(
    "sort",
    `up to ${MAX_SORT_KEYS} fields, comma-separated, each ascending or with - descending (e.g. -fcf_yield); then symbol`,
    200,
  ),
  fields: text(
    "fields",
    "the fields of each row, comma-separated, or * for all (default: symbol, name and the fields where and sort name)",
    4000,
  ),
  page: Params.positiveInt("page", "page number", 1, 100_000),
  per_page: Params.positiveInt("per_page", "rows per page", 50, 500),
});

/** A row: any of the fields, each of its column's type or null. */
const ScreenerRow = t.Object(
  Object.fromEntries(
    [...SCREENER_COLUMNS].map(([name, type]) => [name, t.Optional(Nullable(schemaOf(type)))]),
  ),
);

function schemaOf(type: ColumnType): TSchema {
  if (type === "DOUBLE") return t.Number();
  if (type === "BIGINT" || type === "INTEGER") return t.Integer();
  if (type === "BOOLEAN") return t.Boolean();
  return t.String();
}

const ScreenerResponse = t.Object({
  fields: t.Array(t.String(), { description: "the fields of each row, in order" }),
  data: t.Array(ScreenerRow),
  pagination: Pagination,
});

/** GET /screener: the securities whose latest figures match `where`, a page at a time. */
const screener = defineRoute({
  path: "/screener",
  endpoint: "screener",
  heavy: true,
  query: ScreenerQuery,
  response: ScreenerResponse,
  csv: { row: ScreenerRow, rows: (body) => body.data, columns: (body) => body.fields },
  summary: "Screen securities by their figures",
  description:
    "Filters the snapshot's securities by their latest valuation, metrics, growth, capital allocation, owner earnings and dividend figures (the security_figures table), sorted and paginated. The grammar, the fields and the limits: docs/api.md.",
  async handler({ snapshot, query }) {
    const where = query.where === undefined ? null : whereOf(query.where);
    const sort = query.sort === undefined ? [] : sortOf(query.sort);
    const fields = fieldsOf(query.fields, where, sort);
    const page = await screen(snapshot, { where, sort, fields, page: query.page, perPage: query.per_page });
    if (!page) throw new ApiError("not_found", NO_FIGURES);
    return { fields, data: page.rows, pagination: pagination(query.page, query.per_page, page.total) };
  },
});

function whereOf(source: string): Expression {
  try {
    return parseExpression(source, SCREENER_COLUMNS);
  } catch (error) {
    if (error instanceof ExpressionError) throw invalidParameter("query", "where", error.message);
    throw error;
  }
}

const SORT_KEY = /^([+-]?)([A-Za-z_][A-Za-z0-9_]*)$/;

function sortOf(source: string): SortKey[] {
  const keys = source.split(",").map((part) => {
    const match = SORT_KEY.exec(part.trim());
    const column = match?.[2]?.toLowerCase();
    if (!match || column === undefined || !SCREENER_COLUMNS.has(column))
      throw invalidParameter(
        "query",
        "sort",
        `${JSON.stringify(part)} is not a screener field, with - for descending`,
      );
    return { column, descending: match[1] === "-" };
  });
  if (keys.length > MAX_SORT_KEYS) throw invalidParameter("query", "sort", `at most ${MAX_SORT_KEYS} fields`);
  return keys;
}

/**
 * The chosen fields, in the table's column order (the order of each JSON row and of the CSV's
 * columns); by default symbol, name and each field `where` and `sort` use.
 */
function fieldsOf(source: string | undefined, where: Expression | null, sort: readonly SortKey[]): string[] {
  let chosen: string[];
  if (source === undefined)
    chosen = ["symbol", "name", ...(where ? columnsIn(where) : []), ...sort.map((k) => k.column)];
  else if (source === "*") chosen = [...SCREENER_COLUMNS.keys()];
  else chosen = namedFields(source);
  const set = new Set(chosen);
  return [...SCREENER_COLUMNS.keys()].filter((column) => set.has(column));
}

function namedFields(source: string): string[] {
  const fields = source.split(",").map((part) => part.trim().toLowerCase());
  for (const field of fields)
    if (!SCREENER_COLUMNS.has(field))
      throw invalidParameter(
        "query",
        "fields",
        `${JSON.stringify(field)} is not a screener field (docs/api.md)`,
      );
  if (new Set(fields).size !== fields.length)
    throw invalidParameter("query", "fields", "names a field twice");
  return fields;
}

function columnsIn(expression: Expression): string[] {
  if ("terms" in expression) return expression.terms.flatMap(columnsIn);
  return [expression.column];
}

export const screenerRoutes = [screener];
