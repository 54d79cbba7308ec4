import type { TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import { isTickerLike, MAX_TICKER_LENGTH, tickerKey } from "../../domain/tickers.ts";
import { ApiError, invalidParameter } from "../../errors.ts";
import type { LoadedSnapshot } from "../../query/snapshot.ts";
import { JSON_TYPE } from "../body.ts";
import type { Call } from "../context.ts";
import { PRICING } from "../pricing.ts";
import { defineRoute, type Route } from "../route.ts";

/** Most symbols one batch call names. */
export const MAX_BATCH_SYMBOLS = 100;

/** The single-symbol endpoints a batch call may repeat: its name in the batch path → their path. */
const TARGETS = {
  profile: "/stocks/:symbol/profile",
  quote: "/securities/:ticker/quote",
  valuation: "/securities/:ticker/valuation",
  "fundamental-metrics": "/stocks/:symbol/fundamental-metrics",
  growth: "/stocks/:symbol/growth",
  "capital-allocation": "/stocks/:symbol/capital-allocation",
  dividend: "/stocks/:symbol/dividend",
  earnings: "/stocks/:symbol/earnings",
  estimates: "/stocks/:symbol/estimates",
  "owner-earnings": "/stocks/:symbol/owner-earnings",
} as const;

const SYMBOLS = `symbols: must be 1 to ${MAX_BATCH_SYMBOLS} distinct tickers, separated by commas`;

const BatchError = t.Object({
  symbol: t.String({ description: "the symbol as the call named it" }),
  status: t.Integer({
    description: "the status the single-symbol call would answer (404: no such symbol or no data)",
  }),
  code: t.String(),
  detail: t.String(),
});

/** One symbol's outcome: the single call's body as JSON text, or the error it would answer. */
type Outcome = { symbol: string; body: string } | { symbol: string; error: ApiError };

/** The outcomes of a call, worked out once for its price and reused by its handler. */
const outcomes = new WeakMap<Call, Outcome[]>();

/**
 * `symbols` as a list: 1 to 100 tickers separated by commas (spaces around each ignored), no
 * empty item, none that cannot be a ticker, no ticker twice (in any spelling: BRK.B = brk-b).
 */
export function parseSymbols(text: string): string[] {
  const symbols = text.split(",").map((s) => s.trim());
  if (symbols.length > MAX_BATCH_SYMBOLS)
    throw invalidParameter(
      "query",
      "symbols",
      `names ${symbols.length} symbols; at most ${MAX_BATCH_SYMBOLS}`,
    );
  const seen = new Set<string>();
  for (const symbol of symbols) {
    if (!isTickerLike(symbol))
      throw invalidParameter(
        "query",
        "symbols",
        `${JSON.stringify(symbol.slice(0, MAX_TICKER_LENGTH))} is not a ticker`,
      );
    const key = tickerKey(symbol);
    if (seen.has(key)) throw invalidParameter("query", "symbols", `names ${symbol} twice`);
    seen.add(key);
  }
  return symbols;
}

/** Each symbol's outcome: the single route's handler run as its own call would run it. */
function answerEach(single: Route, snapshot: LoadedSnapshot, call: Call, symbols: string[]): Outcome[] {
  const param = single.path.includes(":ticker") ? "ticker" : "symbol";
  return symbols.map((symbol) => {
    try {
      const answer = single.handler({ params: { [param]: symbol }, query: {}, snapshot, call } as never);
      return { symbol, body: jsonText(answer) };
    } catch (error) {
      if (error instanceof ApiError) return { symbol, error };
      throw error;
    }
  });
}

/** A single route's answer as the JSON text it sends: its text as it is, an object as Elysia serialises it. */
function jsonText(answer: unknown): string {
  if (typeof answer === "string") return answer;
  if (Array.isArray(answer)) return Buffer.concat(answer as Uint8Array[]).toString("utf8");
  if (answer instanceof Response || answer instanceof Promise)
    throw new Error("a batch repeats only endpoints that answer at once from memory");
  return JSON.stringify(answer);
}

/** The batch body: its metadata, each found symbol's body under its name, the others' errors. */
function batchBody(snapshot: LoadedSnapshot, name: string, results: Outcome[]): string {
  const found = results.filter((r) => "body" in r);
  const metadata = {
    snapshot_id: snapshot.id,
    endpoint: name,
    requested: results.length,
    found: found.length,
  };
  const data = found.map((r) => `${JSON.stringify(r.symbol)}:${r.body}`).join(",");
  const errors = results.flatMap((r) =>
    "error" in r
      ? [{ symbol: r.symbol, status: r.error.status, code: r.error.code, detail: r.error.detail }]
      : [],
  );
  return `{"metadata":${JSON.stringify(metadata)},"data":{${data}},"errors":${JSON.stringify(errors)}}`;
}

function batchRoute(name: keyof typeof TARGETS, single: Route): Route {
  const unit = PRICING[single.endpoint];
  const run = (snapshot: LoadedSnapshot, call: Call, symbols: string): Outcome[] => {
    let results = outcomes.get(call);
    if (!results) {
      results = answerEach(single, snapshot, call, parseSymbols(symbols));
      outcomes.set(call, results);
    }
    return results;
  };
  return defineRoute({
    path: `/stocks/batch/${name}`,
    endpoint: "batch",
    query: t.Object({
      symbols: t.String({
        minLength: 1,
        maxLength: MAX_BATCH_SYMBOLS * (MAX_TICKER_LENGTH + 2),
        description: `1 to ${MAX_BATCH_SYMBOLS} tickers separated by commas, e.g. AAPL,MSFT; each at most once`,
        error: SYMBOLS,
      }),
    }),
    response: t.Object({
      metadata: t.Object({
        snapshot_id: t.String(),
        endpoint: t.String(),
        requested: t.Integer(),
        found: t.Integer(),
      }),
      data: t.Record(t.String(), single.response as TSchema, {
        description: `each symbol found, by the name the call gave it: the body ${single.path} answers for it`,
      }),
      errors: t.Array(BatchError),
    }),
    summary: `${single.summary}, many symbols`,
    description: `${single.path} for up to ${MAX_BATCH_SYMBOLS} symbols in one call. A symbol the single call would answer with an error (no such symbol, no data of the kind) is listed in \`errors\` and costs nothing; each symbol found costs what the single call costs (${unit} credit${unit === 1 ? "" : "s"}).`,
    price({ snapshot, call, query }) {
      return run(snapshot, call, query.symbols).filter((r) => "body" in r).length * unit;
    },
    handler({ snapshot, call, query }) {
      const body = batchBody(snapshot, name, run(snapshot, call, query.symbols));
      return new Response(body, { headers: { "content-type": JSON_TYPE } });
    },
  });
}

/** `/stocks/batch/{endpoint}` for each endpoint a batch may repeat, built over those single routes. */
export function batchRoutes(routes: readonly Route[]): Route[] {
  return Object.entries(TARGETS).map(([name, path]) => {
    const single = routes.find((r) => r.path === path);
    if (!single) throw new Error(`batch: no route ${path}`);
    return batchRoute(name as keyof typeof TARGETS, single);
  });
}
