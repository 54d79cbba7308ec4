import type { TObject, TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Elysia } from "elysia";
import type { Billing } from "../accounts/billing.ts";
import { ApiError, type FieldError } from "../errors.ts";
import type { LoadedSnapshot } from "../query/snapshot.ts";
import type { RequestContext } from "./context.ts";
import { errorResponses } from "./models/common.ts";
import { parseRule, requireSnapshot, snapshotOf } from "./params.ts";
import { billingPlugin, reserveCall } from "./plugins/billing.ts";
import type { Endpoint } from "./pricing.ts";
import type { operation } from "./routes/operation.ts";

/** The content type of every JSON body the routes return. */
export const JSON_TYPE = "application/json;charset=utf-8";

type Values = Record<string, string>;

/**
 * A 200 body as a route makes it: JSON text, or its pieces in order (a price window: the
 * brackets around rows that are a view of a memory-mapped file, see PriceStore).
 */
export type BodyBytes = string | Uint8Array[];

/** A body's length (for a string, in UTF-16 units: its bytes when ASCII, as JSON mostly is). */
export function sizeOf(body: BodyBytes): number {
  if (typeof body === "string") return body.length;
  let size = 0;
  for (const piece of body) size += piece.byteLength;
  return size;
}

/** A body's length in bytes (UTF-8 for text). */
export function byteLength(body: BodyBytes): number {
  return typeof body === "string" ? Buffer.byteLength(body) : sizeOf(body);
}

/** The body as a Response takes it whole: the text, or the pieces copied into one Blob. */
export const wholeBody = (body: BodyBytes): string | Blob =>
  typeof body === "string" ? body : new Blob(body);

/**
 * A route answered from the snapshot's memory: a lookup, no query engine, no await. The
 * app dispatches these paths with `directMatcher` straight to the edge (`Edge.handleDirect`),
 * without Elysia; Elysia registers the same definition (same schemas, same `body`) for the
 * OpenAPI document and for requests that reach it (the app's `viaElysia`).
 */
export interface DirectRouteDefinition {
  /** The path pattern, `:name` for a parameter (the same syntax for `directMatcher` and Elysia). */
  path: string;
  endpoint: Endpoint;
  /** String properties only: the values are passed as they arrive. */
  params: TObject;
  query?: TObject;
  /** The 200 body's schema and the operation's description, for the OpenAPI document. */
  response: TSchema;
  detail: ReturnType<typeof operation>;
  /** The 200 body, JSON, for valid parameters; throws ApiError for any other answer. */
  body(snapshot: LoadedSnapshot, params: Values, query: Values): BodyBytes;
}

interface Checked {
  name: string;
  required: boolean;
  error: { name: string; message: string } | null;
  check: (value: unknown) => boolean;
}

/** A definition with its parameter checks compiled once. */
export class DirectRoute {
  private readonly pathChecks: Checked[];
  private readonly queryChecks: Checked[];

  constructor(readonly definition: DirectRouteDefinition) {
    this.pathChecks = compile(definition.params);
    this.queryChecks = definition.query ? compile(definition.query) : [];
  }

  get endpoint(): Endpoint {
    return this.definition.endpoint;
  }

  /** The same route in Elysia: validated and billed by Elysia's hooks, answered by the same `body`. */
  elysia(billing: Billing) {
    const d = this.definition;
    return new Elysia({ name: `routes.direct.${d.endpoint}` }).use(billingPlugin(billing)).get(
      d.path,
      ({ params, query, request }) =>
        new Response(wholeBody(d.body(snapshotOf(request), params as Values, query as Values)), {
          headers: { "content-type": JSON_TYPE },
        }),
      {
        billed: d.endpoint,
        params: d.params,
        ...(d.query ? { query: d.query } : {}),
        response: { 200: d.response, ...errorResponses },
        detail: d.detail,
      },
    );
  }

  /**
   * Validates the parameters as Elysia does for the same schemas, with the same 400 (the
   * parameter named, "is required" when absent), then reserves the call's price (402 when
   * the balance does not cover it) and returns the body. Throws ApiError.
   */
  answer(ctx: RequestContext, billing: Billing, pathValues: Values, url: URL): BodyBytes {
    const snapshot = requireSnapshot(ctx.snapshot);
    const params = validate(this.pathChecks, "path", (name) => pathValues[name]);
    const query = validate(this.queryChecks, "query", (name) => url.searchParams.get(name) ?? undefined);
    reserveCall(billing, ctx, this.endpoint);
    return this.definition.body(snapshot, params, query);
  }
}

function compile(schema: TObject): Checked[] {
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(schema.properties).map(([name, property]: [string, TSchema]) => {
    const compiled = TypeCompiler.Compile(property);
    return {
      name,
      required: required.has(name),
      error: parseRule(property.error),
      check: (value: unknown) => compiled.Check(value),
    };
  });
}

function validate(checks: Checked[], where: FieldError["in"], given: (name: string) => string | undefined) {
  const values: Values = {};
  for (const c of checks) {
    const value = given(c.name);
    if (value === undefined) {
      if (c.required) throw parameterError(where, c.error?.name ?? c.name, "is required");
      continue;
    }
    if (!c.check(value))
      throw parameterError(where, c.error?.name ?? c.name, c.error?.message ?? "is invalid");
    values[c.name] = value;
  }
  return values;
}

function parameterError(where: FieldError["in"], name: string, message: string): ApiError {
  return new ApiError("invalid_parameter", `${name}: ${message}`, [{ in: where, name, message }]);
}

/** A direct route and the path parameters of the request it matched. */
export interface DirectMatch {
  route: DirectRoute;
  params: Values;
}

/**
 * A matcher of the direct routes' paths: literal segments equal, each `:name` segment a
 * non-empty value (percent-decoded, as Elysia decodes it). A path none matches goes to Elysia.
 */
export function directMatcher(routes: readonly DirectRoute[]): (pathname: string) => DirectMatch | null {
  const compiled = routes.map((route) => ({
    route,
    segments: route.definition.path
      .split("/")
      .map((part) => (part.startsWith(":") ? { param: part.slice(1) } : { literal: part })),
  }));
  return (pathname) => {
    const parts = pathname.split("/");
    for (const { route, segments } of compiled) {
      if (segments.length !== parts.length) continue;
      const params: Values = {};
      let matched = true;
      for (let i = 0; i < parts.length && matched; i++) {
        const segment = segments[i] as { param?: string; literal?: string };
        const part = parts[i] as string;
        if (segment.param === undefined) matched = segment.literal === part;
        else if (part === "") matched = false;
        else {
          const value = decodeSegment(part);
          if (value === null) matched = false;
          else params[segment.param] = value;
        }
      }
      if (matched) return { route, params };
    }
    return null;
  };
}

function decodeSegment(part: string): string | null {
  if (!part.includes("%")) return part;
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}
