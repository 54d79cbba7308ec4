/**
 * One contract for both accounts stores (src/accounts/seam.ts): bun:sqlite always, and
 * PostgreSQL on a cluster of this file's own when its server binaries are installed (else
 * skipped with a notice). Each test gets fresh accounts; with PostgreSQL, "another replica" is
 * a second PgAccounts on the same database, as a second stockd process would hold it.
 */

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SQL } from "bun";
import { Billing } from "../../src/accounts/billing.ts";
import { hashApiKey } from "../../src/accounts/keys.ts";
import { PgAccounts } from "../../src/accounts/pg/accounts.ts";
import { migratePostgres } from "../../src/accounts/pg/migrate.ts";
import type { Accounts, Biller, Reservation } from "../../src/accounts/seam.ts";
import { AccountsStore } from "../../src/accounts/store.ts";
import { tempDir } from "../helpers/env.ts";
import { type PostgresCluster, postgresBinaries, startPostgres } from "../helpers/postgres.ts";

/** Fresh accounts in one store: the records, a serving replica, and what the store holds on disk. */
interface Opened {
  accounts: Accounts;
  billing: Biller;
  /** Every stored row as text (to look for secrets). */
  dump(): Promise<string>;
  /** The serving replica stopped without settling anything and started again. */
  restart(): Promise<Biller>;
  /** A second replica on the same data (PostgreSQL only), with a reservation time to live. */
  replica?(ttlSeconds?: number): Promise<Biller & { sweepExpired(): Promise<number> }>;
  close(): Promise<void>;
}

interface Subject {
  name: string;
  open(): Promise<Opened>;
}

const sqlite: Subject = {
  name: "bun:sqlite",
  async open() {
    const path = join(tempDir("stockd-contract-"), "accounts.db");
    const store = AccountsStore.open(path);
    let billing = new Billing(store, 50);
    const stopped: Billing[] = [];
    return {
      accounts: store,
      billing,
      async dump() {
        const db = new Database(path, { readonly: true });
        try {
          const tables = db.query("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as {
            name: string;
          }[];
          return JSON.stringify(tables.map((t) => db.query(`SELECT * FROM "${t.name}"`).all()));
        } finally {
          db.close();
        }
      },
      async restart() {
        // A crash drops what the process held; nothing of it was written.
        stopped.push(billing);
        billing = new Billing(store, 50);
        return billing;
      },
      async close() {
        for (const b of [...stopped, billing]) b.close();
        store.close();
      },
    };
  },
};

let cluster: PostgresCluster | null = null;
let databases = 0;

const postgres: Subject = {
  name: "PostgreSQL",
  async open() {
    const url = await (cluster as PostgresCluster).database(`contract${++databases}`);
    const admin = new SQL(url);
    await migratePostgres(admin);
    const opened: PgAccounts[] = [];
    const replica = async (id: string, ttlSeconds = 120) => {
      const r = await PgAccounts.open({
        url,
        replicaId: id,
        serve: true,
        cacheTtlMs: 200,
        reservationTtlSeconds: ttlSeconds,
      });
      opened.push(r);
      return r;
    };
    const first = await replica("r1");
    let replicas = 1;
    return {
      accounts: first,
      billing: first,
      async dump() {
        const tables = await admin`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`;
        const rows = [];
        for (const { tablename } of tables) rows.push(await admin.unsafe(`SELECT * FROM "${tablename}"`));
        return JSON.stringify(rows, (_, v) => (typeof v === "bigint" ? String(v) : v));
      },
      async restart() {
        // The same replica id started again (its old process is gone, holding what it held).
        return replica("r1");
      },
      replica: (ttl) => replica(`r${++replicas}`, ttl),
      async close() {
        for (const r of opened) await r.close();
        await admin.close();
      },
    };
  },
};

const subjects: Subject[] = [sqlite];
if (postgresBinaries()) subjects.push(postgres);
else console.warn("PostgreSQL server binaries not found: the accounts contract runs on SQLite only");

beforeAll(async () => {
  if (postgresBinaries()) cluster = await startPostgres();
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

async function newUser(accounts: Accounts, credits: number) {
  const user = await accounts.createUser(`u${crypto.randomUUID()}@example.test`, credits);
  if (!user.ok) throw new Error(user.message);
  const { key, info } = await accounts.createKey(user.value.id, null, null);
  return { userId: user.value.id, key, info };
}

async function reserved(billing: Biller, info: Awaited<ReturnType<typeof newUser>>["info"], cost: number) {
  const r = await billing.reserve(info, cost);
  return r.ok ? r.reservation : null;
}

for (const subject of subjects) {
  describe(`accounts contract on ${subject.name}`, () => {
    let s: Opened;
    beforeAll(async () => {
      s = await subject.open();
    });
    afterAll(async () => {
      await s.close();
    });

    test("a reservation is granted iff the available credits cover its cost", async () => {
      const { info, userId } = await newUser(s.accounts, 5);
      const over = await s.billing.reserve(info, 6);
      expect(over).toEqual({ ok: false, code: "insufficient_credits", available: 5 });
      const all = (await reserved(s.billing, info, 5)) as Reservation;
      expect(all).not.toBeNull();
      expect(await s.billing.heldFor(userId)).toBe(5);
      expect(await s.billing.reserve(info, 1)).toEqual({
        ok: false,
        code: "insufficient_credits",
        available: 0,
      });
      s.billing.release(all);
      await until(async () => (await s.billing.heldFor(userId)) === 0);
      expect(await reserved(s.billing, info, 1)).not.toBeNull();
    });

    test("N concurrent reserves on a balance of k: exactly k succeed, and k debits leave 0", async () => {
      const k = 7;
      const { info, userId } = await newUser(s.accounts, k);
      const others = s.replica ? [await s.replica(), await s.replica()] : [];
      const billers = [s.billing, ...others];
      const attempts = await Promise.all(
        Array.from({ length: 60 }, (_, i) => (billers[i % billers.length] as Biller).reserve(info, 1)),
      );
      const held = attempts.filter((a) => a.ok);
      expect(held.length).toBe(k);
      const commits = await Promise.all(
        attempts.map((a, i) =>
          a.ok ? (billers[i % billers.length] as Biller).commit(a.reservation, "quote", `req-${i}`) : null,
        ),
      );
      expect(commits.filter((c) => c?.ok).length).toBe(k);
      expect(await s.accounts.getBalance(userId)).toBe(0);
      expect(await s.accounts.ledgerSum(userId)).toBe(0);
      expect(await s.billing.heldFor(userId)).toBe(0);
    });

    test("1,000 credits spent one call at a time: call 1,001 is refused", async () => {
      const { info, userId } = await newUser(s.accounts, 1_000);
      for (let i = 0; i < 1_000; i++) {
        const r = await reserved(s.billing, info, 1);
        if (!r) throw new Error(`call ${i + 1} was refused`);
        const c = await s.billing.commit(r, "quote", `one-${i}`);
        if (!c.ok) throw new Error(`call ${i + 1} was not committed`);
      }
      expect(await s.billing.reserve(info, 1)).toEqual({
        ok: false,
        code: "insufficient_credits",
        available: 0,
      });
      expect(await s.accounts.getBalance(userId)).toBe(0);
      expect(await s.accounts.ledgerSum(userId)).toBe(0);
      const usage = await s.accounts.usageSince(userId, "2000-01-01");
      expect(usage).toEqual([{ endpoint: "quote", calls: 1_000, credits: 1_000 }]);
    });

    test("a commit is idempotent: the same reservation committed twice debits once", async () => {
      const { info, userId } = await newUser(s.accounts, 10);
      const r = (await reserved(s.billing, info, 3)) as Reservation;
      const [a, b] = await Promise.all([
        s.billing.commit(r, "quote", "twice"),
        s.billing.commit(r, "quote", "twice"),
      ]);
      expect(a).toEqual(b);
      expect(a).toMatchObject({ ok: true, remaining: 7 });
      expect(await s.billing.commit(r, "quote", "twice")).toEqual(a);
      expect(await s.accounts.getBalance(userId)).toBe(7);
      expect(await s.accounts.ledgerSum(userId)).toBe(7);
    });

    test("released credits come back; a restarted replica holds nothing", async () => {
      const { info, userId } = await newUser(s.accounts, 4);
      const r = (await reserved(s.billing, info, 4)) as Reservation;
      s.billing.release(r);
      s.billing.release(r);
      await until(async () => (await s.billing.heldFor(userId)) === 0);
      await reserved(s.billing, info, 3);
      expect(await s.billing.heldFor(userId)).toBe(3);
      const restarted = await s.restart();
      expect(await restarted.heldFor(userId)).toBe(0);
      expect(await reserved(restarted, info, 4)).not.toBeNull();
      expect(await s.accounts.getBalance(userId)).toBe(4);
    });

    test("an expired reservation is swept by any replica", async () => {
      if (!s.replica) return;
      const { info, userId } = await newUser(s.accounts, 2);
      const shortLived = await s.replica(1);
      await reserved(shortLived, info, 2);
      expect(await s.billing.reserve(info, 1)).toMatchObject({ ok: false });
      const other = await s.replica();
      expect(await other.sweepExpired()).toBe(0);
      // Every serving replica sweeps each second: the reservation goes once it is 1 s old.
      await until(async () => (await s.billing.heldFor(userId)) === 0);
      expect(await reserved(s.billing, info, 2)).not.toBeNull();
    });

    test("balance = Σ ledger through grants, debits and refunds", async () => {
      const { info, userId } = await newUser(s.accounts, 50);
      expect(await s.accounts.grantCredits(userId, 25, "top-up")).toEqual({ ok: true, value: 75 });
      expect((await s.accounts.grantCredits(userId, -100, "too much")).ok).toBe(false);
      expect((await s.accounts.grantCredits(userId, 0, "nothing")).ok).toBe(false);
      const debits = [];
      for (let i = 0; i < 5; i++) {
        const r = (await reserved(s.billing, info, 2)) as Reservation;
        const c = await s.billing.commit(r, "profile", `mix-${i}`);
        debits.push({ r, c });
      }
      const { r, c } = debits[0] as (typeof debits)[number];
      if (!c.ok) throw new Error("not committed");
      s.billing.refund(r, "profile", "mix-0", c.day);
      s.billing.refund(r, "profile", "mix-0", c.day);
      await until(async () => (await s.accounts.getBalance(userId)) === 67);
      await Bun.sleep(100);
      expect(await s.accounts.getBalance(userId)).toBe(67);
      expect(await s.accounts.ledgerSum(userId)).toBe(67);
      expect(await s.accounts.usageSince(userId, "2000-01-01")).toEqual([
        { endpoint: "profile", calls: 4, credits: 8 },
      ]);
    });

    test("keys are stored only as hashes; a disabled key stops authenticating", async () => {
      const { key, info } = await newUser(s.accounts, 1);
      const stored = await s.dump();
      expect(stored).not.toContain(key);
      expect(stored).not.toContain(key.slice(3));
      expect(stored).toContain(hashApiKey(key));
      const now = new Date();
      expect(s.billing.authenticate(key, now)?.id).toBe(info.id);
      expect(s.billing.authenticate(`${key}x`, now)).toBeNull();
      expect(await s.accounts.setKeyDisabled(info.id, true)).toBe(true);
      await until(() => s.billing.authenticate(key, new Date()) === null);
      expect(await s.accounts.setKeyDisabled("key_nope", true)).toBe(false);
    });

    test("a key disabled through one replica stops on the others within seconds", async () => {
      if (!s.replica) return;
      const other = await s.replica();
      const { key, info } = await newUser(s.accounts, 1);
      await until(() => other.authenticate(key, new Date()) !== null);
      const started = Date.now();
      await s.accounts.setKeyDisabled(info.id, true);
      await until(() => other.authenticate(key, new Date()) === null);
      expect(Date.now() - started).toBeLessThan(2_000);
    });
  });
}

/** Waits (up to 5 s) until `done` holds. */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await Bun.sleep(20);
  }
}
