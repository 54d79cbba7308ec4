/**
 * Auth under attack: keys in the URL are refused (never used), and an address that keeps
 * presenting bad keys is throttled with 429 + Retry-After.
 */

import { describe, expect, test } from "bun:test";
import { startEdge } from "../helpers/edge.ts";
import { expectLedgerConsistent, usageRows } from "../helpers/ledger.ts";
import { expectProblem } from "../helpers/responses.ts";
import { demoDataDir, limits, useDemoServer, withDemoServer } from "../helpers/server.ts";

const server = useDemoServer();

/** The query parameters src/http/admission.ts refuses (and the brief's examples among them). */
const KEY_PARAMS = ["api_key", "apikey", "key", "token", "access_token", "auth"];

describe("keys in the query string", () => {
  test("a valid key in ?api_key= (or any key-like parameter) alone: 400 naming it, not authenticated, not charged", async () => {
    const { key, userId } = server.newKey(10);
    for (const name of KEY_PARAMS) {
      const res = await fetch(`${server.url}/stocks/DWGT/profile?${name}=${encodeURIComponent(key)}`);
      const body = await expectProblem(res, 400, { code: "invalid_parameter" });
      expect(body.errors).toEqual([{ in: "query", name, message: expect.any(String) }]);
      expect(body.detail).toContain(name);
      // The key is not echoed back.
      expect(JSON.stringify(body)).not.toContain(key);
    }
    expect(usageRows(server, userId).rows).toBe(0);
    expectLedgerConsistent(server, userId, 10);
  });

  test("a key-like parameter next to a valid Authorization header is still refused and not charged", async () => {
    const { key, userId } = server.newKey(10);
    for (const name of KEY_PARAMS) {
      const res = await server.get(`/securities/search?query=demo&${name}=x`, key);
      const body = await expectProblem(res, 400, { code: "invalid_parameter" });
      expect(body.errors?.[0]?.name).toBe(name);
    }
    expectLedgerConsistent(server, userId, 10);
  });

  test("a key under another name or spelling (?API_KEY=, ?Token=, ?x=) never authenticates", async () => {
    // Key-like names in any case are refused with 400 (admission.ts); other names get 401: the
    // key is never taken from the URL either way.
    const { key, userId } = server.newKey(10);
    for (const name of ["API_KEY", "Token", "ApiKey", "x", "bearer", "authorization"]) {
      const res = await fetch(`${server.url}/stocks/DWGT/profile?${name}=${encodeURIComponent(key)}`);
      expect([400, 401], name).toContain(res.status);
      await expectProblem(res);
    }
    expectLedgerConsistent(server, userId, 10);
  });
});

describe("auth-failure throttle", () => {
  test("over HTTP: after authFailuresPerMinute bad keys the address gets 429 + Retry-After", async () => {
    await withDemoServer({ authFailuresPerMinute: 5 }, async (throttled) => {
      const { key, userId } = throttled.newKey(10);
      for (let i = 0; i < 5; i++)
        await expectProblem(await throttled.get("/stocks/DWGT/profile", `sk_bad${i}`), 401, {
          code: "unauthorized",
        });
      for (const bad of ["sk_bad", "", "sk_another"]) {
        const res = await throttled.get("/stocks/DWGT/profile", bad || null);
        const retryAfter = Number(res.headers.get("retry-after"));
        expect(Number.isInteger(retryAfter)).toBe(true);
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        await expectProblem(res, 429, { code: "rate_limited" });
      }
      // The public paths stay open to the address.
      expect((await throttled.get("/health")).status).toBe(200);
      // A key this process has not yet seen valid is not checked while its address is throttled
      // (no hashing for a flood), so this first use of a good key is refused too; a key already
      // known valid passes (see the per-address test below).
      const good = await throttled.get("/stocks/DWGT/profile", key);
      await expectProblem(good, 429, { code: "rate_limited" });
      expect(usageRows(throttled, userId).rows).toBe(0);
      expectLedgerConsistent(throttled, userId, 10);
    });
  });

  test("per address: a throttled address does not affect other addresses, and a valid key passes even from it", async () => {
    const edge = await startEdge(await demoDataDir(), limits({ authFailuresPerMinute: 3 }));
    try {
      const { key, userId } = edge.newKey(10);
      const call = (address: string, presented: string | null) =>
        edge.handle(
          new Request("http://stockd.test/stocks/DWGT/profile", {
            headers: presented ? { authorization: `Bearer ${presented}` } : {},
          }),
          address,
        );
      for (let i = 0; i < 3; i++) expect((await call("203.0.113.7", "sk_wrong")).status).toBe(401);
      expect((await call("203.0.113.7", "sk_wrong")).status).toBe(429);
      // Another address: its good key works, and its own bad keys get 401 (their own budget).
      const ok = await call("198.51.100.1", key);
      expect(ok.status).toBe(200);
      expect((await call("198.51.100.1", "sk_wrong")).status).toBe(401);
      expect((await call("2001:db8::1", "sk_wrong")).status).toBe(401);
      // The throttled address with a key known to be valid: served (only failing attempts are
      // refused, so one client's bad keys behind a shared proxy address lock nobody else out).
      expect((await call("203.0.113.7", key)).status).toBe(200);
      expect(edge.accounts.getBalance(userId)).toBe(8);
      expect(edge.accounts.ledgerSum(userId)).toBe(8);
    } finally {
      await edge.close();
    }
  });

  test("successful calls do not count as failures: a good key is never throttled by its own traffic", async () => {
    const edge = await startEdge(await demoDataDir(), limits({ authFailuresPerMinute: 3 }));
    try {
      const { key } = edge.newKey(100);
      for (let i = 0; i < 20; i++) {
        const res = await edge.handle(
          new Request("http://stockd.test/stocks/DWGT/profile", {
            headers: { authorization: `Bearer ${key}` },
          }),
          "192.0.2.44",
        );
        expect(res.status).toBe(200);
      }
    } finally {
      await edge.close();
    }
  });
});
