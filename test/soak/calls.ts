/**
 * The calls the soak makes over the demo data: billed calls that succeed (with their price
 * from the pricing table) and calls that fail for a known reason (and must cost nothing).
 */
import { type Endpoint, PRICING } from "../../src/http/pricing.ts";
import type { Rng } from "./lib.ts";

export interface BilledCall {
  kind: "billed";
  path: string;
  endpoint: Endpoint;
  cost: number;
}

export interface FailingCall {
  kind: "failing";
  path: string;
  method: string;
  /** The status this call must get (with a valid key and enough credits). */
  status: number;
  /**
   * The route is billed and fails in its handler, after the price was reserved: a user who
   * cannot cover the price gets 402 first.
   */
  reserves: boolean;
  what: string;
}

/** Demo tickers every billed endpoint below answers for. */
const TICKERS = ["DWGT", "DCLD", "DSEM"] as const;

function billed(endpoint: Endpoint, path: string): BilledCall {
  return { kind: "billed", path, endpoint, cost: PRICING[endpoint] };
}

/** A billed call answered from memory (no DuckDB query): the crash load's bulk. */
export function fastBilledCall(rng: Rng): BilledCall {
  const t = rng.pick(TICKERS);
  const options: (() => BilledCall)[] = [
    () => billed("quote", `/securities/${t}/quote`),
    () => billed("profile", `/stocks/${t}/profile`),
    () => billed("growth", `/stocks/${t}/growth`),
    () => billed("search", `/securities/search?query=${t}`),
  ];
  return rng.pick(options)();
}

/** A billed call that succeeds with a valid key and enough credits. */
export function billedCall(rng: Rng): BilledCall {
  const t = rng.pick(TICKERS);
  const year = rng.int(2019, 2024);
  const options: (() => BilledCall)[] = [
    () => billed("search", `/securities/search?query=${rng.pick(["Demo", t, "Bank", "Corp"])}`),
    () => billed("quote", `/securities/${t}/quote`),
    () => billed("profile", `/stocks/${t}/profile`),
    () =>
      billed("price", `/stocks/${t}/price?start_date=${year}-01-01&end_date=${year}-0${rng.int(2, 9)}-01`),
    () => billed("secfiling", `/stocks/${t}/secfiling?limit=${rng.int(1, 20)}`),
    () => billed("sec_filings", `/sec_filings?ticker=${t}&per_page=${rng.int(1, 50)}`),
    () => billed("valuation_history", `/securities/${t}/valuation/history`),
    () => billed("valuation_points", `/stocks/${t}/valuation-history`),
    () => billed("growth", `/stocks/${t}/growth`),
    () => billed("income_statement", `/stocks/${t}/income-statement`),
  ];
  return rng.pick(options)();
}

const FAILING: readonly FailingCall[] = [
  {
    kind: "failing",
    path: "/stocks/NOPE/profile",
    method: "GET",
    status: 404,
    reserves: true,
    what: "unknown symbol",
  },
  {
    kind: "failing",
    path: "/stocks/DWGT/price",
    method: "GET",
    status: 400,
    reserves: false,
    what: "missing dates",
  },
  {
    kind: "failing",
    path: "/stocks/DWGT/price?start_date=2025-01-01&end_date=2024-01-01",
    method: "GET",
    status: 400,
    reserves: true,
    what: "start after end",
  },
  {
    kind: "failing",
    path: "/no/such/route",
    method: "GET",
    status: 404,
    reserves: false,
    what: "unknown route",
  },
  {
    kind: "failing",
    path: "/account?api_key=x",
    method: "GET",
    status: 400,
    reserves: false,
    what: "key in the URL",
  },
  {
    kind: "failing",
    path: "/stocks/DWGT/profile",
    method: "POST",
    status: 405,
    reserves: false,
    what: "POST",
  },
];

export function failingCall(rng: Rng): FailingCall {
  return rng.pick(FAILING);
}
