import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Billing } from "../../src/accounts/billing.ts";
import { AccountsStore } from "../../src/accounts/store.ts";
import { main } from "../../src/index.ts";
import { tempDir } from "../helpers/env.ts";
import { openAccounts, useDemoServer, withDemoServer } from "../helpers/server.ts";

const server = useDemoServer();

const quiet = { out: () => {}, err: () => {} };

describe("billing", () => {
  test("a 2xx call costs exactly its price and says so in the headers", async () => {
    const { key, userId } = server.newKey(10);
    const res = await server.get("/stocks/DWGT/profile", key);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-credits-charged")).toBe("1");
    expect(res.headers.get("x-credits-remaining")).toBe("9");
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.accounts.getBalance(userId)).toBe(9);
  });

  test("4xx responses cost nothing", async () => {
    const { key, userId } = server.newKey(10);
    const bad = [
      "/stocks/NOSUCH/profile",
      "/stocks/DWGT/price?start_date=2024-01-01",
      "/stocks/DWGT/price?start_date=2024-02-30&end_date=2024-03-01",
      "/stocks/DWGT/secfiling?limit=0",
      "/securities/search?query=x&per_page=101",
      "/no/such/route",
    ];
    for (const path of bad) {
      const res = await server.get(path, key);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.headers.get("x-credits-charged") ?? "0", path).toBe("0");
    }
    expect(server.accounts.getBalance(userId)).toBe(10);
    expect(server.accounts.ledgerSum(userId)).toBe(10);
  });

  test("an empty balance gets 402 problem+json and is not charged", async () => {
    const { key, userId } = server.newKey(0);
    const res = await server.get("/stocks/DWGT/profile", key);
    expect(res.status).toBe(402);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const body = (await res.json()) as { code: string; detail: string };
    expect(body.code).toBe("insufficient_credits");
    expect(server.accounts.getBalance(userId)).toBe(0);
  });

  test("/account and /health are free", async () => {
    const { key, userId } = server.newKey(3);
    expect((await server.get("/account", key)).status).toBe(200);
    expect((await server.get("/health")).status).toBe(200);
    expect(server.accounts.getBalance(userId)).toBe(3);
  });

  test("a balance of 5 and 40 simultaneous calls: exactly 5 succeed, 35 get 402, balance ends at 0", async () => {
    const { key, userId } = server.newKey(5);
    const responses = await Promise.all(
      Array.from({ length: 40 }, () => server.get("/stocks/DWGT/profile", key)),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBe(5);
    expect(statuses.filter((s) => s === 402).length).toBe(35);
    expect(server.accounts.getBalance(userId)).toBe(0);
    expect(server.accounts.ledgerSum(userId)).toBe(0);
    const usage = server.accounts.usageSince(userId, "1970-01-01");
    expect(usage).toEqual([{ endpoint: "profile", calls: 5, credits: 5 }]);
  });

  test("the ledger sums to the balance after mixed calls and grants", async () => {
    const { key, userId } = server.newKey(20);
    const paths = [
      "/stocks/DWGT/profile",
      "/stocks/NOSUCH/profile",
      "/securities/DWGT/quote",
      "/securities/search?query=demo",
    ];
    for (let i = 0; i < 12; i++) await server.get(paths[i % paths.length] as string, key);
    server.accounts.grantCredits(userId, 7, "top-up");
    expect(server.accounts.getBalance(userId)).toBe(20 - 9 + 7);
    expect(server.accounts.ledgerSum(userId)).toBe(server.accounts.getBalance(userId) as number);
  });

  test("a credit grant made through the CLI is usable by the running server within its poll interval", async () => {
    const { key, userId } = server.newKey(0);
    expect((await server.get("/stocks/DWGT/profile", key)).status).toBe(402);
    const code = await main(
      ["credits", "grant", "--user", userId, "--amount", "2", "--data-dir", server.dataDir],
      quiet,
    );
    expect(code).toBe(0);
    // Other processes' commits are seen at the next poll (200 ms here, 1 s by default).
    let status = 402;
    for (let i = 0; i < 40 && status === 402; i++) {
      status = (await server.get("/stocks/DWGT/profile", key)).status;
      if (status === 402) await Bun.sleep(50);
    }
    expect(status).toBe(200);
    expect(server.accounts.getBalance(userId)).toBe(1);
  });

  test("debits reach the database file through the checkpoint thread, and the key's last use is recorded", async () => {
    const { Database } = await import("bun:sqlite");
    const { copyFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { key, userId } = server.newKey(50);
    for (let i = 0; i < 3; i++) expect((await server.get("/stocks/DWGT/profile", key)).status).toBe(200);
    // A copy of the database file alone, without its WAL, shows the debits only once a
    // checkpoint has copied them there. The serving connection never checkpoints
    // (auto-checkpoint off), a few pages would not reach SQLite's default threshold anyway,
    // and the worker checkpoints every second.
    const copy = join(tempDir(), "accounts-file-only.db");
    const fileBalance = () => {
      copyFileSync(join(server.dataDir, "accounts.db"), copy);
      const db = new Database(copy, { readonly: true });
      try {
        return db.query<{ balance: number }, [string]>("SELECT balance FROM users WHERE id = ?").get(userId)
          ?.balance;
      } catch {
        return undefined; // copied in the middle of a checkpoint: try again
      } finally {
        db.close();
      }
    };
    let balance = fileBalance();
    for (let i = 0; i < 60 && balance !== 47; i++) {
      await Bun.sleep(50);
      balance = fileBalance();
    }
    expect(balance).toBe(47);
    const [info] = server.accounts.listKeys(userId);
    expect(info?.last_used_at).not.toBeNull();
  });

  test("the ledger refuses updates and deletes", () => {
    const store = openAccounts(server.dataDir);
    try {
      expect(() => store.db.exec("UPDATE ledger SET delta = 1000")).toThrow(/append-only/);
      expect(() => store.db.exec("DELETE FROM ledger")).toThrow(/append-only/);
    } finally {
      store.close();
    }
  });
});

describe("group commit", () => {
  test("the debits of one turn wait for its end, then are committed together", async () => {
    const store = AccountsStore.open(join(tempDir(), "accounts.db"));
    const billing = new Billing(store, 60_000);
    try {
      const user = store.createUser("batch@example.test", 10);
      if (!user.ok) throw new Error(user.message);
      const { info } = store.createKey(user.value.id, null, null);
      const reserve = () => {
        const r = billing.reserve(info, 1);
        if (!r.ok) throw new Error("not reserved");
        return r.reservation;
      };
      const first = billing.commit(reserve(), "profile", "r1");
      const second = billing.commit(reserve(), "price", "r2");
      expect(store.getBalance(user.value.id)).toBe(10); // batched: not committed yet
      // Both resolve after the one commit: each sees the balance with both debits.
      const today = new Date().toISOString().slice(0, 10);
      expect(await first).toEqual({ ok: true, remaining: 8, day: today });
      expect(await second).toEqual({ ok: true, remaining: 8, day: today });
      expect(store.getBalance(user.value.id)).toBe(8);
      expect(store.usageSince(user.value.id, "1970-01-01")).toEqual([
        { endpoint: "price", calls: 1, credits: 1 },
        { endpoint: "profile", calls: 1, credits: 1 },
      ]);
      expect(billing.heldFor(user.value.id)).toBe(0);
    } finally {
      billing.close();
      store.close();
    }
  });
});

describe("server errors", () => {
  test("a 500 costs nothing and does not leak the cause", async () => {
    const { rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    await withDemoServer({}, async (broken) => {
      const id = broken.snapshots.current()?.id as string;
      rmSync(join(broken.dataDir, "snapshots", id, "filings.parquet"));
      const { key, userId } = broken.newKey(5);
      const res = await broken.get("/stocks/DWGT/secfiling", key);
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(text).not.toMatch(/parquet|duckdb|IO Error|snapshots|\/tmp/i);
      expect((JSON.parse(text) as { code: string }).code).toBe("internal");
      expect(res.headers.get("x-credits-charged")).toBe("0");
      expect(broken.accounts.getBalance(userId)).toBe(5);
    });
  });
});
