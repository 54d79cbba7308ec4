/**
 * ExportRepeats over the accounts store, on a clock the test moves: bun:sqlite always, and
 * PostgreSQL on a cluster of this file's own when its server binaries are installed (else
 * skipped with a notice). A paid export is free until its window ends, then pays again; reads
 * waiting for a paying one are free once it paid, and one of them pays when it did not; an
 * outcome reported twice counts once; what was paid survives a new ExportRepeats on the same
 * store (a restart) and is shared by another on the same database (a replica); two first
 * reads at once in two processes pay once; a paying read never settled (its process gone)
 * holds the export for its lease, then counts as paid for the window; a waiting read stops
 * when given up, asking the store less and less often; a paid settle the store refuses
 * (SQLite's lock held) lands on a retry; what is over is swept, and a sweep that fails is
 * logged without failing the read; accounts export moves the payments to PostgreSQL.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SQL } from "bun";
import { PgAccounts } from "../../src/accounts/pg/accounts.ts";
import { exportAccounts } from "../../src/accounts/pg/export.ts";
import { migratePostgres } from "../../src/accounts/pg/migrate.ts";
import type { Accounts } from "../../src/accounts/seam.ts";
import { AccountsStore } from "../../src/accounts/store.ts";
import { ExportRepeats } from "../../src/http/export-repeats.ts";
import { createLogger } from "../../src/log.ts";
import { tempDir } from "../helpers/env.ts";
import { type PostgresCluster, postgresBinaries, startPostgres } from "../helpers/postgres.ts";

const HOUR = 3600_000;
const LEASE = 60_000;

function clock() {
  let now = Date.parse("2026-01-01T00:00:00Z");
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** Two connections to one fresh accounts store: two processes, or one before and after a restart. */
interface Stores {
  one: Accounts;
  two: Accounts;
  /** SQLite: another connection holds the write lock until the function returned is called. */
  lock?: () => () => void;
  close(): Promise<void>;
}

interface Subject {
  name: string;
  open(): Promise<Stores>;
}

const sqlite: Subject = {
  name: "bun:sqlite",
  async open() {
    const path = join(tempDir("stockd-repeats-"), "accounts.db");
    const [one, two] = [AccountsStore.open(path), AccountsStore.open(path)];
    return {
      one,
      two,
      lock() {
        const holder = new Database(path);
        holder.exec("BEGIN IMMEDIATE");
        return () => {
          holder.exec("COMMIT");
          holder.close();
        };
      },
      async close() {
        one.close();
        two.close();
      },
    };
  },
};

let cluster: PostgresCluster | null = null;
let databases = 0;

/** A new database in the cluster, migrated. */
async function migratedDatabase(): Promise<string> {
  const url = await (cluster as PostgresCluster).database(`repeats${++databases}`);
  const admin = new SQL(url);
  await migratePostgres(admin);
  await admin.close();
  return url;
}

const postgres: Subject = {
  name: "PostgreSQL",
  async open() {
    const url = await migratedDatabase();
    const [one, two] = await Promise.all([PgAccounts.open({ url }), PgAccounts.open({ url })]);
    return {
      one,
      two,
      async close() {
        await one.close();
        await two.close();
      },
    };
  },
};

const subjects: Subject[] = [sqlite];
if (postgresBinaries()) subjects.push(postgres);
else console.warn("PostgreSQL server binaries not found: export repeats are tested on SQLite only");

beforeAll(async () => {
  if (postgresBinaries()) cluster = await startPostgres();
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

async function newUser(accounts: Accounts): Promise<string> {
  const user = await accounts.createUser(`u${crypto.randomUUID()}@example.test`, 0);
  if (!user.ok) throw new Error(user.message);
  return user.value.id;
}

for (const subject of subjects) {
  describe(`export repeats on ${subject.name}`, () => {
    let s: Stores;
    beforeAll(async () => {
      s = await subject.open();
    }, 30_000);
    afterAll(() => s.close());

    test("free within the window after a paid read, charged again after it; kept across a restart", async () => {
      const time = clock();
      const [u, v] = [await newUser(s.one), await newUser(s.one)];
      const repeats = new ExportRepeats(s.one, { windowMs: 24 * HOUR, now: time.now });
      const pay = await repeats.claim(u, "s/prices.parquet");
      expect(pay).not.toBeNull();
      pay?.(true);
      await Bun.sleep(50);
      time.advance(24 * HOUR - 1);
      expect(await repeats.claim(u, "s/prices.parquet")).toBeNull();
      // The process restarted (or another replica): the payment is in the store.
      const restarted = new ExportRepeats(s.two, { windowMs: 24 * HOUR, now: time.now });
      expect(await restarted.claim(u, "s/prices.parquet")).toBeNull();
      // Another user, another file: their own payment.
      expect(await repeats.claim(v, "s/prices.parquet")).not.toBeNull();
      expect(await repeats.claim(u, "s/prices.csv")).not.toBeNull();
      time.advance(1);
      expect(await restarted.claim(u, "s/prices.parquet")).not.toBeNull();
    });

    test("reads waiting for the paying one: free when it paid, one pays when it did not", async () => {
      const u = await newUser(s.one);
      const repeats = new ExportRepeats(s.one, { windowMs: HOUR, now: clock().now });
      const first = await repeats.claim(u, "k");
      const waiting = [repeats.claim(u, "k"), repeats.claim(u, "k")];
      first?.(false);
      // One of the waiting reads becomes the payer; the other waits for it in turn.
      const second = await Promise.race(waiting);
      expect(second).not.toBeNull();
      second?.(true);
      second?.(false);
      expect(await Promise.all(waiting)).toContain(null);
      expect(await repeats.claim(u, "k")).toBeNull();
    });

    test("two first reads at once in two processes: one pays, the other waits for it and is free", async () => {
      const time = clock();
      const u = await newUser(s.one);
      const [a, b] = [s.one, s.two].map((store) => new ExportRepeats(store, { now: time.now }));
      const claims = [(a as ExportRepeats).claim(u, "k"), (b as ExportRepeats).claim(u, "k")];
      const payer = await Promise.race(claims);
      expect(payer).not.toBeNull();
      await Bun.sleep(300);
      payer?.(true);
      const outcomes = await Promise.all(claims);
      expect(outcomes.filter((o) => o === null)).toHaveLength(1);
    });

    test("another process's read that does not pay leaves the next to pay", async () => {
      const time = clock();
      const u = await newUser(s.one);
      const [a, b] = [s.one, s.two].map((store) => new ExportRepeats(store, { now: time.now }));
      const payer = await (a as ExportRepeats).claim(u, "k");
      const waiting = (b as ExportRepeats).claim(u, "k");
      await Bun.sleep(300);
      payer?.(false);
      const next = await waiting;
      expect(next).not.toBeNull();
      next?.(true);
      expect(await (a as ExportRepeats).claim(u, "k")).toBeNull();
    });

    test("a paying read never settled (its process gone) holds the export for its lease, then counts as paid for the window; what is over is swept", async () => {
      const time = clock();
      // Days after the other tests' payments: the sweeps below count this test's rows only.
      time.advance(10 * 24 * HOUR);
      await s.two.sweepExports(time.now(), HOUR);
      const u = await newUser(s.one);
      const gone = new ExportRepeats(s.one, { windowMs: HOUR, now: time.now });
      expect(await gone.claim(u, "k")).not.toBeNull();
      // Its process stopped without a word: another waits while the lease lasts, and is then
      // free: the read that held it may have been charged and delivered.
      const other = new ExportRepeats(s.two, { windowMs: HOUR, now: time.now });
      const waiting = other.claim(u, "k");
      await Bun.sleep(300);
      time.advance(LEASE);
      expect(await waiting).toBeNull();
      time.advance(HOUR - 1);
      expect(await other.claim(u, "k")).toBeNull();
      expect(await s.two.sweepExports(time.now(), HOUR)).toBe(0);
      time.advance(1);
      expect(await s.two.sweepExports(time.now(), HOUR)).toBeGreaterThanOrEqual(1);
      const next = await other.claim(u, "k");
      expect(next).not.toBeNull();
      next?.(true);
      await Bun.sleep(50);
      expect(await s.two.sweepExports(time.now() + HOUR - 1, HOUR)).toBe(0);
      expect(await s.two.sweepExports(time.now() + HOUR, HOUR)).toBe(1);
    });

    test("a read waiting for another's payment stops when given up (a 503, not charged), looking again less and less often", async () => {
      const time = clock();
      const u = await newUser(s.one);
      const a = new ExportRepeats(s.one, { now: time.now });
      const pay = await a.claim(u, "k");
      expect(pay).not.toBeNull();
      // In this process: it waits on the paying read, until its budget.
      let started = performance.now();
      const local = a.claim(u, "k", () => performance.now() - started > 400);
      expect(local).rejects.toMatchObject({ status: 503 });
      await local.catch(() => {});
      expect(performance.now() - started).toBeLessThan(1_500);
      // In another process: it asks the store after 100, 200, 400, 800, then every 1000 ms.
      let asked = 0;
      const counted = new Proxy(s.two, {
        get(target, name) {
          const value = Reflect.get(target, name);
          if (typeof value !== "function") return value;
          if (name === "claimExport") asked++;
          return value.bind(target);
        },
      });
      const b = new ExportRepeats(counted, { now: time.now });
      started = performance.now();
      const remote = b.claim(u, "k", () => performance.now() - started > 2_600);
      expect(remote).rejects.toMatchObject({ status: 503 });
      await remote.catch(() => {});
      expect(asked).toBeGreaterThanOrEqual(4);
      expect(asked).toBeLessThanOrEqual(8);
      // Given up, neither holds the export: the paying read settles it, and repeats are free.
      pay?.(true);
      await Bun.sleep(50);
      expect(await b.claim(u, "k")).toBeNull();
    });

    test.skipIf(subject !== sqlite)(
      "a paid read's settle that the store refuses at first is tried again until it lands",
      async () => {
        const time = clock();
        const u = await newUser(s.one);
        const repeats = new ExportRepeats(s.one, { now: time.now });
        const pay = await repeats.claim(u, "k");
        const unlock = (s.lock as NonNullable<Stores["lock"]>)();
        // The settle waits for the lock (busy_timeout) and is refused.
        pay?.(true);
        await Bun.sleep(100);
        unlock();
        // The lease still lasts (the clock stands): only the settle's retry makes this read free.
        const other = new ExportRepeats(s.two, { now: time.now });
        const started = performance.now();
        expect(await other.claim(u, "k", () => performance.now() - started > 4_000)).toBeNull();
      },
      30_000,
    );
  });
}

describe.skipIf(!postgresBinaries())("accounts export", () => {
  test("a move from SQLite to PostgreSQL keeps the exports paid within their window", async () => {
    const path = join(tempDir("stockd-repeats-"), "accounts.db");
    const sqliteStore = AccountsStore.open(path);
    const u = await newUser(sqliteStore);
    const before = new ExportRepeats(sqliteStore);
    (await before.claim(u, "s/prices.parquet"))?.(true);
    // A read paying at the time of the move stays behind: it pays on its own side.
    expect(await before.claim(u, "s/prices.csv")).not.toBeNull();
    await Bun.sleep(50);
    sqliteStore.close();
    const url = await migratedDatabase();
    const report = await exportAccounts(path, url);
    expect(report.export_payments_added).toBe(1);
    expect((await exportAccounts(path, url)).export_payments_added).toBe(0);
    const pg = await PgAccounts.open({ url });
    try {
      const after = new ExportRepeats(pg);
      expect(await after.claim(u, "s/prices.parquet")).toBeNull();
      expect(await after.claim(u, "s/prices.csv")).not.toBeNull();
    } finally {
      await pg.close();
    }
  });
});

describe.skipIf(!postgresBinaries())("sweeping export payments", () => {
  test("a sweep that fails leaves the read that set it off alone, and is logged", async () => {
    const url = await migratedDatabase();
    const store = await PgAccounts.open({ url, timeoutMs: 300 });
    const admin = new SQL(url);
    let release = () => {};
    let held: Promise<unknown> = Promise.resolve();
    try {
      const time = clock();
      const [u, v] = [await newUser(store), await newUser(store)];
      // v's payment, over by the time of u's read: that read's sweep deletes it, or waits for its lock.
      (await new ExportRepeats(store, { windowMs: HOUR, now: time.now }).claim(v, "old"))?.(true);
      await Bun.sleep(100);
      time.advance(2 * HOUR);
      let locked = () => {};
      const lockTaken = new Promise<void>((resolve) => (locked = resolve));
      held = admin.begin(async (tx) => {
        await tx`SELECT 1 FROM export_payments WHERE user_id = ${v} FOR UPDATE`;
        locked();
        await new Promise<void>((resolve) => (release = resolve));
      });
      await lockTaken;
      const lines: string[] = [];
      const log = createLogger("warn", (line) => lines.push(line));
      const pay = await new ExportRepeats(store, { windowMs: HOUR, now: time.now, log }).claim(u, "k");
      expect(pay).not.toBeNull();
      pay?.(true);
      await Bun.sleep(800);
      expect(lines.some((line) => line.includes("sweeping export payments failed"))).toBe(true);
    } finally {
      release();
      await held;
      await store.close();
      await admin.close();
    }
  });
});
