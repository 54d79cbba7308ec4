/**
 * The model of the soak's simulation (simulation.ts): users and keys as the model sees them, the
 * steps and their weights, and the calls it plans with what each may get.
 */
import { billedCall, failingCall } from "./calls.ts";
import type { Rng } from "./lib.ts";

/** README: "a disabled key fails on a running server within 1 s" (the server polls every second). */
export const DISABLE_BOUND_MS = 1000;
/** Allowed on top: the probe's own period and timer jitter. */
export const PROBE_SLACK_MS = 150;
export const PROBE_EVERY_MS = 25;

export type KeyState = "enabled" | "disabled" | "uncertain";

export interface SimKey {
  key: string;
  id: string;
  state: KeyState;
}

export interface SimUser {
  id: string;
  email: string;
  /** The model's balance: grants and debits the CLI reported, minus what 2xx responses charged. */
  balance: number;
  keys: SimKey[];
  /**
   * Until then (performance.now()) a running server may still use the balance from before
   * the last CLI grant or debit: it caches balances and sees other processes' changes at its
   * next 1 s poll, like key changes.
   */
  staleUntil: number;
}

export const STEPS = {
  grant: 12,
  debit: 6,
  calls: 40,
  callsWithGrant: 8,
  disable: 6,
  enable: 12,
  kill: 6,
  killUnderLoad: 6,
  term: 5,
} as const;
export type Step = keyof typeof STEPS;

/** One planned call and what a client may see. */
export interface Planned {
  path: string;
  method: string;
  key: string | null;
  user: SimUser | null;
  /** The price, when it is a billed call that may succeed. */
  cost: number;
  /** Statuses allowed; a 2xx among them must charge `cost`. */
  allowed: number[];
}

/** A random call by one of `users`, and what it may get by the model's view of its key (`tight`: a time budget so short a 503 may come). */
export function planCall(rng: Rng, users: readonly SimUser[], tight: boolean): Planned {
  const roll = rng.next();
  const user = rng.pick(users);
  const key = rng.pick(user.keys);
  const budget = tight ? [503] : [];
  const authed = (ok: number[]) =>
    key.state === "enabled" ? ok : key.state === "disabled" ? [401] : [401, ...ok];
  if (roll < 0.68) {
    const c = billedCall(rng);
    return {
      path: c.path,
      method: "GET",
      key: key.key,
      user,
      cost: c.cost,
      allowed: authed([200, 402, ...budget]),
    };
  }
  if (roll < 0.82) {
    const c = failingCall(rng);
    // Admission (method, key in the URL) comes before authentication; the rest after it.
    const early = c.status === 405 || c.path.includes("api_key");
    return {
      path: c.path,
      method: c.method,
      key: key.key,
      user,
      cost: 0,
      allowed: early ? [c.status] : authed([c.status, ...(c.reserves ? [402] : []), ...budget]),
    };
  }
  if (roll < 0.9)
    return {
      path: "/account",
      method: "GET",
      key: key.key,
      user,
      cost: 0,
      allowed: authed([200, ...budget]),
    };
  if (roll < 0.95)
    return {
      path: billedCall(rng).path,
      method: "GET",
      key: null,
      user: null,
      cost: 0,
      allowed: [401],
    };
  return {
    path: "/stocks/DWGT/profile",
    method: "GET",
    key: `sk_${rng.word(43)}`,
    user: null,
    cost: 0,
    allowed: [401],
  };
}

/**
 * A user whose balance covers everything this burst could hold at once (each billed call's
 * price; 2, the highest price, for each failing call, which may be reserved before it
 * fails) must not get 402, unless a CLI change to the balance is younger than the poll.
 */
export function no402WhenCovered(plans: Planned[]): void {
  const exposure = new Map<SimUser, number>();
  for (const p of plans)
    if (p.user) exposure.set(p.user, (exposure.get(p.user) ?? 0) + (p.cost > 0 ? p.cost : 2));
  const now = performance.now();
  for (const p of plans)
    if (p.user && now > p.user.staleUntil && p.user.balance >= (exposure.get(p.user) ?? 0))
      p.allowed = p.allowed.filter((s) => s !== 402);
}
