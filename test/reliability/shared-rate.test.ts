/**
 * The per-key rate across replicas (docs/scale-out.md): two `stockd serve` replicas counting in
 * one Redis grant a key the cluster's limit however its calls are spread; with Redis killed
 * they keep answering on their own shares (no 5xx), and count in Redis again once it is back;
 * the RateLimit headers travel on 2xx and 429 alike, and a 429 costs nothing. The replicas
 * here share one data dir's accounts (SQLite): what is under test is the rate, not billing
 * across replicas (test/accounts/replicas.test.ts has that). Skipped with a notice without
 * redis-server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RateLimiter, type RateVerdict } from "../../src/http/limits.ts";
import { SharedRate } from "../../src/http/shared-rate.ts";
import { createLogger } from "../../src/log.ts";
import { usageRows } from "../helpers/ledger.ts";
import { type RedisServer, redisServerBinary, startRedis } from "../helpers/redis.ts";
import { expectProblem } from "../helpers/responses.ts";
import { demoDataDir, openAccounts } from "../helpers/server.ts";
import { ServerProcess, stockdEnv } from "../helpers/spawn.ts";

const binary = redisServerBinary();
if (!binary) console.warn("redis-server not found: the shared rate-limit tests are skipped");

const PATH = "/stocks/DWGT/profile";
/** The cluster's limit per key: 1 call a second, a burst of 20; each of 2 replicas' share is 10. */
const RATE = 1;
const BURST = 20;
const SHARE = BURST / 2;
const METRICS_TOKEN = "shared-rate-metrics-token";
const POLICY = `"burst";q=${BURST};w=${BURST / RATE}`;
const SHARE_POLICY = `"burst";q=${SHARE};w=${SHARE / (RATE / 2)}`;

interface Tally {
  ok: number;
  refused: number;
  statuses: number[];
  seconds: number;
}

describe.skipIf(!binary)("the per-key rate across two replicas sharing one Redis", () => {
  let redis: RedisServer;
  let dataDir: string;
  let userId: string;
  const keys: string[] = [];
  const replicas: ServerProcess[] = [];
  const logDir = mkdtempSync(join(tmpdir(), "stockd-shared-rate-"));
  const logs = [join(logDir, "a.log"), join(logDir, "b.log")];

  /** `n` calls of `key` to one replica, all at once; every answer's status, and how long they took. */
  const burst = async (replica: ServerProcess, key: string, n: number): Promise<Tally> => {
    const started = performance.now();
    const responses = await Promise.all(Array.from({ length: n }, () => replica.get(PATH, key)));
    const seconds = (performance.now() - started) / 1000;
    for (const res of responses) {
      if (res.status === 200) {
        expect(res.headers.get("ratelimit")).toMatch(/^"burst";r=\d+;t=\d+$/);
      } else if (res.status === 429) {
        const retryAfter = res.headers.get("retry-after");
        expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
        // A refusal's effective window is its Retry-After (never earlier than `t`).
        expect(res.headers.get("ratelimit")).toBe(`"burst";r=0;t=${retryAfter}`);
        await expectProblem(res, 429, { code: "rate_limited" });
      } else await res.arrayBuffer();
    }
    const statuses = responses.map((r) => r.status);
    return {
      ok: statuses.filter((s) => s === 200).length,
      refused: statuses.filter((s) => s === 429).length,
      statuses,
      seconds,
    };
  };

  const metric = async (replica: ServerProcess, name: string): Promise<number> => {
    const text = await (await replica.get("/metrics", METRICS_TOKEN)).text();
    return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
  };

  beforeAll(async () => {
    redis = await startRedis();
    dataDir = await demoDataDir();
    const store = openAccounts(dataDir);
    const user = store.createUser("rates@example.test", 100_000);
    if (!user.ok) throw new Error(user.message);
    userId = user.value.id;
    // One key per phase: each starts with its burst whole.
    for (const name of ["shared", "outage", "back", "probe"])
      keys.push(store.createKey(userId, name, null).key);
    store.close();
    const env = stockdEnv({
      STOCKD_REDIS_URL: redis.url,
      STOCKD_RATE_LIMIT_PER_SECOND: String(RATE),
      STOCKD_RATE_LIMIT_BURST: String(BURST),
      STOCKD_RATE_LIMIT_REPLICAS: "2",
      STOCKD_METRICS_TOKEN: METRICS_TOKEN,
    });
    for (const logFile of logs) replicas.push(await ServerProcess.start({ dataDir, env, logFile }));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop("SIGKILL")));
    await redis?.stop();
    rmSync(logDir, { recursive: true, force: true });
  });

  test("a key gets at most the cluster's limit across both, however its calls are spread; its headers name the cluster's policy; a 429 costs nothing", async () => {
    const [a, b] = replicas as [ServerProcess, ServerProcess];
    const key = keys[0] as string;
    const before = usageRows({ accounts: openAccounts(dataDir) }, userId).rows;
    // All of it to one replica first: more than its share of 10, so the count is shared.
    const first = await burst(a, key, 30);
    const second = await burst(b, key, 30);
    const seconds = first.seconds + second.seconds;
    expect([...first.statuses, ...second.statuses].every((s) => s === 200 || s === 429)).toBe(true);
    // GCRA admits at most the burst plus the rate times the time elapsed (Redis's clock, within
    // the client's measured span); at 1 call a second that is ceil(seconds) calls on top.
    expect(first.ok + second.ok).toBeGreaterThanOrEqual(BURST);
    expect(first.ok + second.ok).toBeLessThanOrEqual(BURST + Math.ceil(seconds * RATE));
    expect(first.ok).toBeGreaterThan(SHARE);
    // Replica b found the burst spent by a: at most what refilled meanwhile.
    expect(second.ok).toBeLessThanOrEqual(Math.ceil(seconds * RATE));
    const answer = await a.get(PATH, key);
    expect(answer.headers.get("ratelimit-policy")).toBe(POLICY);
    await answer.arrayBuffer();
    const ok = first.ok + second.ok + (answer.status === 200 ? 1 : 0);
    // Only the 2xx are in the ledger: the 429s cost nothing.
    expect(usageRows({ accounts: openAccounts(dataDir) }, userId).rows - before).toBe(ok);
    for (const replica of replicas) expect(await metric(replica, "stockd_rate_limit_shared")).toBe(1);
  }, 60_000);

  test("Redis killed: both keep answering within their own shares (no 5xx, never hanging), log it once, and count it on /metrics", async () => {
    const [a, b] = replicas as [ServerProcess, ServerProcess];
    const key = keys[1] as string;
    const before = usageRows({ accounts: openAccounts(dataDir) }, userId).rows;
    await redis.kill();
    const first = await burst(a, key, 20);
    const second = await burst(b, key, 20);
    for (const tally of [first, second]) {
      expect(tally.statuses.every((s) => s === 200 || s === 429)).toBe(true);
      // Each replica's share: a burst of 10, refilled at half a call a second.
      expect(tally.ok).toBeGreaterThanOrEqual(SHARE);
      expect(tally.ok).toBeLessThanOrEqual(SHARE + Math.ceil((tally.seconds * RATE) / 2));
      // Answered at once: a refused connection fails fast, a timeout is 250 ms.
      expect(tally.seconds).toBeLessThan(10);
    }
    const answer = await b.get(PATH, key);
    expect(answer.headers.get("ratelimit-policy")).toBe(SHARE_POLICY);
    await answer.arrayBuffer();
    const ok = first.ok + second.ok + (answer.status === 200 ? 1 : 0);
    expect(usageRows({ accounts: openAccounts(dataDir) }, userId).rows - before).toBe(ok);
    for (const replica of replicas) {
      expect(await metric(replica, "stockd_rate_limit_shared")).toBe(0);
      expect(await metric(replica, "stockd_rate_limit_fallbacks_total")).toBeGreaterThanOrEqual(20);
    }
  }, 60_000);

  test("Redis back (empty, after a restart): the replicas count in it again", async () => {
    const [a, b] = replicas as [ServerProcess, ServerProcess];
    await redis.start();
    // A replica asks Redis again 2 s after its last failure: calls of another key bring that on.
    const probe = keys[3] as string;
    let shared = false;
    for (const until = Date.now() + 20_000; !shared && Date.now() < until; ) {
      for (const replica of replicas) await (await replica.get(PATH, probe)).arrayBuffer();
      const up = await Promise.all(replicas.map((r) => metric(r, "stockd_rate_limit_shared")));
      shared = up.every((v) => v === 1);
      if (!shared) await Bun.sleep(500);
    }
    expect(shared).toBe(true);
    const key = keys[2] as string;
    const first = await burst(b, key, 30);
    const second = await burst(a, key, 30);
    const seconds = first.seconds + second.seconds;
    expect(first.ok).toBeGreaterThan(SHARE);
    expect(first.ok + second.ok).toBeLessThanOrEqual(BURST + Math.ceil(seconds * RATE));
    expect(second.ok).toBeLessThanOrEqual(Math.ceil(seconds * RATE));
    // One warning per outage, however many calls it turned away from Redis.
    for (const file of logs) expect(readFileSync(file, "utf8").match(/Redis unavailable/g)?.length).toBe(1);
  }, 60_000);
});

describe.skipIf(!binary)("SharedRate against a Redis that stops answering", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  test("a frozen Redis: the call is answered by the local share within the timeout, later calls at once, and Redis is asked again after the retry time", async () => {
    const log = createLogger("silent");
    // Rates so slow that nothing refills while the test runs.
    const local = new RateLimiter(0.001, 2);
    const rate = new SharedRate({
      url: redis.url,
      rate: 0.001,
      burst: 4,
      local,
      log,
      timeoutMs: 200,
      retryMs: 500,
    });
    try {
      const shared = (await rate.take("k")) as RateVerdict;
      expect(shared).toMatchObject({ ok: true, remaining: 3, policy: '"burst";q=4;w=4000' });
      expect(rate.shared).toBe(true);
      redis.freeze();
      const started = performance.now();
      const fallback = await rate.take("k");
      expect(performance.now() - started).toBeLessThan(1_000);
      // The local share's policy: its own bucket, whole.
      expect(fallback).toMatchObject({ ok: true, remaining: 1, policy: '"burst";q=2;w=2000' });
      expect(rate.shared).toBe(false);
      // Within the retry time Redis is not asked: answered at once, synchronously.
      expect(rate.take("k")).toMatchObject({ ok: true, remaining: 0 });
      expect(rate.take("k")).toMatchObject({ ok: false });
      expect(rate.fallbacks).toBe(3);
      redis.thaw();
      await Bun.sleep(600);
      const again = await rate.take("k");
      expect(rate.shared).toBe(true);
      // Redis kept its count: the first call, the one it received while frozen (counted once
      // thawed, after the replica had given up on it), and this one.
      expect(again).toMatchObject({ ok: true, remaining: 1, policy: '"burst";q=4;w=4000' });
    } finally {
      rate.close();
    }
  });
});
