#!/usr/bin/env bun
/**
 * What counting the per-key rate in Redis costs (docs/scale-out.md), in one run: the checks
 * per second of the replica's own token bucket and of the Redis count (GCRA, one round trip),
 * 64 at a time in-process; then billed calls per second of a `stockd serve` counting locally
 * and of one counting in Redis (a redis-server of this run's own), the same demo snapshot and
 * keys, 64 connections on `/stocks/DWGT/profile`, alternating repetitions (medians); then one
 * run with Redis killed a second in (every call still answered, none a 5xx). The limits are
 * lifted so that nothing is refused: what is measured is the counting. On a machine whose
 * cores the servers, Redis and this generator share, the ratios are the figures.
 *
 * `bun bench/rate-limits.ts [--seconds 3] [--reps 3]`
 */
import { cpSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AccountsStore } from "../src/accounts/store.ts";
import { buildDemo } from "../src/demo/index.ts";
import { type KeyRate, RateLimiter } from "../src/http/limits.ts";
import { SharedRate } from "../src/http/shared-rate.ts";
import { createLogger } from "../src/log.ts";
import { redisServerBinary, startRedis } from "../test/helpers/redis.ts";
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
const USERS = 8;

if (!redisServerBinary()) {
  console.error("redis-server not found (Debian: apt-get install redis-server)");
  process.exit(2);
}

/** Checks per second of `rate`, 64 keys at a time, for `seconds`. */
async function checks(rate: KeyRate, seconds: number): Promise<number> {
  const keys = Array.from({ length: CONNECTIONS }, (_, i) => `bench-${i}`);
  const started = performance.now();
  let n = 0;
  while (performance.now() - started < seconds * 1000) {
    await Promise.all(keys.map((key) => rate.take(key)));
    n += keys.length;
  }
  return n / ((performance.now() - started) / 1000);
}

/** `CONNECTIONS` keep-alive connections on PATH for `seconds` (bench/lib/loadgen.ts). */
const drive = (url: string, keys: string[], seconds: number) =>
  closedLoop(url, PATH, keys, seconds, CONNECTIONS);

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const redis = await startRedis();
const servers: ServerProcess[] = [];
try {
  // In-process: the bucket against the Redis count.
  const log = createLogger("error");
  const bucket = new RateLimiter(1e9, 1e9);
  const shared = new SharedRate({ url: redis.url, rate: 1e9, burst: 1e9, local: bucket, log });
  await checks(shared, 0.5);
  const inProcess: Record<string, number[]> = { local: [], redis: [] };
  for (let rep = 0; rep < REPS; rep++) {
    inProcess.local?.push(await checks(bucket, 1));
    inProcess.redis?.push(await checks(shared, 1));
  }
  shared.close();

  // Over HTTP: two servers on copies of one data dir (the same keys), one counting in Redis.
  const localDir = join(tmpdir(), `stockd-bench-rate-local-${process.pid}`);
  await buildDemo(localDir);
  const store = AccountsStore.open(join(localDir, "accounts.db"));
  const keys: string[] = [];
  for (let i = 0; i < USERS; i++) {
    const user = store.createUser(`rate-${i}@bench.invalid`, 1_000_000_000);
    if (!user.ok) throw new Error(user.message);
    keys.push(store.createKey(user.value.id, null, null).key);
  }
  store.close();
  const redisDir = `${localDir}-redis`;
  cpSync(localDir, redisDir, { recursive: true });
  const env = { STOCKD_LOG_LEVEL: "error" };
  const local = await ServerProcess.start({ dataDir: localDir, env: stockdEnv(env) });
  const counted = await ServerProcess.start({
    dataDir: redisDir,
    env: stockdEnv({ ...env, STOCKD_REDIS_URL: redis.url, STOCKD_METRICS_TOKEN: "bench-rate-metrics-token" }),
  });
  servers.push(local, counted);
  await drive(local.url, keys, 0.5);
  await drive(counted.url, keys, 0.5);
  const http: Record<string, number[]> = { local: [], redis: [] };
  for (let rep = 0; rep < REPS; rep++) {
    const order = rep % 2 === 0 ? (["local", "redis"] as const) : (["redis", "local"] as const);
    for (const name of order) {
      const run = await drive(name === "local" ? local.url : counted.url, keys, SECONDS);
      const other = [...run.statuses.keys()].filter((s) => s !== 200);
      if (other.length > 0) console.error(`${name}: statuses ${JSON.stringify([...run.statuses])}`);
      http[name]?.push(run.perSecond);
    }
  }

  // Redis killed a second into a run: every call is still answered.
  const [outage] = await Promise.all([
    drive(counted.url, keys, SECONDS),
    Bun.sleep(1_000).then(() => redis.kill()),
  ]);
  const metrics = await (await counted.get("/metrics", "bench-rate-metrics-token")).text();
  const fallbacks = /^stockd_rate_limit_fallbacks_total (\d+)$/m.exec(metrics)?.[1];

  const row = (what: string, rates: Record<string, number[]>) => {
    const l = median(rates.local ?? []);
    const r = median(rates.redis ?? []);
    return `| ${what} | ${fmt(l)} | ${fmt(r)} | ${(r / l).toFixed(2)}× |`;
  };
  console.log(`${REPS} alternating repetitions (medians), ${CONNECTIONS} at a time:\n`);
  console.log("| what | local bucket | Redis count | Redis / local |");
  console.log("| --- | --- | --- | --- |");
  console.log(row("rate checks per second, in-process", inProcess));
  console.log(row(`2xx per second, GET ${PATH} over HTTP (${SECONDS} s runs)`, http));
  console.log(
    `\nRedis killed 1 s into a ${SECONDS} s run: statuses ${JSON.stringify(Object.fromEntries(outage.statuses))}, ` +
      `${fmt(outage.perSecond)} 2xx/s, ${fallbacks} calls counted on the replica's share`,
  );
} finally {
  for (const server of servers) await server.stop("SIGTERM");
  await redis.stop();
}
