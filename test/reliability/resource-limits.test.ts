/**
 * Resource limits over HTTP: the per-key rate limit and in-flight cap (429 + Retry-After and the
 * IETF RateLimit headers, never charged), URL and parameter lengths, bounded lists, and a flood
 * of unauthenticated requests that must not grow the process's memory.
 */

import { describe, expect, test } from "bun:test";
import { AuthFailureThrottle } from "../../src/http/limits.ts";
import { startEdge } from "../helpers/edge.ts";
import { GATED, SLOW, withGate } from "../helpers/gate.ts";
import { account, expectLedgerConsistent, expectNothingHeld, usageRows } from "../helpers/ledger.ts";
import { chargedBy, expectProblem } from "../helpers/responses.ts";
import { rng, testSeed } from "../helpers/seed.ts";
import { demoDataDir, limits, useDemoServer, withDemoServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

const server = useDemoServer();

const PROFILE = "/stocks/DWGT/profile";
const RATE_LIMIT = /^"burst";r=\d+;t=\d+$/;

describe("per-key rate limit", () => {
  test("burst 3: the 4th and later calls get 429 with Retry-After and RateLimit headers, not charged; other keys unaffected", async () => {
    // 0.01 token/s: no token comes back during the test, whatever the machine's speed.
    await withDemoServer({ ratePerSecond: 0.01, burst: 3 }, async (limited) => {
      const a = limited.newKey(100);
      const responses = await Promise.all(Array.from({ length: 10 }, () => limited.get(PROFILE, a.key)));
      const ok = responses.filter((r) => r.status === 200);
      const refused = responses.filter((r) => r.status === 429);
      expect(ok.length).toBe(3);
      expect(refused.length).toBe(7);
      for (const res of ok) {
        expect(res.headers.get("ratelimit-policy")).toBe('"burst";q=3;w=300');
        expect(res.headers.get("ratelimit")).toMatch(RATE_LIMIT);
        expect(chargedBy(res)).toBe(1);
      }
      for (const res of refused) {
        const retryAfter = Number(res.headers.get("retry-after"));
        expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
        expect(res.headers.get("ratelimit-policy")).toBe('"burst";q=3;w=300');
        expect(res.headers.get("ratelimit")).toMatch(/^"burst";r=0;t=\d+$/);
        await expectProblem(res, 429, { code: "rate_limited" });
      }
      // The remaining counts fall with each call: 2, 1, 0.
      const remaining = ok.map((r) => Number(/r=(\d+)/.exec(r.headers.get("ratelimit") ?? "")?.[1]));
      expect(remaining.sort()).toEqual([0, 1, 2]);
      expect(usageRows(limited, a.userId).rows).toBe(3);
      expectLedgerConsistent(limited, a.userId, 97);

      // Another user, and another key of the same user, have their own buckets.
      const b = limited.newKey(100);
      const second = limited.accounts.createKey(a.userId, "second", null).key;
      for (const key of [b.key, second]) {
        const rs = await Promise.all(Array.from({ length: 3 }, () => limited.get(PROFILE, key)));
        expect(rs.map((r) => r.status)).toEqual([200, 200, 200]);
      }
      expectLedgerConsistent(limited, b.userId, 97);
      expectLedgerConsistent(limited, a.userId, 94);
    });
  });
});

describe("per-key in-flight cap", () => {
  test("maxInFlight 2 with calls held in their handler: 2 run (2 credits held), the rest get 429 at once", async () => {
    await withDemoServer({ maxInFlight: 2 }, async (capped) => {
      await withGate(capped, async (gate) => {
        const { key, userId } = capped.newKey(100);
        const observer = capped.accounts.createKey(userId, "observer", null).key;
        const calls = Array.from({ length: 10 }, () => capped.get(GATED, key));
        expect(await waitUntil(() => gate.waiting === 2)).toBe(true);
        // The 8 refused calls are answered while the 2 are still held.
        const settled = await Promise.all(
          calls.map((c) => Promise.race([c, Bun.sleep(1000).then(() => null)])),
        );
        const refused = settled.filter((r): r is Response => r !== null);
        expect(refused.length).toBe(8);
        for (const res of refused) {
          expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
          await expectProblem(res, 429, { code: "rate_limited" });
        }
        // Another key of the same user is not capped by this key's calls, and sees 2 credits held.
        const view = await account(capped, observer);
        expect(view.reserved).toBe(2);
        expect((await capped.get(PROFILE, observer)).status).toBe(200);
        gate.open();
        const done = await Promise.all(calls);
        expect(done.filter((r) => r.status === 200).length).toBe(2);
        expect(usageRows(capped, userId).rows).toBe(3);
        expectLedgerConsistent(capped, userId, 97);
        await expectNothingHeld(capped, observer);
      });
    });
  });

  test("maxInFlight 2 under 150 concurrent calls: never more than 2 credits held, ledger = 2xx", async () => {
    await withDemoServer({ maxInFlight: 2 }, async (capped) => {
      const { key, userId } = capped.newKey(1000);
      const observer = capped.accounts.createKey(userId, "observer", null).key;
      let running = true;
      let maxHeld = 0;
      const sampler = (async () => {
        while (running) {
          maxHeld = Math.max(maxHeld, (await account(capped, observer)).reserved);
        }
      })();
      const responses = await Promise.all(Array.from({ length: 150 }, () => capped.get(SLOW, key)));
      running = false;
      await sampler;
      const ok = responses.filter((r) => r.status === 200);
      for (const r of responses) expect([200, 429]).toContain(r.status);
      expect(ok.length).toBeGreaterThanOrEqual(2);
      expect(maxHeld).toBeLessThanOrEqual(2);
      await Promise.all(responses.map((r) => r.arrayBuffer()));
      expect(usageRows(capped, userId).rows).toBe(ok.length);
      expectLedgerConsistent(capped, userId, 1000 - ok.length);
    });
  });
});

describe("URL and parameter lengths, bounded lists", () => {
  test("a path and query of 2048 characters pass admission, 2049 is a 400 (before auth), not charged", async () => {
    const { key, userId } = server.newKey(10);
    const base = "/securities/search?query=demo&pad=";
    const at = (n: number) => server.url + base + "x".repeat(n - base.length);
    const fits = await fetch(at(2048), { headers: { authorization: `Bearer ${key}` } });
    expect(fits.status).toBe(200);
    for (const init of [{ headers: { authorization: `Bearer ${key}` } }, {}]) {
      const res = await fetch(at(2049), init);
      const body = await expectProblem(res, 400, { code: "invalid_parameter" });
      expect(body.detail).toContain("2048");
    }
    expectLedgerConsistent(server, userId, 9);
  });

  test("a URL far over the limit (20,000 characters) is a 431 problem+json from the HTTP parser, not charged", async () => {
    const { key, userId } = server.newKey(10);
    const res = await server.get(`/securities/search?query=demo&pad=${"x".repeat(20_000)}`, key);
    await expectProblem(res, 431, { code: "headers_too_large" });
    expect(chargedBy(res)).toBe(0);
    expectLedgerConsistent(server, userId, 10);
  });

  test("each text parameter one character over its maximum is a 400 naming it", async () => {
    const { key, userId } = server.newKey(10);
    const cases: [string, string][] = [
      [`/securities/search?query=${"q".repeat(101)}`, "query"],
      [`/stocks/${"A".repeat(21)}/profile`, "symbol"],
      [`/securities/${"A".repeat(21)}/quote`, "ticker"],
      [`/stocks/DWGT/secfiling?form_type=${"F".repeat(21)}`, "form_type"],
      [`/sec_filings?cik=${"1".repeat(11)}`, "cik"],
      [`/sec_filings?accession_number=${"0".repeat(21)}`, "accession_number"],
      [`/sec_filings?form=${"F".repeat(21)}`, "form"],
      [`/sec_filings?ticker=${"T".repeat(21)}`, "ticker"],
    ];
    for (const [path, name] of cases) {
      const body = await expectProblem(await server.get(path, key), 400, { code: "invalid_parameter" });
      expect(body.errors?.[0]?.name, path).toBe(name);
    }
    expectLedgerConsistent(server, userId, 10);
  });

  test("every list is bounded: one over a page size or limit is a 400 naming it", async () => {
    const { key, userId } = server.newKey(10);
    const cases: [string, string][] = [
      ["/securities/search?query=demo&per_page=101", "per_page"],
      ["/securities/search?query=demo&page=100001", "page"],
      ["/sec_filings?per_page=1001", "per_page"],
      ["/stocks/DWGT/secfiling?limit=1001", "limit"],
      ["/securities/DWGT/insider_tradings?limit=10001", "limit"],
      ["/calendar/earnings?per_page=10001", "per_page"],
      ["/calendar/earnings?page=100001", "page"],
      ["/stocks/DWGT/balance-sheet?limit=101", "limit"],
    ];
    for (const [path, name] of cases) {
      const body = await expectProblem(await server.get(path, key), 400, { code: "invalid_parameter" });
      expect(body.errors?.[0]?.name, path).toBe(name);
    }
    expectLedgerConsistent(server, userId, 10);
  });
});

describe("floods", () => {
  /*
   * Memory bounds. The server is in this process, so process.memoryUsage() covers it (and the
   * client). RSS also moves for reasons of its own: allocator arenas that are not returned, the
   * JIT, socket buffers, and native memory (DuckDB, sockets) of the servers of earlier tests in
   * this process being torn down: swings of ±20 MB between rounds and steps of up to ~90 MB
   * were seen here with a flat JS heap. So the flood runs in rounds after a warm-up, and what
   * is bounded is the growth from the end of the first round to the end of the last (16,000
   * requests over HTTP, 32,000 at the edge): the JS heap after a full GC by < 4 MB (catches
   * ≥ 256 B, resp. ≥ 128 B, retained per request, e.g. a key-cache entry or a held
   * Request/Response per unknown key), and RSS by < 192 MB (generous, for the swings above;
   * still catches ≥ 6 KB of native memory per request at the edge).
   */
  const randomKey = (random: ReturnType<typeof rng>) =>
    `sk_${Array.from({ length: random.int(1, 60) }, () => random.pick([..."abcXYZ019_-"])).join("")}`;
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  const memory = () => {
    Bun.gc(true);
    const { rss, heapUsed } = process.memoryUsage();
    return { rss, heapUsed };
  };

  /** Warm-up, then `rounds` rounds; the growth from the end of round 1 to the end of the last. */
  async function growth(
    label: string,
    round: (n: number) => Promise<void>,
    perRound: number,
    rounds: number,
  ) {
    await round(2000);
    await Bun.sleep(200);
    await round(perRound);
    const first = memory();
    for (let i = 1; i < rounds; i++) await round(perRound);
    const last = memory();
    console.log(
      `[${label}] after round 1: rss ${mb(first.rss)} MB heap ${mb(first.heapUsed)} MB; after round ${rounds}: rss ${mb(last.rss)} MB heap ${mb(last.heapUsed)} MB`,
    );
    expect(last.rss - first.rss).toBeLessThan(192 * 2 ** 20);
    expect(last.heapUsed - first.heapUsed).toBeLessThan(4 * 2 ** 20);
  }

  test("over HTTP: 22,000 unauthenticated requests with random keys are all refused (401, then 429), memory does not grow", async () => {
    const seed = testSeed("unauthenticated flood");
    const random = rng(seed);
    // The default limit (30 failures per minute): what a deployment runs with.
    await withDemoServer({ authFailuresPerMinute: 30 }, async (flood) => {
      const statuses = new Map<number, number>();
      const round = async (n: number) => {
        for (let sent = 0; sent < n; sent += 200) {
          const batch = await Promise.all(
            Array.from({ length: Math.min(200, n - sent) }, () =>
              flood.get(random.pick(["/stocks/DWGT/profile", "/account", "/sec_filings"]), randomKey(random)),
            ),
          );
          for (const res of batch) {
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            expect(res.headers.get("content-type")).toBe("application/problem+json");
            await res.arrayBuffer();
          }
        }
      };
      // 2,000 + 5 × 4,000 = 22,000 requests, within the throttle's minute.
      await growth("unauthenticated flood", round, 4000, 5);
      expect(statuses.get(401)).toBe(30);
      expect(statuses.get(429)).toBe(22_000 - 30);
      expect(statuses.size).toBe(2);
    });
  }, 60_000);

  test("every request authenticated and failing, from 256 addresses: memory does not grow", async () => {
    // Over a socket every client is 127.0.0.1; the edge called directly can be given any address.
    // With the failure limit out of the way every request is hashed, looked up and recorded as a
    // failure (the throttle's per-address timestamps, ~8 B each, are the only state kept).
    const seed = testSeed("authenticated flood");
    const random = rng(seed);
    const edge = await startEdge(await demoDataDir(), limits({ authFailuresPerMinute: 1_000_000 }));
    try {
      let n = 0;
      const round = async (count: number) => {
        for (let sent = 0; sent < count; sent += 200) {
          const batch = await Promise.all(
            Array.from({ length: Math.min(200, count - sent) }, () => {
              const request = new Request("http://stockd.test/stocks/DWGT/profile", {
                headers: { authorization: `Bearer ${randomKey(random)}` },
              });
              return edge.handle(request, `10.0.0.${n++ & 255}`);
            }),
          );
          for (const res of batch) {
            expect(res.status).toBe(401);
            await res.arrayBuffer();
          }
        }
      };
      await growth("authenticated flood", round, 8000, 5);
    } finally {
      await edge.close();
    }
  }, 60_000);

  test("the same flood with the default auth-failure limit (30/min) is refused with 429 after 30", async () => {
    await withDemoServer({ authFailuresPerMinute: 30 }, async (flood) => {
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) {
        const batch = await Promise.all(
          Array.from({ length: 100 }, (_, j) => flood.get("/stocks/DWGT/profile", `sk_flood_${i}_${j}`)),
        );
        for (const res of batch) {
          statuses.push(res.status);
          await expectProblem(res);
        }
      }
      expect(statuses.filter((s) => s === 401).length).toBe(30);
      expect(statuses.filter((s) => s === 429).length).toBe(970);
    });
  });

  test("a flood of failures from 120,000 distinct addresses within a minute keeps the throttle's memory bounded", () => {
    let now = 0;
    const throttle = new AuthFailureThrottle(30, () => now);
    let largest = 0;
    for (let i = 0; i < 120_000; i++) {
      const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      throttle.blockedFor(address);
      throttle.fail(address);
      now += 0.1; // all within one minute
      largest = Math.max(largest, (throttle as unknown as { windows: Map<string, unknown> }).windows.size);
    }
    expect(largest).toBeLessThanOrEqual(50_000);
  });

  test("IPv6 clients count per /64: addresses of one /64 share a budget", () => {
    const throttle = new AuthFailureThrottle(2, () => 0);
    throttle.fail("2001:db8:1:2::1");
    throttle.fail("2001:db8:1:2::ffff");
    expect(throttle.blockedFor("2001:db8:1:2:abcd::9")).toBeGreaterThan(0);
    expect(throttle.blockedFor("2001:db8:1:3::1")).toBe(0);
  });
});
