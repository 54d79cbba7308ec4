import { RedisClient } from "bun";
import type { Limits, RateSharing } from "../config.ts";
import { withDeadline } from "../deadline.ts";
import type { Logger } from "../log.ts";
import {
  burstPolicy,
  type KeyRate,
  RATE_EXCEEDED,
  RateLimiter,
  type RateVerdict,
  replicaShare,
} from "./limits.ts";

/**
 * GCRA (the generic cell rate algorithm: a token bucket kept as one timestamp per key), in one
 * script so that the read and the write are atomic, on Redis's clock so that replicas' clocks
 * play no part. KEYS[1] holds the key's theoretical arrival time in microseconds; ARGV[1] is
 * the interval a token stands for, ARGV[2] the tolerance (burst × interval), both in
 * microseconds. Returns {1, tokens left, µs until the burst is whole} for a call admitted,
 * {0, 0, µs until a token is free} for one refused. The key expires once its burst is whole.
 */
const GCRA = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local after = tat + interval - now
if after > tolerance then return {0, 0, math.ceil(after - tolerance)} end
redis.call('SET', KEYS[1], string.format('%.0f', tat + interval), 'PX', math.max(1, math.ceil(after / 1000)))
return {1, math.floor((tolerance - after) / interval), math.ceil(after)}`;
const GCRA_SHA1 = new Bun.CryptoHasher("sha1").update(GCRA).digest("hex");

/** Redis keys of the rate counts, apart from anything else the Redis holds. */
const KEY_PREFIX = "stockd:rate:";
/** The longest a call waits for Redis before its replica's own count answers it. */
const REDIS_TIMEOUT_MS = 250;
/** How long the replica's own count answers after Redis failed, before Redis is asked again. */
const REDIS_RETRY_MS = 2_000;

/** Where the count lives and what it allows: the cluster's limit of one key. */
export interface SharedRateOptions {
  /** `redis://` or `rediss://` URL. */
  url: string;
  /** Calls per second per key, all replicas together. */
  rate: number;
  /** Calls per key above the rate, all replicas together. */
  burst: number;
  /** This replica's share of the limit: answers while Redis cannot (never refusing for it). */
  local: RateLimiter;
  log: Logger;
  timeoutMs?: number;
  retryMs?: number;
}

/**
 * The per-key rate counted in Redis (GCRA, above), so that all replicas together grant a key
 * its configured limit, however a balancer spreads its calls. One round trip per call. Redis
 * is protection, not billing: when it errs or takes longer than `timeoutMs`, the call is
 * answered at once by this replica's own share of the limit, and so are all calls for
 * `retryMs`; then one call asks Redis again (reconnecting if need be) while the others still
 * go local. An outage is logged when it starts and when it ends; `fallbacks` counts the calls
 * answered locally (on /metrics).
 */
export class SharedRate implements KeyRate {
  fallbacks = 0;
  private readonly client: RedisClient;
  private readonly policy: string;
  private readonly interval: string;
  private readonly tolerance: string;
  private readonly timeoutMs: number;
  private readonly retryMs: number;
  /** While Redis is out: when it may be asked again; 0 while it answers. */
  private retryAt = 0;
  /** A call is asking Redis whether it is back. */
  private probing = false;
  private outageStart = 0;
  private connecting: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly options: SharedRateOptions) {
    // Commands fail at once while disconnected (no queue to wait in); reconnecting is ours.
    this.client = new RedisClient(options.url, {
      enableOfflineQueue: false,
      autoReconnect: false,
      connectionTimeout: options.timeoutMs ?? REDIS_TIMEOUT_MS,
    });
    this.policy = burstPolicy(options.rate, options.burst);
    const interval = 1_000_000 / options.rate;
    this.interval = String(interval);
    this.tolerance = String(interval * options.burst);
    this.timeoutMs = options.timeoutMs ?? REDIS_TIMEOUT_MS;
    this.retryMs = options.retryMs ?? REDIS_RETRY_MS;
  }

  get shared(): boolean {
    return this.retryAt === 0;
  }

  take(key: string): RateVerdict | Promise<RateVerdict> {
    if (this.retryAt === 0) return this.ask(key);
    if (this.probing || performance.now() < this.retryAt) return this.local(key);
    this.probing = true;
    return this.ask(key).finally(() => {
      this.probing = false;
    });
  }

  close(): void {
    this.closed = true;
    this.client.close();
  }

  private async ask(key: string): Promise<RateVerdict> {
    try {
      const late = () => new Error(`no answer within ${this.timeoutMs} ms`);
      const reply = await withDeadline(this.count(key), this.timeoutMs, late);
      this.back();
      return this.verdict(reply);
    } catch (error) {
      this.out(error);
      return this.local(key);
    }
  }

  /** One round trip: the script by its digest, or whole after Redis lost its script cache (a restart). */
  private async count(key: string): Promise<unknown> {
    if (!this.client.connected) await this.connect();
    const args = ["1", KEY_PREFIX + key, this.interval, this.tolerance];
    try {
      return await this.client.send("EVALSHA", [GCRA_SHA1, ...args]);
    } catch (error) {
      if (!String((error as Error).message).startsWith("NOSCRIPT")) throw error;
      return this.client.send("EVAL", [GCRA, ...args]);
    }
  }

  private connect(): Promise<void> {
    this.connecting ??= this.client.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private verdict(reply: unknown): RateVerdict {
    const [admitted, remaining, micros] = reply as [number, number, number];
    if (admitted === 1)
      return { ok: true, remaining, resetSeconds: Math.ceil(micros / 1_000_000), policy: this.policy };
    const wait = Math.max(1, Math.ceil(micros / 1_000_000));
    return { ok: false, retryAfterSeconds: wait, reason: RATE_EXCEEDED, policy: this.policy };
  }

  private local(key: string): RateVerdict {
    this.fallbacks++;
    return this.options.local.take(key);
  }

  private out(error: unknown): void {
    if (this.closed) return;
    if (this.retryAt === 0) {
      this.outageStart = performance.now();
      this.options.log.warn("rate limits: Redis unavailable, each replica counts its own share", {
        error: String(error),
        retry_ms: this.retryMs,
      });
    }
    this.retryAt = performance.now() + this.retryMs;
  }

  private back(): void {
    if (this.retryAt === 0) return;
    this.retryAt = 0;
    this.options.log.info("rate limits: Redis answers again, counts shared across replicas", {
      outage_ms: Math.round(performance.now() - this.outageStart),
    });
  }
}

/**
 * The per-key rate of a serving replica: counted in Redis when `redis_url` is set (this
 * replica's share answering while Redis cannot), else this replica's share alone
 * (`rate_limit_replicas`; docs/scale-out.md).
 */
export function openKeyRate(limits: Limits, sharing: RateSharing, log: Logger): KeyRate {
  const share = replicaShare(limits.ratePerSecond, limits.burst, sharing.replicas);
  const local = new RateLimiter(share.rate, share.burst);
  if (sharing.redisUrl === null) return local;
  return new SharedRate({
    url: sharing.redisUrl,
    rate: limits.ratePerSecond,
    burst: limits.burst,
    local,
    log,
  });
}
