/**
 * One caller cannot starve the rest: concurrent work is capped per user (whatever the number
 * of keys), and heavy calls (queries over the snapshot's tables) share a few slots in turn by
 * user, so another user's heavy call never queues behind a flood. The latency figure under
 * such a flood is the bench's (`bench/fairness.ts`); these tests pin the mechanism.
 */
import { describe, expect, test } from "bun:test";
import { FairGate } from "../../src/http/limits.ts";
import { GATED, withGate } from "../helpers/gate.ts";
import { expectLedgerConsistent, expectNothingHeld, usageRows } from "../helpers/ledger.ts";
import { expectProblem } from "../helpers/responses.ts";
import { withDemoServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

describe("FairGate", () => {
  test("a user holds at most slots - 1; another user starts at once while the first one's calls queue", async () => {
    const gate = new FairGate(3);
    const started: string[] = [];
    const enter = (user: string) => gate.enter(user).then(() => started.push(user));
    const calls = [...Array.from({ length: 5 }, () => enter("a")), enter("b")];
    await Bun.sleep(0);
    expect(started).toEqual(["a", "a", "b"]);
    expect(gate.waiting).toBe(3);
    gate.leave("a");
    await Bun.sleep(0);
    expect(started).toEqual(["a", "a", "b", "a"]);
    gate.leave("a");
    gate.leave("a");
    gate.leave("b");
    await Promise.all(calls);
    expect(started.length).toBe(6);
  });

  test("freed slots go to the waiting users in turn, not to whoever queued most", async () => {
    const gate = new FairGate(2);
    const started: string[] = [];
    const enter = (user: string) => gate.enter(user).then(() => started.push(user));
    // a holds its one slot and queues 9 more; b holds the other; c and d queue behind a.
    for (const user of [..."aaaaaaaaaa", "b", "c", "d"]) void enter(user);
    await Bun.sleep(0);
    expect(started).toEqual(["a", "b"]);
    const next = async (leaving: string) => {
      gate.leave(leaving);
      await Bun.sleep(0);
      return started.at(-1);
    };
    expect(await next("a")).toBe("a");
    expect(await next("b")).toBe("c");
    expect(await next("a")).toBe("d");
    expect(await next("c")).toBe("a");
    expect(gate.waiting).toBe(7);
  });

  test("a call withdrawn while it waits leaves the line, resolved false; the others keep their turns", async () => {
    const gate = new FairGate(2);
    expect(await gate.enter("a")).toBe(true);
    let withdraw: () => void = () => {};
    const first = gate.enter("a", (w) => {
      withdraw = w;
    });
    const second = gate.enter("a");
    expect(gate.waiting).toBe(2);
    withdraw();
    expect(await first).toBe(false);
    expect(gate.waiting).toBe(1);
    gate.leave("a");
    expect(await second).toBe(true);
    expect(gate.waiting).toBe(0);
  });

  test("one user alone can use every slot but one; with one slot it uses that one", async () => {
    const one = new FairGate(1);
    await one.enter("a");
    let second = false;
    void one.enter("a").then(() => {
      second = true;
    });
    await Bun.sleep(0);
    expect(second).toBe(false);
    one.leave("a");
    await Bun.sleep(0);
    expect(second).toBe(true);
  });
});

describe("a user with many keys and a flood of heavy calls", () => {
  test("is capped per user, holds one DuckDB slot, and another user's heavy call runs at once", async () => {
    await withDemoServer({ maxInFlight: 64, maxInFlightPerUser: 16, heavySlots: 2 }, async (server) => {
      await withGate(server, async (gate) => {
        const flooder = server.newKey(10_000);
        const keys = [
          flooder.key,
          ...Array.from(
            { length: 7 },
            (_, i) => server.accounts.createKey(flooder.userId, `k${i}`, null).key,
          ),
        ];
        // 8 keys × 8 calls = 64 at once, each key under its own cap.
        const flood = keys.flatMap((key) => Array.from({ length: 8 }, () => server.get(GATED, key)));
        expect(await waitUntil(() => gate.waiting === 1)).toBe(true);
        const other = server.newKey(10);
        const call = server.get(GATED, other.key);
        // The other user's query reaches DuckDB while the flood's calls wait for a slot.
        expect(await waitUntil(() => gate.waiting === 2)).toBe(true);
        const settled = await Promise.all(
          flood.map((c) => Promise.race([c, Bun.sleep(500).then(() => null)])),
        );
        const refused = settled.filter((r): r is Response => r !== null);
        // Over the per-user cap: answered at once, 429, free.
        expect(refused.length).toBe(64 - 16);
        for (const res of refused.slice(0, 5)) {
          const body = await expectProblem(res, 429, { code: "rate_limited" });
          expect(body.detail).toContain("user");
        }
        gate.open();
        expect((await call).status).toBe(200);
        const done = await Promise.all(flood);
        const ok = done.filter((r) => r.status === 200);
        expect(ok.length).toBe(16);
        await Promise.all(ok.map((r) => r.arrayBuffer()));
        expect(usageRows(server, flooder.userId).rows).toBe(16);
        expectLedgerConsistent(server, flooder.userId, 10_000 - 16);
        expectLedgerConsistent(server, other.userId, 9);
        await expectNothingHeld(server, other.key);
      });
    });
  });
});

describe("a heavy call that waits past its budget", () => {
  test("gets 503, leaves the line and gives its in-flight place back at once", async () => {
    await withDemoServer({ maxInFlightPerUser: 2, heavySlots: 1, requestTimeoutMs: 300 }, async (server) => {
      await withGate(server, async (gate) => {
        const { key, userId } = server.newKey(100);
        // The first holds the one slot (its query held at the gate); the second waits in line.
        const first = server.get(GATED, key);
        expect(await waitUntil(() => gate.waiting === 1)).toBe(true);
        const second = await server.get(GATED, key);
        await expectProblem(second, 503, { code: "unavailable" });
        // Its place was given back: a third call is let in (and waits its turn), not refused.
        const third = await server.get(GATED, key);
        await expectProblem(third, 503, { code: "unavailable" });
        gate.open();
        await (await first).arrayBuffer();
        expectLedgerConsistent(server, userId, 100);
      });
    });
  });
});
