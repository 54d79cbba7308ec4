import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import {
  AuthFailureThrottle,
  InFlightLimiter,
  RateLimiter,
  type RateVerdict,
  rateHeaders,
  replicaShare,
} from "../../src/http/limits.ts";
import { openKeyRate } from "../../src/http/shared-rate.ts";
import { createLogger } from "../../src/log.ts";

/** A clock the test moves by hand (milliseconds). */
function clock() {
  let now = 0;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("RateLimiter (token bucket)", () => {
  test("a burst of `burst` calls passes, the next is refused with a retry time, and tokens refill at the rate", () => {
    const c = clock();
    const limiter = new RateLimiter(10, 5, c.now);
    for (let i = 0; i < 5; i++) expect(limiter.take("k").ok).toBe(true);
    const refused = limiter.take("k");
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.retryAfterSeconds).toBe(1);
    c.advance(100); // 10/s → one token after 100 ms
    expect(limiter.take("k").ok).toBe(true);
    expect(limiter.take("k").ok).toBe(false);
  });

  test("keys do not share buckets", () => {
    const limiter = new RateLimiter(1, 1, clock().now);
    expect(limiter.take("a").ok).toBe(true);
    expect(limiter.take("b").ok).toBe(true);
    expect(limiter.take("a").ok).toBe(false);
  });

  test("RateLimit headers follow the IETF draft's structured fields; a refusal's t is its Retry-After", () => {
    const c = clock();
    const limiter = new RateLimiter(10, 20, c.now);
    expect(rateHeaders(limiter.take("k"))).toEqual({
      "ratelimit-policy": '"burst";q=20;w=2',
      ratelimit: '"burst";r=19;t=1',
    });
    for (let i = 0; i < 9; i++) limiter.take("k");
    expect(rateHeaders(limiter.take("k"))).toEqual({
      "ratelimit-policy": '"burst";q=20;w=2',
      ratelimit: '"burst";r=9;t=2',
    });
    for (let i = 0; i < 10; i++) limiter.take("k");
    const refused = limiter.take("k");
    expect(refused.ok).toBe(false);
    expect(rateHeaders(refused)).toEqual({
      "ratelimit-policy": '"burst";q=20;w=2',
      ratelimit: '"burst";r=0;t=1',
    });
  });

  test("a replica's share: the rate and the burst divided by the replicas, at least one token", () => {
    expect(replicaShare(100, 200, 4)).toEqual({ rate: 25, burst: 50 });
    expect(replicaShare(10, 3, 4)).toEqual({ rate: 2.5, burst: 1 });
    const share = replicaShare(100, 200, 3);
    expect(share.burst * 3).toBeLessThanOrEqual(200);
  });

  test("without Redis a serving replica counts its share, and its headers say so", () => {
    const config = loadConfig(
      {},
      { STOCKD_RATE_LIMIT_REPLICAS: "2" },
      mkdtempSync(join(tmpdir(), "stockd-limits-")),
    );
    const rate = openKeyRate(config.limits, config.rateSharing, createLogger("silent"));
    const first = rate.take("k");
    // The defaults (100 a second, a burst of 200) halved: a burst of 100 refilled in 2 s.
    expect(rateHeaders(first as RateVerdict)).toEqual({
      "ratelimit-policy": '"burst";q=100;w=2',
      ratelimit: '"burst";r=99;t=1',
    });
    expect(rate.shared).toBe(false);
  });

  test("memory stays bounded under a flood of distinct keys", () => {
    const c = clock();
    const limiter = new RateLimiter(1000, 1, c.now);
    for (let i = 0; i < 120_000; i++) {
      limiter.take(`key-${i}`);
      c.advance(1);
    }
    // Buckets idle long enough to be full again are swept once 50,000 are held.
    expect((limiter as unknown as { buckets: Map<string, unknown> }).buckets.size).toBeLessThanOrEqual(
      50_001,
    );
  });
});

describe("InFlightLimiter", () => {
  test("at most `max` calls of one key at once; leaving frees a place", () => {
    const limiter = new InFlightLimiter(2);
    expect(limiter.enter("k")).toBe(true);
    expect(limiter.enter("k")).toBe(true);
    expect(limiter.enter("k")).toBe(false);
    expect(limiter.enter("other")).toBe(true);
    limiter.leave("k");
    expect(limiter.enter("k")).toBe(true);
  });
});

describe("AuthFailureThrottle", () => {
  test("an address is refused after N failures in a minute, and may try again a minute after the first", () => {
    const c = clock();
    const throttle = new AuthFailureThrottle(3, c.now);
    for (let i = 0; i < 3; i++) {
      expect(throttle.blockedFor("1.2.3.4")).toBe(0);
      throttle.fail("1.2.3.4");
      c.advance(1000);
    }
    expect(throttle.blockedFor("1.2.3.4")).toBe(57);
    expect(throttle.blockedFor("5.6.7.8")).toBe(0);
    c.advance(57_000);
    expect(throttle.blockedFor("1.2.3.4")).toBe(0);
  });
});
