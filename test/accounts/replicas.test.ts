/**
 * Three `stockd serve` replicas on one PostgreSQL accounts database (docs/scale-out.md), as an
 * operator sets them up: `stockd migrate --accounts`, `stockd accounts export --to` of a data
 * dir's SQLite accounts, then STOCKD_ACCOUNTS_URL on each replica. Concurrent calls across
 * them never overdraw and are billed exactly, reconciled per request id; a replica killed
 * mid-run (SIGKILL) gives back what it held when it starts again; a crash of PostgreSQL under
 * load refuses calls fast and bills none of them; a key disabled with the CLI stops on all;
 * `doctor` checks the shared books. Skipped with a notice without PostgreSQL's server binaries.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { PG_MIGRATIONS } from "../../src/accounts/pg/migrate.ts";
import type { DoctorReport } from "../../src/doctor/index.ts";
import { PRICING } from "../../src/http/pricing.ts";
import { cli, cliJson } from "../helpers/cli.ts";
import { type PostgresCluster, postgresBinaries, startPostgres } from "../helpers/postgres.ts";
import { demoDataDir, openAccounts } from "../helpers/server.ts";
import { ServerProcess, stockdEnv } from "../helpers/spawn.ts";

const binaries = postgresBinaries();
if (!binaries) console.warn("PostgreSQL server binaries not found: the multi-replica test is skipped");

const PATH = "/stocks/DWGT/profile";
const PRICE = PRICING.profile;

describe.skipIf(!binaries)("three replicas on one PostgreSQL", () => {
  let cluster: PostgresCluster;
  let url: string;
  let dataDir: string;
  let admin: SQL;
  let key: string;
  let userId: string;
  const replicas: ServerProcess[] = [];
  /** Each replica's id: a restarted one takes its id again, to give back what it held. */
  const idOf = new Map<ServerProcess, string>();
  const env = () => stockdEnv({ STOCKD_ACCOUNTS_URL: url });
  const start = async (id: string) => {
    const replica = await ServerProcess.start({
      dataDir,
      env: stockdEnv({ STOCKD_ACCOUNTS_URL: url, STOCKD_REPLICA_ID: id }),
    });
    replicas.push(replica);
    idOf.set(replica, id);
    return replica;
  };

  /** The user's balance equals the sum of their ledger. */
  const expectBalanceIsLedger = async () => {
    const [sums] = (await admin`
      SELECT (SELECT balance::int FROM users WHERE id = ${userId}) AS balance,
             (SELECT sum(delta)::int FROM ledger WHERE user_id = ${userId}) AS ledger`) as {
      balance: number;
      ledger: number;
    }[];
    expect(sums?.balance).toBe(sums?.ledger);
  };

  beforeAll(async () => {
    cluster = await startPostgres();
    url = await cluster.database("stockd");
    admin = new SQL(url, { max: 2 });
    dataDir = await demoDataDir();
    // Today's accounts, in the data dir's SQLite file, to be moved.
    const store = openAccounts(dataDir);
    const user = store.createUser("team@example.test", 300);
    if (!user.ok) throw new Error(user.message);
    userId = user.value.id;
    key = store.createKey(userId, "team", null).key;
    store.close();
  }, 120_000);

  afterAll(async () => {
    for (const r of replicas) r.proc.kill("SIGKILL");
    await Promise.all(replicas.map((r) => r.exited));
    await admin?.close();
    await cluster?.stop();
  });

  test("migrate, then export the SQLite accounts: counts and balances verified, a second run adds nothing", async () => {
    const refused = await cli(["accounts", "export", "--to", url], { dataDir, env: env() });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("stockd migrate --accounts");
    const migrated = await cliJson<{ applied: number[] }>(["migrate", "--accounts", url], { env: env() });
    expect(migrated.applied).toEqual(PG_MIGRATIONS.map((m) => m.version));
    expect(
      (await cliJson<{ applied: number[] }>(["migrate", "--accounts", url], { env: env() })).applied,
    ).toEqual([]);
    const first = await cliJson<{ added: Record<string, number>; mismatches: unknown[] }>(
      ["accounts", "export", "--to", url],
      { dataDir, env: env() },
    );
    expect(first.added).toEqual({ users: 1, keys: 1, ledger_rows: 1 });
    expect(first.mismatches).toEqual([]);
    const again = await cliJson<{ added: Record<string, number> }>(["accounts", "export", "--to", url], {
      dataDir,
      env: env(),
    });
    expect(again.added).toEqual({ users: 0, keys: 0, ledger_rows: 0 });
    // As an export before ledger_exported left it (rows under their SQLite ids, nothing recorded).
    await admin`DELETE FROM ledger_exported`;
    const legacy = await cliJson<{ added: Record<string, number>; mismatches: unknown[] }>(
      ["accounts", "export", "--to", url],
      { dataDir, env: env() },
    );
    expect(legacy.added.ledger_rows).toBe(0);
    expect(legacy.mismatches).toEqual([]);
    const stored = JSON.stringify(await admin`SELECT * FROM api_keys`);
    expect(stored).not.toContain(key);
  });

  test("calls across three replicas at once: exactly the credits' worth answer 2xx, each billed once", async () => {
    const three = await Promise.all([start("r1"), start("r2"), start("r3")]);
    const calls = 300 / PRICE + 120;
    const statuses: number[] = [];
    const billedIds: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < calls) {
        const i = next++;
        const server = three[i % 3] as ServerProcess;
        const res = await fetch(`${server.url}${PATH}`, { headers: { authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        statuses.push(res.status);
        if (res.status === 200) billedIds.push(res.headers.get("x-request-id") as string);
      }
    };
    await Promise.all(Array.from({ length: 24 }, worker));
    expect(statuses.filter((s) => s === 200).length).toBe(300 / PRICE);
    expect(statuses.filter((s) => s !== 200 && s !== 402)).toEqual([]);
    const ledger = (await admin`
      SELECT request_id FROM ledger WHERE user_id = ${userId} AND reason = 'usage' ORDER BY request_id`) as {
      request_id: string;
    }[];
    expect(ledger.map((r) => r.request_id)).toEqual([...billedIds].sort());
    const [user] = (await admin`
      SELECT balance::int AS balance, reserved::int AS reserved,
             (SELECT sum(delta)::int FROM ledger WHERE user_id = ${userId}) AS ledger
      FROM users WHERE id = ${userId}`) as { balance: number; reserved: number; ledger: number }[];
    expect(user).toEqual({ balance: 0, reserved: 0, ledger: 0 });
  }, 120_000);

  test("a replica killed mid-run gives back what it held when it starts again; the survivor bills exactly", async () => {
    await cli(["credits", "grant", "--user", userId, "--amount", "100000"], { env: env() });
    const earlier = new Set(
      ((await admin`SELECT request_id FROM ledger WHERE reason = 'usage'`) as { request_id: string }[]).map(
        (r) => r.request_id,
      ),
    );
    const [a, b] = replicas as [ServerProcess, ServerProcess];
    const answers = new Map<string, number>();
    let stop = false;
    const worker = async (server: ServerProcess) => {
      while (!stop) {
        try {
          const res = await fetch(`${server.url}${PATH}`, { headers: { authorization: `Bearer ${key}` } });
          await res.arrayBuffer();
          answers.set(res.headers.get("x-request-id") as string, res.status);
        } catch {
          if (server === b) return;
        }
      }
    };
    const running = [
      ...Array.from({ length: 8 }, () => worker(a)),
      ...Array.from({ length: 8 }, () => worker(b)),
    ];
    await Bun.sleep(800);
    b.proc.kill("SIGKILL");
    await b.exited;
    await Bun.sleep(300);
    stop = true;
    await Promise.all(running);
    await start(idOf.get(b) as string);
    const [held] = (await admin`SELECT reserved::int AS reserved FROM users WHERE id = ${userId}`) as {
      reserved: number;
    }[];
    expect(held?.reserved).toBe(0);
    // Every 2xx a client received is in the ledger once; a billed call without a client 2xx can
    // only be one the killed replica had in flight (its answer lost with it).
    const billed = (
      (await admin`SELECT request_id FROM ledger WHERE user_id = ${userId} AND reason = 'usage'`) as {
        request_id: string;
      }[]
    ).filter((r) => !earlier.has(r.request_id));
    expect(billed.length).toBeGreaterThan(0);
    const ids = new Set(billed.map((r) => r.request_id));
    expect(ids.size).toBe(billed.length);
    for (const [id, status] of answers) if (status === 200) expect(ids.has(id)).toBe(true);
    for (const [id, status] of answers) if (status !== 200) expect(ids.has(id)).toBe(false);
    const unanswered = billed.filter((r) => answers.get(r.request_id) !== 200).length;
    expect(unanswered).toBeLessThanOrEqual(8);
    await expectBalanceIsLedger();
  }, 120_000);

  test("PostgreSQL killed and restarted mid-run: calls answer 503 fast (never hang, never billed), /health says not ready, then all recover", async () => {
    const live = replicas.filter((r) => r.exitCode === null && r.signalCode === null);
    const answers = new Map<string, { status: number; ms: number }>();
    const health: number[] = [];
    let stop = false;
    const worker = async (server: ServerProcess) => {
      while (!stop) {
        const started = performance.now();
        const res = await fetch(`${server.url}${PATH}`, { headers: { authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        answers.set(res.headers.get("x-request-id") as string, {
          status: res.status,
          ms: performance.now() - started,
        });
        if (res.status !== 200) await Bun.sleep(20);
      }
    };
    const running = live.flatMap((r) => Array.from({ length: 4 }, () => worker(r)));
    await Bun.sleep(500);
    await cluster.restart();
    // The replicas notice within a sweep period (1 s) and recover once the database answers.
    const deadline = Date.now() + 15_000;
    for (const replica of live) {
      let status = 0;
      while (status !== 200 && Date.now() < deadline) {
        status = (await fetch(`${replica.url}/health`)).status;
        health.push(status);
        if (status !== 200) await Bun.sleep(100);
      }
      expect(status).toBe(200);
    }
    await Bun.sleep(500);
    stop = true;
    await Promise.all(running);
    const statuses = new Set([...answers.values()].map((a) => a.status));
    expect([...statuses].filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(statuses.has(503)).toBe(true);
    // The breaker stays open a second after its last failure: the replicas report not ready.
    expect(health).toContain(503);
    // Within the accounts timeout (2 s) plus the server's own work, never the 10 s call budget.
    expect(Math.max(...[...answers.values()].map((a) => a.ms))).toBeLessThan(5_000);
    // A commit cut off by the crash was answered as charged and is retried each second until
    // it lands: the books are reconciled once the replicas' retries are done.
    const served = [...answers].filter(([, a]) => a.status === 200).map(([id]) => id);
    const usage = async () =>
      new Set(
        ((await admin`SELECT request_id FROM ledger WHERE reason = 'usage'`) as { request_id: string }[]).map(
          (r) => r.request_id,
        ),
      );
    let billed = await usage();
    for (const until = Date.now() + 10_000; !served.every((id) => billed.has(id)) && Date.now() < until; ) {
      await Bun.sleep(200);
      billed = await usage();
    }
    // The status is in the comparison so that a failure names the answer that disagrees.
    for (const [id, a] of answers)
      expect({ id, status: a.status, billed: billed.has(id) }).toEqual({
        id,
        status: a.status,
        billed: a.status === 200,
      });
    // Releases that failed during the outage are retried: nothing stays held.
    const waitUntil = Date.now() + 10_000;
    let reserved = -1;
    while (reserved !== 0 && Date.now() < waitUntil) {
      const rows = (await admin`SELECT reserved::int AS reserved FROM users WHERE id = ${userId}`) as {
        reserved: number;
      }[];
      reserved = rows[0]?.reserved ?? -1;
      if (reserved !== 0) await Bun.sleep(200);
    }
    expect(reserved).toBe(0);
    await expectBalanceIsLedger();
  }, 120_000);

  test("a key disabled with the CLI stops on every replica within seconds", async () => {
    const live = replicas.filter((r) => r.exitCode === null && r.signalCode === null);
    expect(live.length).toBe(3);
    const keys = await cliJson<{ keys: { id: string }[] }>(["keys", "list", "--user", userId], {
      env: env(),
    });
    const started = Date.now();
    await cliJson(["keys", "disable", keys.keys[0]?.id as string], { env: env() });
    for (const replica of live) {
      while (
        (await fetch(`${replica.url}${PATH}`, { headers: { authorization: `Bearer ${key}` } })).status !== 401
      ) {
        if (Date.now() - started > 5_000) throw new Error(`still accepted by ${replica.url}`);
        await Bun.sleep(50);
      }
    }
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 60_000);

  test("export, bill on the replicas, bill more on the SQLite server, export again: exactly its new rows are added, balances verified", async () => {
    const store = openAccounts(dataDir);
    const user = store.createUser("moved-late@example.test", 100);
    if (!user.ok) throw new Error(user.message);
    const late = store.createKey(user.value.id, "late", null).key;
    store.close();
    type Report = { added: { ledger_rows: number }; mismatches: unknown[] };
    const exported = () => cliJson<Report>(["accounts", "export", "--to", url], { dataDir, env: env() });
    const first = await exported();
    expect(first.added.ledger_rows).toBe(1);
    expect(first.mismatches).toEqual([]);
    const bill = async (base: string, calls: number) => {
      for (let i = 0; i < calls; i++) {
        const res = await fetch(`${base}${PATH}`, { headers: { authorization: `Bearer ${late}` } });
        await res.arrayBuffer();
        expect(res.status).toBe(200);
      }
    };
    const replica = replicas.find((r) => r.exitCode === null && r.signalCode === null) as ServerProcess;
    await bill(replica.url, 3);
    // The single server, still on the SQLite accounts: its new ledger rows take ids the replicas' rows have.
    const single = await ServerProcess.start({ dataDir, env: stockdEnv({}) });
    try {
      await bill(single.url, 2);
    } finally {
      single.proc.kill("SIGTERM");
      await single.exited;
    }
    const again = await exported();
    expect(again.added.ledger_rows).toBe(2);
    expect(again.mismatches).toEqual([]);
    const [row] = await admin`SELECT balance::int AS balance FROM users WHERE id = ${user.value.id}`;
    expect(row?.balance).toBe(100 - 5 * PRICE);
    const third = await exported();
    expect(third.added.ledger_rows).toBe(0);
    expect(third.mismatches).toEqual([]);
    // Spent on both sides: the replicas take the rest, the SQLite server one call more.
    await bill(replica.url, (100 - 5 * PRICE) / PRICE);
    const sqliteAgain = await ServerProcess.start({ dataDir, env: stockdEnv({}) });
    try {
      await bill(sqliteAgain.url, 1);
    } finally {
      sqliteAgain.proc.kill("SIGTERM");
      await sqliteAgain.exited;
    }
    const refused = await cli(["accounts", "export", "--to", url], { dataDir, env: env() });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(user.value.id);
    expect(refused.stderr).toContain("spent on both sides");
    const [after] = await admin`SELECT balance::int AS balance FROM users WHERE id = ${user.value.id}`;
    expect(after?.balance).toBe(0);
  }, 60_000);

  test("doctor checks the PostgreSQL books without printing the URL; backup refuses and names pg_dump", async () => {
    const healthy = await cliJson<DoctorReport>(["doctor", "--json"], { dataDir, env: env() });
    const accounts = healthy.findings.filter((f) => f.check === "accounts");
    expect(accounts.map((f) => f.status)).toEqual(["ok"]);
    expect(JSON.stringify(healthy)).not.toContain(url);
    // A ledger row the balance does not reflect: the books no longer add up.
    await admin`INSERT INTO ledger (user_id, delta, reason, created_at) VALUES (${userId}, 5, 'tampered', '2026-01-01')`;
    const broken = await cli(["doctor", "--json"], { dataDir, env: env() });
    expect(broken.code).toBe(1);
    const report = JSON.parse(broken.stdout) as DoctorReport;
    const failed = report.findings.filter((f) => f.status === "fail").map((f) => f.message);
    expect(failed).toEqual([expect.stringContaining(`user ${userId}`)]);
    expect(failed[0]).toContain("ledger deltas sum to");
    const backup = await cli(["backup", "--to", dataDir], { dataDir, env: env() });
    expect(backup.code).not.toBe(0);
    expect(backup.stderr).toContain("pg_dump");
    const unreachable = await cli(["doctor", "--json"], {
      dataDir,
      env: stockdEnv({
        STOCKD_ACCOUNTS_URL: "postgres://stockd:secret@127.0.0.1:1/none",
        STOCKD_ACCOUNTS_TIMEOUT_MS: "500",
      }),
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stdout).toContain("did not answer");
    expect(unreachable.stdout).not.toContain("secret");
  }, 60_000);
});
