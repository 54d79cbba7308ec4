import { t } from "elysia";

export const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) =>
  t.Union([schema, t.Null()]);
export const NumOrNull = Nullable(t.Number());
export const StrOrNull = Nullable(t.String());

/** RFC 9457 problem details, the body of every non-2xx response. */
export const Problem = t.Object(
  {
    type: t.String(),
    title: t.String(),
    status: t.Integer(),
    detail: t.String(),
    code: t.String(),
    request_id: t.String(),
    errors: t.Optional(t.Array(t.Object({ in: t.String(), name: t.String(), message: t.String() }))),
  },
  { description: "RFC 9457 problem details (application/problem+json)" },
);

export const Pagination = t.Object({
  page: t.Integer(),
  per_page: t.Integer(),
  total: t.Integer(),
  total_pages: t.Integer(),
});

/** A security as every listing shows it (search, insider trades). */
export const SecurityRecord = t.Object({
  name: t.String(),
  ticker: t.String(),
  exchange: StrOrNull,
  security_type: StrOrNull,
  currency_code: StrOrNull,
  cik: StrOrNull,
  composite_figi: StrOrNull,
  share_class_figi: StrOrNull,
});

/** Error responses every billed route can give. */
export const errorResponses = {
  400: Problem,
  401: Problem,
  402: Problem,
  404: Problem,
  429: Problem,
  500: Problem,
  503: Problem,
};

export function pagination(page: number, perPage: number, total: number) {
  return { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
}
