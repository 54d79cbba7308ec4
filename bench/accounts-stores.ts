#!/usr/bin/env bun
/**
 * Billed calls per second on the two accounts stores in one run (docs/scale-out.md): a
 * `stockd serve` on SQLite and one on PostgreSQL (a cluster of this run's own, on the same
 * machine), the same demo snapshot, 64 connections on `/stocks/DWGT/profile` (1 credit), for one
 * hot user and for 50 users, alternating repetitions (medians); then the books checked (ledger
 * rows = 2xx on each store), the time from a PostgreSQL SIGKILL to the first 2xx after it, and
 * from a replica's SIGKILL under load to no credits held once it has started again.
 * On a machine whose cores the servers, PostgreSQL and this generator share, the ratio is the
 * figure; the absolute rates are not those of separate hosts.
 *
 * `bun bench/accounts-stores.ts [--seconds 3] [--reps 3]`
 */
import { Database } from "bun:sqlite";
import { cpSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SQL } from "bun";
import { PgAccounts } from "../src/accounts/pg/accounts.ts";
import { migratePostgres } from "../src/accounts/pg/migrate.ts";
import type { Accounts } from "../src/accounts/seam.ts";
import { AccountsStore } from "../src/accounts/store.ts";
import { buildDemo } from "../src/demo/index.ts";
import { postgresBinaries, startPostgres } from "../test/helpers/postgres.ts";
import { ServerProcess, stockdEnv } from "../test/helpers/spawn.ts";
import { closedLoop } from "./lib/loadgen.ts";
import { median } from "./lib/stats.ts";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "3" }, reps: { type: "string", default: "3" } },
});
const SECONDS = Number(values.seconds);
const REPS = Number(values.reps);
const CONNECTIONS = 64;
const PATH = "/stocks/DWGT/profile";
const CREDITS = 1_000_000_000;

if (!postgresBinaries()) {
  console.error("PostgreSQL server binaries not found (Debian: apt-get install postgresql)");
  process.exit(2);
}

async function keysFor(accounts: Accounts, users: number, tag: string): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < users; i++) {
    const user = await accounts.createUser(`${tag}-${i}@bench.invalid`, CREDITS);
    if (!user.ok) throw new Error(user.message);
    keys.push((await accounts.createKey(user.value.id, null, null)).key);
  }
  return keys;
}

/** `CONNECTIONS` keep-alive connections on PATH for `seconds` (bench/lib/loadgen.ts). */
const drive = (url: string, keys: string[], seconds: number) =>
  closedLoop(url, PATH, keys, seconds, CONNECTIONS);

const cluster = await startPostgres();
const servers: ServerProcess[] = [];
try {
  const url = await cluster.database("bench");
  const admin = new SQL(url, { max: 2 });
  await migratePostgres(admin);
  const sqliteDir = join(tmpdir(), `stockd-bench-sqlite-${process.pid}`);
  await buildDemo(sqliteDir);
  const pgDir = join(tmpdir(), `stockd-bench-pg-${process.pid}`);
  cpSync(sqliteDir, pgDir, { recursive: true });

  const store = AccountsStore.open(join(sqliteDir, "accounts.db"));
  const pg = await PgAccounts.open({ url });
  const keys = {
    sqlite: { hot: await keysFor(store, 1, "hot"), spread: await keysFor(store, 50, "spread") },
    postgres: { hot: await keysFor(pg, 1, "hot"), spread: await keysFor(pg, 50, "spread") },
  };
  store.close();
  await pg.close();

  const env = { STOCKD_LOG_LEVEL: "error" };
  const sqliteServer = await ServerProcess.start({ dataDir: sqliteDir, env: stockdEnv(env) });
  const pgServer = await ServerProcess.start({
    dataDir: pgDir,
    env: stockdEnv({ ...env, STOCKD_ACCOUNTS_URL: url, STOCKD_REPLICA_ID: "bench" }),
  });
  servers.push(sqliteServer, pgServer);

  const rates: Record<string, number[]> = {};
  const oks = { sqlite: 0, postgres: 0 };
  for (const scenario of ["hot", "spread"] as const) {
    // Warm-up, then alternating repetitions.
    await drive(sqliteServer.url, keys.sqlite[scenario], 0.5).then((r) => (oks.sqlite += r.ok));
    await drive(pgServer.url, keys.postgres[scenario], 0.5).then((r) => (oks.postgres += r.ok));
    for (let rep = 0; rep < REPS; rep++) {
      for (const name of rep % 2 === 0
        ? (["sqlite", "postgres"] as const)
        : (["postgres", "sqlite"] as const)) {
        const server = name === "sqlite" ? sqliteServer : pgServer;
        const run = await drive(server.url, keys[name][scenario], SECONDS);
        oks[name] += run.ok;
        const other = [...run.statuses.keys()].filter((s) => s !== 200);
        if (other.length > 0)
          console.error(`${name} ${scenario}: statuses ${JSON.stringify([...run.statuses])}`);
        const rows = rates[`${scenario}:${name}`] ?? [];
        rows.push(run.perSecond);
        rates[`${scenario}:${name}`] = rows;
      }
    }
  }

  // Recovery: PostgreSQL SIGKILLed and started again; time to the first 2xx after the kill.
  const killed = performance.now();
  const restart = cluster.restart();
  let first = Number.NaN;
  const key = keys.postgres.hot[0] as string;
  while (Number.isNaN(first)) {
    const res = await fetch(`${pgServer.url}${PATH}`, { headers: { authorization: `Bearer ${key}` } });
    await res.arrayBuffer();
    if (res.status === 200 && performance.now() - killed > 50) first = performance.now() - killed;
    else await Bun.sleep(10);
    if (res.status === 200) oks.postgres++;
  }
  await restart;

  await Bun.sleep(1_500);
  const ledger = new Database(join(sqliteDir, "accounts.db"));
  const sqliteRows = (
    ledger.query("SELECT count(*) AS n FROM ledger WHERE reason = 'usage'").get() as { n: number }
  ).n;
  ledger.close();
  const [pgRows] = (await admin`
    SELECT (SELECT count(*)::int FROM ledger WHERE reason = 'usage') AS n,
           (SELECT sum(reserved)::int FROM users) AS held`) as {
    n: number;
    held: number;
  }[];

  // Recovery: a replica SIGKILLed under load and started again (the same replica id); time from
  // the kill to no credits held (its restart releases what it held).
  const replicaEnv = stockdEnv({ ...env, STOCKD_ACCOUNTS_URL: url, STOCKD_REPLICA_ID: "bench-2" });
  const victim = await ServerProcess.start({ dataDir: pgDir, env: replicaEnv });
  const load = drive(victim.url, keys.postgres.hot, 60).catch(() => undefined);
  await Bun.sleep(1_000);
  victim.proc.kill("SIGKILL");
  const replicaKilled = performance.now();
  await victim.exited;
  await load;
  const heldOf = async () =>
    ((await admin`SELECT coalesce(sum(reserved), 0)::int AS held FROM users`) as { held: number }[])[0]
      ?.held ?? 0;
  const heldAtKill = await heldOf();
  servers.push(await ServerProcess.start({ dataDir: pgDir, env: replicaEnv }));
  while ((await heldOf()) !== 0) await Bun.sleep(10);
  const released = performance.now() - replicaKilled;
  await admin.close();

  const row = (scenario: string) => {
    const s = median(rates[`${scenario}:sqlite`] ?? []);
    const p = median(rates[`${scenario}:postgres`] ?? []);
    return `| ${scenario === "hot" ? "1 user" : "50 users"} | ${Math.round(s).toLocaleString("en-US")} | ${Math.round(p).toLocaleString("en-US")} | ${(p / s).toFixed(2)}× |`;
  };
  console.log(
    `Billed calls per second, ${CONNECTIONS} connections, ${REPS} alternating repetitions of ${SECONDS} s (medians), GET ${PATH} (1 credit):\n`,
  );
  console.log("| users | SQLite 2xx/s | PostgreSQL 2xx/s | PostgreSQL / SQLite |");
  console.log("| --- | --- | --- | --- |");
  console.log(row("hot"));
  console.log(row("spread"));
  console.log(`\nPostgreSQL SIGKILL → first 2xx: ${Math.round(first)} ms`);
  console.log(
    `Replica SIGKILL under load → restarted, nothing held: ${Math.round(released)} ms (held at the kill: ${heldAtKill} credits)`,
  );
  console.log(
    `Books: SQLite ledger rows ${sqliteRows} = 2xx ${oks.sqlite} ${sqliteRows === oks.sqlite ? "✅" : "❌"}; PostgreSQL ledger rows ${pgRows?.n} = 2xx ${oks.postgres} ${pgRows?.n === oks.postgres ? "✅" : "❌"}, held ${pgRows?.held ?? 0}`,
  );
} finally {
  for (const server of servers) await server.stop("SIGTERM");
  await cluster.stop();
}
