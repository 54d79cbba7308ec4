/**
 * The app called in-process, without HTTP, for the benches that time the serving thread's own
 * cost per call (edge-calls.ts, mcp-calls.ts): a fresh accounts.db with real users and keys
 * beside a data dir's snapshots, and every limit lifted (the limiters still run on each call).
 */
import { join } from "node:path";
import type { Billing } from "../../src/accounts/billing.ts";
import type { Door } from "../../src/http/doors.ts";

/** What the doors of the app are built from (mcp-calls.ts adds `/mcp`). */
export interface DoorDeps {
  billing: Billing;
  /** The active snapshot's id and last market date. */
  activeSnapshot(): { id: string; data_as_of: string | null } | null;
}

/** The app's faces a bench calls, typed as this checkout's `createApp` has them. */
export type InProcessApp = ReturnType<typeof import("../../src/http/app.ts").createApp>;

export interface InProcess {
  app: InProcessApp;
  /** One key per user, each user with a balance no bench run exhausts. */
  keys: string[];
  activeSnapshot: DoorDeps["activeSnapshot"];
  close(): void;
}

/** Rate, burst, in-flight and failure limits no bench reaches. */
const UNLIMITED = {
  ratePerSecond: 1e9,
  burst: 1e9,
  maxInFlight: 1e9,
  maxInFlightPerUser: 1e9,
  heavySlots: 1e9,
  authFailuresPerMinute: 1e9,
  requestTimeoutMs: 10_000,
};

/**
 * The app of the checkout at `root` (loaded by path, so that `--root` can measure another
 * version of the same `createApp` API) over the active snapshot of `dir`, which gets a fresh
 * accounts.db with `users` users.
 */
export async function inProcessApp(
  root: string,
  dir: string,
  options: { users: number; doors?: (deps: DoorDeps) => Door[] },
): Promise<InProcess> {
  const { Billing } = await import(join(root, "src/accounts/billing.ts"));
  const { AccountsStore } = await import(join(root, "src/accounts/store.ts"));
  const { createApp } = await import(join(root, "src/http/app.ts"));
  const { createLogger } = await import(join(root, "src/log.ts"));
  const { openDuckDb } = await import(join(root, "src/snapshot/duckdb.ts"));
  const { SnapshotService } = await import(join(root, "src/query/snapshot.ts"));
  const log = createLogger("warn");
  const accounts = AccountsStore.open(join(dir, "accounts.db"));
  const keys = Array.from({ length: options.users }, (_, i) => {
    const user = accounts.createUser(`bench-${i}@bench.invalid`, 1_000_000_000);
    if (!user.ok) throw new Error(user.message);
    return accounts.createKey(user.value.id, "bench", null).key as string;
  });
  const billing = new Billing(accounts, 1000);
  const duckdb = await openDuckDb();
  const snapshots = new SnapshotService(duckdb, dir, log);
  await snapshots.refresh();
  const activeSnapshot = () => snapshots.current()?.manifest ?? null;
  const doors = options.doors?.({ billing, activeSnapshot }) ?? [];
  const app: InProcessApp = createApp({
    accounts,
    billing,
    snapshots,
    log,
    version: "bench",
    limits: UNLIMITED,
    doors,
  });
  return {
    app,
    keys,
    activeSnapshot,
    close() {
      billing.close();
      snapshots.close();
      accounts.close();
      duckdb.closeSync();
    },
  };
}
