/**
 * Per-key and per-address limits of the HTTP edge, in memory: they protect one serving
 * process, and restart with it. The per-key rate may instead be counted across replicas in
 * Redis (shared-rate.ts), behind the same `KeyRate` seam.
 */

/**
 * What a key's rate says of one call: a token taken (with what is left of the burst and the
 * seconds until it is whole again), or the seconds until a token is free. `policy` is the
 * `RateLimit-Policy` value of the count that answered.
 */
export type RateVerdict =
  | { ok: true; remaining: number; resetSeconds: number; policy: string }
  | { ok: false; retryAfterSeconds: number; reason: string; policy: string };

/**
 * The per-key rate limit, one token a call: this process's token bucket (`RateLimiter`), or
 * a count shared by every replica (`SharedRate`, shared-rate.ts). A verdict the process can
 * give at once is returned as it is; only a shared count is awaited.
 */
export interface KeyRate {
  take(key: string): RateVerdict | Promise<RateVerdict>;
  /** Whether the count is shared across replicas now (false: this process's own). */
  readonly shared: boolean;
  /** How many calls the shared count failed and this process's own answered instead. */
  readonly fallbacks: number;
  close(): void;
}

/** The reason of every refusal by a key's rate. */
export const RATE_EXCEEDED = "rate limit exceeded";

/**
 * `RateLimit-Policy` and `RateLimit` (IETF draft-ietf-httpapi-ratelimit-headers): the policy
 * `"burst"`, and what is left of it. A refusal says `r=0` and, as `t`, the same seconds as its
 * `Retry-After` (the draft: a `Retry-After` never earlier than the end of `t`).
 */
export function rateHeaders(verdict: RateVerdict): Record<string, string> {
  const left = verdict.ok
    ? `r=${verdict.remaining};t=${verdict.resetSeconds}`
    : `r=0;t=${verdict.retryAfterSeconds}`;
  return { "ratelimit-policy": verdict.policy, ratelimit: `"burst";${left}` };
}

/** The `RateLimit-Policy` value of a bucket of `burst` tokens refilled at `rate` a second. */
export function burstPolicy(rate: number, burst: number): string {
  return `"burst";q=${burst};w=${Math.max(1, Math.ceil(burst / rate))}`;
}

/**
 * This process's share of a limit counted over `replicas` processes (`rate_limit_replicas`):
 * the rate divided by their number, and the burst too (at least one token), so that all of
 * them together grant at most the configured limit.
 */
export function replicaShare(rate: number, burst: number, replicas: number): { rate: number; burst: number } {
  return { rate: rate / replicas, burst: Math.max(1, Math.floor(burst / replicas)) };
}

interface Bucket {
  tokens: number;
  updated: number;
}

/** How many idle entries a limiter keeps before it sweeps: memory stays bounded under floods. */
const SWEEP_AT = 50_000;

/** A token bucket per key: `burst` tokens, refilled at `rate` per second. One call takes one token. */
export class RateLimiter implements KeyRate {
  readonly shared = false;
  readonly fallbacks = 0;
  private readonly buckets = new Map<string, Bucket>();
  private readonly policy: string;

  constructor(
    private readonly rate: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.policy = burstPolicy(rate, burst);
  }

  /** Takes a token for `key`, or says how long until one is free. */
  take(key: string): RateVerdict {
    const at = this.now();
    const bucket = this.refill(key, at);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      const remaining = Math.floor(bucket.tokens);
      const resetSeconds = Math.ceil((this.burst - bucket.tokens) / this.rate);
      return { ok: true, remaining, resetSeconds, policy: this.policy };
    }
    const wait = Math.max(1, Math.ceil((1 - bucket.tokens) / this.rate));
    return { ok: false, retryAfterSeconds: wait, reason: RATE_EXCEEDED, policy: this.policy };
  }

  close(): void {}

  private refill(key: string, at: number): Bucket {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= SWEEP_AT) this.sweep(at);
      bucket = { tokens: this.burst, updated: at };
      this.buckets.set(key, bucket);
      return bucket;
    }
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((at - bucket.updated) / 1000) * this.rate);
    bucket.updated = at;
    return bucket;
  }

  /** Drops buckets that have refilled completely (they equal a fresh bucket). */
  private sweep(at: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((at - bucket.updated) / 1000) * this.rate >= this.burst) this.buckets.delete(key);
    }
  }
}

/** Calls in flight per key (or per user), capped. */
export class InFlightLimiter {
  private readonly counts = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Counts a call in, or refuses it; pair a success with `leave`. */
  enter(key: string): boolean {
    const n = this.counts.get(key) ?? 0;
    if (n >= this.max) return false;
    this.counts.set(key, n + 1);
    return true;
  }

  leave(key: string): void {
    const n = (this.counts.get(key) ?? 1) - 1;
    if (n > 0) this.counts.set(key, n);
    else this.counts.delete(key);
  }
}

/**
 * Heavy calls (those answered by queries over the snapshot's tables) run at most `slots` at a
 * time, one user's at most `slots - 1` of them (at least 1), so that one user never holds
 * every slot while another waits. Calls that cannot start wait in their user's queue; a slot
 * set free goes to the next user in turn (round robin over the users waiting), not to
 * whoever queued most. So another user's heavy call waits at most for one call to end.
 */
export class FairGate {
  private running = 0;
  private readonly held = new Map<string, number>();
  /** Waiting calls by user; the map's order is the order in which users are served. */
  private readonly queues = new Map<string, ((admitted: boolean) => void)[]>();
  private readonly perUser: number;

  constructor(private readonly slots: number) {
    this.perUser = Math.max(1, slots - 1);
  }

  /**
   * Resolves true when the call may run (pair it with `leave` once it has run), or false when
   * it was withdrawn while it waited. `onQueued` gets the withdrawal, for a call that waits.
   */
  enter(user: string, onQueued?: (withdraw: () => void) => void): Promise<boolean> {
    if (this.running < this.slots && (this.held.get(user) ?? 0) < this.perUser && !this.queues.has(user)) {
      this.take(user);
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const queue = this.queues.get(user);
      if (queue) queue.push(resolve);
      else this.queues.set(user, [resolve]);
      onQueued?.(() => {
        const waiting = this.queues.get(user);
        const at = waiting?.indexOf(resolve) ?? -1;
        if (!waiting || at === -1) return;
        waiting.splice(at, 1);
        if (waiting.length === 0) this.queues.delete(user);
        resolve(false);
      });
    });
  }

  leave(user: string): void {
    this.running--;
    const n = (this.held.get(user) ?? 1) - 1;
    if (n > 0) this.held.set(user, n);
    else this.held.delete(user);
    this.next();
  }

  /** Calls waiting for a slot (for tests and metrics). */
  get waiting(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.length;
    return n;
  }

  private take(user: string): void {
    this.running++;
    this.held.set(user, (this.held.get(user) ?? 0) + 1);
  }

  /** Starts waiting calls while slots are free, one per user in turn. */
  private next(): void {
    for (const [user, queue] of this.queues) {
      if (this.running >= this.slots) return;
      if ((this.held.get(user) ?? 0) >= this.perUser) continue;
      const start = queue.shift() as (admitted: boolean) => void;
      this.queues.delete(user);
      // Served: to the back of the line, if it has more waiting.
      if (queue.length > 0) this.queues.set(user, queue);
      this.take(user);
      start(true);
    }
  }
}

/**
 * Failed authentications per client address, counted in a one-minute window that starts at
 * the address's first failure. An address over the limit is refused before its key is even
 * hashed, so a flood of bad keys costs little. IPv6 addresses count per /64 (one host
 * usually holds a whole /64). Memory is bounded: past 50,000 addresses, expired windows are
 * swept, and if that frees nothing all are forgotten (a flood from that many addresses within
 * a minute resets the throttle rather than the server's memory).
 */
export class AuthFailureThrottle {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Seconds until the address may try again, or 0 when it may now. */
  blockedFor(address: string): number {
    const window = this.windows.get(group(address));
    const at = this.now();
    if (!window || at - window.start >= 60_000 || window.count < this.perMinute) return 0;
    return Math.max(1, Math.ceil((60_000 - (at - window.start)) / 1000));
  }

  fail(address: string): void {
    const key = group(address);
    const at = this.now();
    let window = this.windows.get(key);
    if (!window || at - window.start >= 60_000) {
      if (this.windows.size >= SWEEP_AT) this.sweep(at);
      window = { start: at, count: 0 };
      this.windows.set(key, window);
    }
    window.count++;
  }

  private sweep(at: number): void {
    for (const [key, window] of this.windows) if (at - window.start >= 60_000) this.windows.delete(key);
    if (this.windows.size >= SWEEP_AT) this.windows.clear();
  }
}

/** IPv6 addresses by their /64 prefix; IPv4 (and IPv4-mapped) as they are. */
function group(address: string): string {
  if (!address.includes(":") || address.startsWith("::ffff:")) return address;
  return address.split(":").slice(0, 4).join(":");
}
