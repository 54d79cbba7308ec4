/**
 * One definition per endpoint (http/route.ts): on the fast path (http/fast-path.ts) the edge
 * checks a route's parameters by its schemas, as Elysia does, then bills the call, then runs the
 * handler, in that order.
 */
import { describe, expect, test } from "bun:test";
import { t } from "elysia";
import { ApiError } from "../../src/errors.ts";
import type { Body } from "../../src/http/body.ts";
import { Call, IN_PROCESS } from "../../src/http/context.ts";
import { answerFast, fastPathMatcher } from "../../src/http/fast-path.ts";
import { Params, queryParams } from "../../src/http/params.ts";
import { defineRoute, type Route } from "../../src/http/route.ts";
import type { LoadedSnapshot } from "../../src/query/snapshot.ts";

const echo = defineRoute({
  path: "/echo/:symbol",
  endpoint: "quote",
  fastPath: true,
  params: t.Object({ symbol: Params.ticker("symbol") }),
  query: queryParams({
    day: Params.date("day", "a day"),
    form: Params.text("form", "a form", 10, "10-K"),
  }),
  response: t.Object({}),
  summary: "Echo",
  handler: ({ params, query }) => JSON.stringify({ symbol: params.symbol, day: query.day, form: query.form }),
});

/** Answers `path` on the fast path; returns the body, or the error it threw, and the steps taken. */
function answer(path: string, snapshot: LoadedSnapshot | null = {} as LoadedSnapshot) {
  const url = new URL(`http://stockd.test${path}`);
  const match = fastPathMatcher([echo])(url.pathname);
  if (!match) throw new Error(`no fast-path route matched ${path}`);
  const call = new Call(new Request(url.href), url, IN_PROCESS, () => new Response());
  call.snapshot = snapshot;
  const billed: string[] = [];
  try {
    const body = answerFast(match, call, (_, route) => {
      billed.push(route.endpoint);
    }) as Body;
    return { body: JSON.parse(body.bytes as string) as unknown, billed };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { error: { code: error.code, detail: error.detail, errors: error.errors }, billed };
  }
}

describe("a route on the fast path", () => {
  test("gets its parameters typed and checked, a default filled in, and is billed before its handler runs", () => {
    expect(answer("/echo/brk%2Fb?day=2024-01-31")).toEqual({
      body: { symbol: "brk/b", day: "2024-01-31", form: "10-K" },
      billed: ["quote"],
    });
  });

  test("a parameter that breaks its rule, or a required one absent, is a 400 naming it, before billing", () => {
    expect(answer("/echo/DWGT?day=2024-1-31")).toEqual({
      error: {
        code: "invalid_parameter",
        detail: "day: must be a date written YYYY-MM-DD",
        errors: [{ in: "query", name: "day", message: "must be a date written YYYY-MM-DD" }],
      },
      billed: [],
    });
    expect(answer("/echo/DWGT")).toEqual({
      error: {
        code: "invalid_parameter",
        detail: "day: is required",
        errors: [{ in: "query", name: "day", message: "is required" }],
      },
      billed: [],
    });
  });

  test("without a snapshot the answer is a 503, whatever the parameters", () => {
    expect(answer("/echo/DWGT?day=nope", null).error?.code).toBe("unavailable");
  });

  test("a path that is not the route's is left to Elysia", () => {
    const match = fastPathMatcher([echo]);
    expect(match("/echo")).toBeNull();
    expect(match("/echo/")).toBeNull();
    expect(match("/echo/DWGT/more")).toBeNull();
    expect(match("/echo/%zz")).toBeNull();
  });

  test("a parameter that is not a string is refused when the app is built: only Elysia coerces values", () => {
    const counted: Route = defineRoute({
      path: "/count",
      endpoint: "quote",
      fastPath: true,
      query: queryParams({ n: Params.positiveInt("n", "a count", 1, 10) }),
      response: t.Object({}),
      summary: "Count",
      handler: () => "{}",
    });
    expect(() => fastPathMatcher([counted])).toThrow("/count: fast-path parameter n is not a string");
  });
});
