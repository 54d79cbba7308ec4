import type { TObject, TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { type FieldError, invalidParameter } from "../errors.ts";
import type { Body } from "./body.ts";
import type { Call } from "./context.ts";
import { parseRule, requireSnapshot } from "./params.ts";
import { type Bill, fastBody, type Route } from "./route.ts";

type Values = Record<string, string>;

/** One parameter's check, compiled once. */
interface Check {
  name: string;
  required: boolean;
  /** Filled in when the parameter is absent, as Elysia fills it. */
  fallback: string | undefined;
  /** The name and rule a failure shows (the schema's `error`, see params.ts). */
  rule: { name: string; message: string } | null;
  check: (value: unknown) => boolean;
}

/** A fast-path route with its path split and its parameter checks compiled. */
interface FastRoute {
  route: Route & { fastPath: true };
  segments: ({ param: string } | { literal: string })[];
  path: Check[];
  query: Check[];
}

/** A fast-path route and the path parameters of the request it matched. */
export interface FastMatch {
  route: FastRoute;
  params: Values;
}

/**
 * The matcher of the fast-path routes' paths: literal segments equal, each `:name` segment a
 * non-empty value (percent-decoded, as Elysia decodes it). A path none matches goes to Elysia.
 */
export function fastPathMatcher(routes: readonly Route[]): (pathname: string) => FastMatch | null {
  const compiled: FastRoute[] = [];
  for (const route of routes) {
    if (!route.fastPath) continue;
    compiled.push({
      route,
      segments: route.path
        .split("/")
        .map((part) => (part.startsWith(":") ? { param: part.slice(1) } : { literal: part })),
      path: compile(route.path, route.params),
      query: compile(route.path, route.query),
    });
  }
  // A path of a routed route without parameters is its own, even where a fast-path route's
  // parameter would take it (`/stocks/batch/profile` is not the profile of "batch").
  const routed = new Set(routes.filter((r) => !r.fastPath && !r.path.includes(":")).map((r) => r.path));
  return (pathname) => {
    if (routed.has(pathname)) return null;
    const parts = pathname.split("/");
    for (const route of compiled) {
      const params = matchSegments(route.segments, parts);
      if (params) return { route, params };
    }
    return null;
  };
}

/**
 * Answers a matched call as Elysia would answer it for the same schemas, without its per-call
 * work: 503 without a snapshot; each parameter checked, with the same 400 (the parameter named,
 * "is required" when absent); then the bill step (402 when the balance does not cover the
 * price); then the handler's body (as CSV for `format=csv`, route.ts `fastBody`). Throws ApiError.
 * The answer is a Promise only when the bill step waits (a store that asks its database).
 */
export function answerFast(match: FastMatch, call: Call, bill: Bill): Body | Promise<Body> {
  const { route, path, query } = match.route;
  const snapshot = requireSnapshot(call.snapshot);
  const params = validate(path, "path", (name) => match.params[name]);
  const search = call.url.searchParams;
  const values = validate(query, "query", (name) => search.get(name) ?? undefined);
  const input = { params, query: values, snapshot, call } as Parameters<typeof route.handler>[0];
  const billed = bill(call, route);
  return billed instanceof Promise ? billed.then(() => fastBody(route, input)) : fastBody(route, input);
}

function compile(path: string, schema: TObject | undefined): Check[] {
  if (!schema) return [];
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(schema.properties).map(([name, property]: [string, TSchema]) => {
    // The values are passed as they arrive: a number or a list would need Elysia's coercion.
    if (property.type !== "string") throw new Error(`${path}: fast-path parameter ${name} is not a string`);
    const compiled = TypeCompiler.Compile(property);
    return {
      name,
      required: required.has(name),
      fallback: typeof property.default === "string" ? property.default : undefined,
      rule: parseRule(property.error),
      check: (value: unknown) => compiled.Check(value),
    };
  });
}

function validate(checks: Check[], where: FieldError["in"], given: (name: string) => string | undefined) {
  const values: Values = {};
  for (const c of checks) {
    const value = given(c.name) ?? c.fallback;
    if (value === undefined) {
      if (c.required) throw invalidParameter(where, c.rule?.name ?? c.name, "is required");
      continue;
    }
    if (!c.check(value))
      throw invalidParameter(where, c.rule?.name ?? c.name, c.rule?.message ?? "is invalid");
    values[c.name] = value;
  }
  return values;
}

/** The path parameters when `parts` match the segments, else null. */
function matchSegments(segments: FastRoute["segments"], parts: string[]): Values | null {
  if (segments.length !== parts.length) return null;
  const params: Values = {};
  for (let i = 0; i < parts.length; i++) {
    const segment = segments[i] as { param?: string; literal?: string };
    const part = parts[i] as string;
    if (segment.param === undefined) {
      if (segment.literal !== part) return null;
    } else {
      const value = part === "" ? null : decodeSegment(part);
      if (value === null) return null;
      params[segment.param] = value;
    }
  }
  return params;
}

function decodeSegment(part: string): string | null {
  if (!part.includes("%")) return part;
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}
