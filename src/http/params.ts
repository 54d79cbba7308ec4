import type { TProperties } from "@sinclair/typebox";
import { t } from "elysia";
import { isTickerLike, MAX_TICKER_LENGTH } from "../domain/tickers.ts";
import { ApiError, invalidParameter } from "../errors.ts";
import type { Security } from "../query/securities.ts";
import type { LoadedSnapshot } from "../query/snapshot.ts";

/**
 * Parameter schemas shared by routes (TypeBox: validation and OpenAPI in one). Each carries
 * its own name and rule in `error`, so a failure names the parameter (see plugins/errors.ts).
 */
export const Params = {
  ticker: (name: string) =>
    t.String({
      minLength: 1,
      maxLength: MAX_TICKER_LENGTH,
      description: "ticker or symbol; case and share-class separator do not matter (BRK.B = BRK-B = brk/b)",
      error: rule(name, `must be a ticker of 1 to ${MAX_TICKER_LENGTH} characters`),
    }),
  positiveInt: (name: string, description: string, defaultValue: number, maximum: number) =>
    t.Integer({
      minimum: 1,
      maximum,
      default: defaultValue,
      description: `${description} (1 to ${maximum}, default ${defaultValue})`,
      error: rule(name, `must be an integer from 1 to ${maximum}`),
    }),
  date: (name: string, description: string) =>
    t.String({
      pattern: "^\\d{4}-\\d{2}-\\d{2}$",
      description: `${description} (YYYY-MM-DD)`,
      examples: ["2024-01-31"],
      error: rule(name, "must be a date written YYYY-MM-DD"),
    }),
  /** A CIK, with or without leading zeros; the route checks the digits (`normalizeCik`). */
  cik: (name: string) =>
    t.String({
      minLength: 1,
      maxLength: 10,
      description: "central index key, with or without leading zeros",
      error: rule(name, "must be 1 to 10 digits"),
    }),
  text: (name: string, description: string, maxLength: number, defaultValue?: string) =>
    t.String({
      minLength: 1,
      maxLength,
      description,
      ...(defaultValue === undefined ? {} : { default: defaultValue }),
      error: rule(name, `must be 1 to ${maxLength} characters`),
    }),
};

/**
 * A query-parameters object. Parameters with a default are not required of the client
 * (Elysia fills the default before validating), so they leave `required` — which is what
 * the OpenAPI document shows — while handlers still see them typed as present.
 */
export function queryParams<P extends TProperties>(properties: P) {
  const schema = t.Object(properties);
  const required = (schema.required ?? []) as readonly string[];
  // TypeBox types `required` as the tuple of keys; we only drop some of them.
  (schema as { required?: string[] }).required = required.filter(
    (key) => properties[key]?.default === undefined,
  );
  return schema;
}

/** The `error` of a parameter schema, `name: rule`; read back by `parseRule`. */
function rule(name: string, message: string): string {
  return `${name}: ${message}`;
}

/** The parameter name and rule from a schema's `error`, or null for any other error value. */
export function parseRule(error: unknown): { name: string; message: string } | null {
  if (typeof error !== "string") return null;
  const at = error.indexOf(": ");
  return at > 0 ? { name: error.slice(0, at), message: error.slice(at + 2) } : null;
}

/** Checks that a YYYY-MM-DD parameter is a real calendar date; returns it. */
export function calendarDate(value: string, name: string): string {
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) {
    throw invalidParameter("query", name, `"${value}" is not a calendar date`);
  }
  return value;
}

/** start ≤ end when both are given. */
export function orderedRange(start: string | null, end: string | null, names: [string, string]): void {
  if (start && end && start > end) throw invalidParameter("query", names[0], `must not be after ${names[1]}`);
}

/** The snapshot a call reads; 503 when none is active. */
export function requireSnapshot(snapshot: LoadedSnapshot | null): LoadedSnapshot {
  if (!snapshot)
    throw new ApiError("unavailable", "no data snapshot is active yet; import one with `stockd import`");
  return snapshot;
}

/** The security a path or query ticker names; 404 when the snapshot does not list it. */
export function resolveSecurity(snapshot: LoadedSnapshot, ticker: string): Security {
  const security = isTickerLike(ticker) ? snapshot.securities.resolve(ticker) : null;
  if (!security) throw new ApiError("not_found", `unknown symbol "${ticker.slice(0, MAX_TICKER_LENGTH)}"`);
  return security;
}

/** Today in UTC, YYYY-MM-DD. */
export function todayUtc(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}
