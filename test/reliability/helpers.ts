/**
 * Shared helpers of the reliability tests: the replay seed, a seeded PRNG, ledger probes and a
 * gate that holds calls inside their handler.
 */
import { expect } from "bun:test";
import { rng as mulberry32 } from "../../src/demo/universe.ts";
import type { LoadedSnapshot } from "../../src/query/snapshot.ts";
import type { TestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

// ---------------------------------------------------------------------------------------------
// Seeds

/**
 * The seed of a randomised test: `STOCKD_TEST_SEED` when set (to replay a failing run), else a
 * fresh one. Always printed, so a failing run names the seed that replays it.
 */
export function testSeed(label: string): number {
  const raw = process.env.STOCKD_TEST_SEED;
  let seed: number;
  if (raw !== undefined && raw !== "") {
    seed = Number(raw);
    if (!Number.isSafeInteger(seed)) throw new Error(`STOCKD_TEST_SEED must be an integer, got "${raw}"`);
    seed |= 0;
  } else {
    seed = (Math.random() * 2 ** 32) | 0;
  }
  console.log(`[${label}] seed=${seed} (replay: STOCKD_TEST_SEED=${seed})`);
  return seed;
}

/** The demo's seeded PRNG with integer, pick and shuffle draws: the same seed gives the same sequence. */
export function rng(seed: number) {
  const next = mulberry32(seed);
  return {
    next,
    /** An integer in [min, max]. */
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    shuffle: <T>(items: readonly T[]): T[] => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j] as T, out[i] as T];
      }
      return out;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Ledger and account probes

export interface UsageRows {
  /** Number of `usage` ledger rows (one per charged call). */
  rows: number;
  /** Credits those rows debited. */
  credits: number;
  /** The request ids the rows name. */
  requestIds: string[];
}

/**
 * The user's `usage` rows in the ledger that no `refund` row took back (what stands charged),
 * read on the server's own connection.
 */
export function usageRows(server: Pick<TestServer, "accounts">, userId: string): UsageRows {
  const rows = server.accounts.db
    .query<{ delta: number; request_id: string }, { u: string }>(
      `SELECT delta, request_id FROM ledger d WHERE user_id = $u AND reason = 'usage'
         AND NOT EXISTS (SELECT 1 FROM ledger r
                         WHERE r.reason = 'refund' AND r.user_id = d.user_id AND r.request_id = d.request_id)
       ORDER BY id`,
    )
    .all({ u: userId });
  return {
    rows: rows.length,
    credits: rows.reduce((n, r) => n - r.delta, 0),
    requestIds: rows.map((r) => r.request_id),
  };
}

/**
 * balance = sum(ledger.delta) ≥ 0, the daily usage table equals the ledger's usage rows less
 * their refunds, by endpoint, and the expected balance when given. Returns the balance.
 */
export function expectLedgerConsistent(
  server: Pick<TestServer, "accounts">,
  userId: string,
  expected?: number,
): number {
  const balance = server.accounts.getBalance(userId) as number;
  expect(balance).toBeGreaterThanOrEqual(0);
  expect(server.accounts.ledgerSum(userId)).toBe(balance);
  const fromLedger = server.accounts.db
    .query(
      `SELECT d.endpoint, count(*) - count(r.request_id) AS calls, -sum(d.delta) - coalesce(sum(r.delta), 0) AS credits
       FROM ledger d LEFT JOIN ledger r
         ON r.reason = 'refund' AND r.user_id = d.user_id AND r.request_id = d.request_id
       WHERE d.user_id = ? AND d.reason = 'usage' GROUP BY d.endpoint HAVING calls > 0 ORDER BY d.endpoint`,
    )
    .all(userId);
  expect(server.accounts.usageSince(userId, "0000-01-01")).toEqual(fromLedger as never);
  if (expected !== undefined) expect(balance).toBe(expected);
  return balance;
}

interface AccountView {
  balance: number;
  reserved: number;
  available: number;
}

/** `GET /account` (free) with this key. */
export async function account(server: TestServer, key: string): Promise<AccountView> {
  const res = await server.get("/account", key);
  expect(res.status).toBe(200);
  return (await res.json()) as AccountView;
}

/**
 * Waits until no credits are held for the key's user (calls that were cut off still settle
 * their reservation once their handler ends); fails if some stay held.
 */
export async function expectNothingHeld(server: TestServer, key: string, withinMs = 3000): Promise<void> {
  const deadline = Date.now() + withinMs;
  let view = await account(server, key);
  while (view.reserved !== 0 && Date.now() < deadline) {
    await Bun.sleep(25);
    view = await account(server, key);
  }
  expect(view.reserved).toBe(0);
  expect(view.available).toBe(view.balance);
}

// ---------------------------------------------------------------------------------------------
// A gate inside the handler

/**
 * A billed call (cost 1, 200 on the demo data) whose handler runs exactly one DuckDB query, so
 * the gate below holds it inside its handler. (Prices are served from a memory-mapped file,
 * not DuckDB: /stocks/{symbol}/price cannot be held.)
 */
export const GATED = "/calendar/earnings?ticker=DWGT&start=2015-01-01";
/** The same endpoint with other parameters. */
export const GATED_OTHER = "/calendar/earnings?ticker=DWGT&start=2016-01-01";
/** The slowest cheap call: two DuckDB queries over the whole filings table. */
export const SLOW = "/sec_filings?per_page=1000";

export interface HandlerGate {
  /** Requests that reached the edge's serve step (acquired the snapshot). */
  readonly acquired: number;
  /** Calls waiting at the gate, i.e. inside their handler, reservation held, in a DuckDB query. */
  readonly waiting: number;
  /** Gated queries not finished yet (waiting, or let through and still running). */
  readonly busy: number;
  /** Waits until every gated query has finished (DuckDB must not be closed under one). */
  settled(ms?: number): Promise<boolean>;
  /** Lets every waiting and later call through. */
  open(): void;
  /** Removes the gate (restores the snapshot service). */
  remove(): void;
}

/**
 * Holds every DuckDB query of the server's snapshot (e.g. GATED) until `open()`: a call that
 * reaches the gate has passed auth, limits and the reservation, and has no response yet. Opened
 * at once, it only counts queries (`busy`, `settled`). Test-only instrumentation of the
 * in-process server's snapshot service; nothing in src/ is changed.
 */
export function gateHandlers(server: TestServer): HandlerGate {
  const service = server.snapshots;
  const original = service.acquire;
  let release: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    release = resolve;
  });
  const state = { acquired: 0, waiting: 0, busy: 0 };
  service.acquire = function (this: typeof service) {
    const snapshot = original.call(service);
    if (!snapshot) return snapshot;
    state.acquired++;
    return new Proxy(snapshot, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (prop === "all") {
          return async (...args: Parameters<LoadedSnapshot["all"]>) => {
            state.busy++;
            state.waiting++;
            try {
              await opened;
              state.waiting--;
              return await target.all(...args);
            } finally {
              state.busy--;
            }
          };
        }
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  };
  return {
    get acquired() {
      return state.acquired;
    },
    get waiting() {
      return state.waiting;
    },
    get busy() {
      return state.busy;
    },
    settled: (ms = 5000) => waitUntil(() => state.busy === 0, ms),
    open: () => release(),
    remove() {
      release();
      service.acquire = original;
    },
  };
}

/** Runs `body` with the server's queries gated; the gate is removed and its queries settled after. */
export async function withGate<T>(server: TestServer, body: (gate: HandlerGate) => Promise<T>): Promise<T> {
  const gate = gateHandlers(server);
  try {
    return await body(gate);
  } finally {
    gate.remove();
    await gate.settled();
  }
}

// Moved to test/helpers/ (edge.ts, server.ts, wait.ts); re-exported while other work still imports them from here.
export { type EdgeUnderTest, startEdge } from "../helpers/edge.ts";
export { limits } from "../helpers/server.ts";
export { waitUntil } from "../helpers/wait.ts";
