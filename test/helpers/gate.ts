/**
 * A gate that holds a test server's calls inside their handler (in their DuckDB query), with
 * the calls it can hold: for tests of what happens to a call in flight.
 */
import type { LoadedSnapshot } from "../../src/query/snapshot.ts";
import type { TestServer } from "./server.ts";
import { waitUntil } from "./wait.ts";

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
