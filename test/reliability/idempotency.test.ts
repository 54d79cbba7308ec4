/**
 * Idempotent retries (`Idempotency-Key`): the same key from the same user gets the first
 * call's response, marked `idempotent-replayed: true`, and is charged once; other parameters
 * are a 409; failures are not remembered; the remembered response outlives a restart.
 */

import { describe, expect, test } from "bun:test";
import { IDEMPOTENCY_MAX_BYTES, IDEMPOTENCY_MAX_RESPONSES } from "../../src/accounts/store.ts";
import { GATED, GATED_OTHER, withGate } from "../helpers/gate.ts";
import { expectLedgerConsistent, expectNothingHeld, usageRows } from "../helpers/ledger.ts";
import { chargedBy, expectProblem } from "../helpers/responses.ts";
import { demoDataDir, openAccounts, startTestServer, useDemoServer } from "../helpers/server.ts";
import { ServerProcess } from "../helpers/spawn.ts";
import { waitUntil } from "../helpers/wait.ts";

const server = useDemoServer();

const PROFILE = "/stocks/DWGT/profile";
// GATED and GATED_OTHER (helpers.ts) are DuckDB-backed: the gate can hold them inside their handler.

let keys = 0;
const newIdempotencyKey = () => `retry-${Date.now()}-${++keys}`;
const withKey = (value: string): RequestInit => ({ headers: { "idempotency-key": value } });

describe("idempotent retries", () => {
  test("a retry after the first call finished is replayed, marked, and not charged again", async () => {
    const { key, userId } = server.newKey(10);
    const idem = newIdempotencyKey();
    const first = await server.get(PROFILE, key, withKey(idem));
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const body = await first.text();
    for (let i = 0; i < 3; i++) {
      const again = await server.get(PROFILE, key, withKey(idem));
      expect(again.status).toBe(200);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(chargedBy(again)).toBe(0);
      expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
      expect(await again.text()).toBe(body);
    }
    expect(usageRows(server, userId).rows).toBe(1);
    expectLedgerConsistent(server, userId, 9);
  });

  test("50 concurrent retries while the first call runs: one debit, 49 replays, identical bodies", async () => {
    await withGate(server, async (gate) => {
      const { key, userId } = server.newKey(10);
      const idem = newIdempotencyKey();
      const calls = Array.from({ length: 50 }, () => server.get(GATED, key, withKey(idem)));
      // All 50 are at the server (the first inside its handler, the others waiting on it).
      expect(await waitUntil(() => gate.acquired === 50 && gate.waiting === 1)).toBe(true);
      gate.open();
      const responses = await Promise.all(calls);
      const bodies = await Promise.all(responses.map((r) => r.text()));
      expect(responses.every((r) => r.status === 200)).toBe(true);
      expect(new Set(bodies).size).toBe(1);
      const replayed = responses.filter((r) => r.headers.get("idempotent-replayed") === "true");
      expect(replayed.length).toBe(49);
      expect(replayed.every((r) => chargedBy(r) === 0)).toBe(true);
      const original = responses.find((r) => r.headers.get("idempotent-replayed") === null) as Response;
      expect(chargedBy(original)).toBe(1);
      expect(usageRows(server, userId).requestIds).toEqual([original.headers.get("x-request-id") as string]);
      expectLedgerConsistent(server, userId, 9);
      await expectNothingHeld(server, key);
    });
  });

  test("the same key with other parameters while the first call runs: 409 idempotency_conflict, not charged", async () => {
    await withGate(server, async (gate) => {
      const { key, userId } = server.newKey(10);
      const idem = newIdempotencyKey();
      const first = server.get(GATED, key, withKey(idem));
      expect(await waitUntil(() => gate.waiting === 1)).toBe(true);
      await expectProblem(await server.get(GATED_OTHER, key, withKey(idem)), 409, {
        code: "idempotency_conflict",
      });
      await expectProblem(await server.get(PROFILE, key, withKey(idem)), 409, {
        code: "idempotency_conflict",
      });
      gate.open();
      expect((await first).status).toBe(200);
      expect(usageRows(server, userId).rows).toBe(1);
      expectLedgerConsistent(server, userId, 9);
    });
  });

  test("the same key with other parameters after the first call: 409, not charged", async () => {
    const { key, userId } = server.newKey(10);
    const idem = newIdempotencyKey();
    expect((await server.get(GATED, key, withKey(idem))).status).toBe(200);
    await expectProblem(await server.get(GATED_OTHER, key, withKey(idem)), 409, {
      code: "idempotency_conflict",
    });
    expectLedgerConsistent(server, userId, 9);
  });

  test("the parameters are compared in any order: a reordered query is the same call", async () => {
    await withGate(server, async (gate) => {
      const { key, userId } = server.newKey(10);
      const idem = newIdempotencyKey();
      const first = server.get(GATED, key, withKey(idem));
      expect(await waitUntil(() => gate.waiting === 1)).toBe(true);
      const reordered = server.get("/calendar/earnings?start=2015-01-01&ticker=DWGT", key, withKey(idem));
      expect(await waitUntil(() => gate.acquired === 2)).toBe(true);
      gate.open();
      const [a, b] = await Promise.all([first, reordered]);
      expect(b?.status).toBe(200);
      expect(b?.headers.get("idempotent-replayed")).toBe("true");
      expect(await b?.text()).toBe(await a?.text());
      expectLedgerConsistent(server, userId, 9);
    });
  });

  test("another user may use the same key: independent calls, each charged once", async () => {
    await withGate(server, async (gate) => {
      const a = server.newKey(10);
      const b = server.newKey(10);
      const idem = newIdempotencyKey();
      const first = server.get(GATED, a.key, withKey(idem));
      expect(await waitUntil(() => gate.waiting === 1)).toBe(true);
      // B's call with the same key and other parameters is not a conflict and does not wait for A's.
      const other = server.get(GATED_OTHER, b.key, withKey(idem));
      expect(await waitUntil(() => gate.waiting === 2)).toBe(true);
      gate.open();
      for (const res of await Promise.all([first, other])) {
        expect(res.status).toBe(200);
        expect(res.headers.get("idempotent-replayed")).toBeNull();
        expect(chargedBy(res)).toBe(1);
      }
      const again = await server.get(PROFILE, b.key, withKey(newIdempotencyKey()));
      expect(again.status).toBe(200);
      expectLedgerConsistent(server, a.userId, 9);
      expectLedgerConsistent(server, b.userId, 8);
    });
  });

  test("a failed first call (404) is not remembered: the retry runs again and is free; the key stays usable", async () => {
    const { key, userId } = server.newKey(10);
    const idem = newIdempotencyKey();
    for (let i = 0; i < 3; i++) {
      const res = await server.get("/stocks/NOSUCH/profile", key, withKey(idem));
      expect(res.headers.get("idempotent-replayed")).toBeNull();
      await expectProblem(res, 404, { code: "not_found" });
    }
    // Nothing was remembered, so the key is not bound to the failed call's parameters.
    const ok = await server.get(PROFILE, key, withKey(idem));
    expect(ok.status).toBe(200);
    expect(ok.headers.get("idempotent-replayed")).toBeNull();
    expect(usageRows(server, userId).rows).toBe(1);
    expectLedgerConsistent(server, userId, 9);
  });

  test("a first call whose client went away is not remembered: the waiting retry runs and is charged once", async () => {
    await withGate(server, async (gate) => {
      const { key, userId } = server.newKey(10);
      const idem = newIdempotencyKey();
      const abort = new AbortController();
      const first = server.get(GATED, key, { ...withKey(idem), signal: abort.signal }).catch(() => null);
      expect(await waitUntil(() => gate.waiting === 1)).toBe(true);
      const retry = server.get(GATED, key, withKey(idem));
      expect(await waitUntil(() => gate.acquired === 2)).toBe(true);
      abort.abort();
      expect(await first).toBeNull();
      await Bun.sleep(100);
      gate.open();
      const res = await retry;
      expect(res.status).toBe(200);
      expect(res.headers.get("idempotent-replayed")).toBeNull();
      expect(usageRows(server, userId).requestIds).toEqual([res.headers.get("x-request-id") as string]);
      expectLedgerConsistent(server, userId, 9);
      await expectNothingHeld(server, key);
    });
  });

  test("an invalid key (256 characters, a space, empty, non-ASCII) is a 400 naming Idempotency-Key, not charged", async () => {
    const { key, userId } = server.newKey(10);
    for (const bad of ["k".repeat(256), "has space", "", "tab\tkey", "caf\u00e9"]) {
      const res = await server.get(PROFILE, key, withKey(bad));
      const body = await expectProblem(res, 400, { code: "invalid_parameter" });
      expect(body.errors?.[0]?.name, JSON.stringify(bad)).toBe("Idempotency-Key");
      expect(body.errors?.[0]?.in).toBe("header");
    }
    expectLedgerConsistent(server, userId, 10);
    // The longest valid key, 255 visible ASCII characters, is accepted.
    const longest = await server.get(PROFILE, key, withKey(`${"k".repeat(254)}~`));
    expect(longest.status).toBe(200);
    expectLedgerConsistent(server, userId, 9);
  });

  test("the remembered response survives a restart and is still not charged", async () => {
    const dataDir = await demoDataDir();
    let first = await startTestServer(dataDir);
    const { key, userId } = first.newKey(10);
    const idem = newIdempotencyKey();
    const original = await first.get(PROFILE, key, withKey(idem));
    expect(original.status).toBe(200);
    const body = await original.text();
    await first.stop();
    first = await startTestServer(dataDir);
    try {
      const again = await first.get(PROFILE, key, withKey(idem));
      expect(again.status).toBe(200);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(await again.text()).toBe(body);
      expect(usageRows(first, userId).rows).toBe(1);
      expectLedgerConsistent(first, userId, 9);
    } finally {
      await first.stop();
    }
  });

  test("after a failed commit, a retry with the same key is answered (not left waiting)", async () => {
    // The real server in a child process: the failing commit escapes its fetch handler.
    const dataDir = await demoDataDir();
    const store = openAccounts(dataDir);
    const user = store.createUser("commit-fails@example.test", 10);
    if (!user.ok) throw new Error(user.message);
    const userId = user.value.id;
    const { key } = store.createKey(userId, null, null);
    store.db.exec(
      `CREATE TRIGGER fail_usage BEFORE INSERT ON ledger WHEN NEW.reason = 'usage'
       BEGIN SELECT RAISE(ABORT, 'injected commit failure'); END`,
    );
    const child = await ServerProcess.start({ dataDir });
    try {
      const idem = newIdempotencyKey();
      expect((await child.get(PROFILE, key, withKey(idem))).status).toBe(500);
      store.db.exec("DROP TRIGGER fail_usage");
      const retry = await Promise.race([
        child.get(PROFILE, key, withKey(idem)).then((r) => r.status),
        Bun.sleep(3000).then(() => "no answer within 3 s"),
      ]);
      expect(retry).toBe(200);
      expect(store.getBalance(userId)).toBe(9);
      expect(store.ledgerSum(userId)).toBe(9);
    } finally {
      await child.kill();
      store.close();
    }
  });
});

describe("what is remembered is capped per user", () => {
  const PRICE_ALL = "/stocks/DWGT/price?start_date=1990-01-01&end_date=2026-11-01";

  test(`bodies over ${IDEMPOTENCY_MAX_BYTES} bytes in all: the oldest are forgotten (their retry runs and is charged), the newest replay`, async () => {
    const { key, userId } = server.newKey(1_000);
    const first = await server.get(PRICE_ALL, key, withKey("big-0"));
    const size = (await first.arrayBuffer()).byteLength;
    const calls = Math.ceil(IDEMPOTENCY_MAX_BYTES / size) + 3;
    for (let i = 1; i < calls; i++)
      await (await server.get(PRICE_ALL, key, withKey(`big-${i}`))).arrayBuffer();
    const stored = server.accounts.db
      .query<{ n: number; bytes: number }, { u: string }>(
        "SELECT count(*) AS n, sum(length(body)) AS bytes FROM idempotency WHERE user_id = $u",
      )
      .get({ u: userId }) as { n: number; bytes: number };
    expect(stored.bytes).toBeLessThanOrEqual(IDEMPOTENCY_MAX_BYTES);
    expect(stored.n).toBe(Math.floor(IDEMPOTENCY_MAX_BYTES / size));
    const newest = await server.get(PRICE_ALL, key, withKey(`big-${calls - 1}`));
    expect([newest.headers.get("idempotent-replayed"), chargedBy(newest)]).toEqual(["true", 0]);
    await newest.arrayBuffer();
    const oldest = await server.get(PRICE_ALL, key, withKey("big-0"));
    expect([oldest.headers.get("idempotent-replayed"), chargedBy(oldest)]).toEqual([null, 1]);
    await oldest.arrayBuffer();
    expectLedgerConsistent(server, userId, 1_000 - calls - 1);
  });

  test(`more than ${IDEMPOTENCY_MAX_RESPONSES} responses: the oldest are forgotten, the count stays at the cap`, async () => {
    const { key, userId } = server.newKey(5_000);
    const calls = IDEMPOTENCY_MAX_RESPONSES + 5;
    for (let i = 0; i < calls; i += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, calls - i) }, (_, j) =>
          server.get(PROFILE, key, withKey(`many-${i + j}`)).then((r) => r.arrayBuffer()),
        ),
      );
    const count = (
      server.accounts.db
        .query<{ n: number }, { u: string }>("SELECT count(*) AS n FROM idempotency WHERE user_id = $u")
        .get({ u: userId }) as { n: number }
    ).n;
    expect(count).toBe(IDEMPOTENCY_MAX_RESPONSES);
    expectLedgerConsistent(server, userId, 5_000 - calls);
  });
});
