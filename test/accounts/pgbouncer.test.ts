/**
 * A replica reaching the shared accounts database through PgBouncer in transaction mode
 * (docs/scale-out.md, "Sizing"): with `accounts_pooler = "transaction"` calls are billed
 * exactly, a disabled key stops within the cache's reload period and an MCP client signs in
 * and refreshes (the token exchange's transaction); without it, the named
 * prepared statements PgBouncer cannot keep make calls fail (503, not charged). Skipped with
 * a notice without PostgreSQL's server binaries or Debian's `pgbouncer`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { PRICING } from "../../src/http/pricing.ts";
import { cliJson } from "../helpers/cli.ts";
import {
  type PgBouncer,
  type PostgresCluster,
  pgbouncerBinary,
  postgresBinaries,
  startPgBouncer,
  startPostgres,
} from "../helpers/postgres.ts";
import { demoDataDir } from "../helpers/server.ts";
import { ServerProcess, stockdEnv } from "../helpers/spawn.ts";
import { fullFlow, mcpToolsList, type Tokens, tokenRequest } from "../oauth/bot.ts";

const present = postgresBinaries() !== null && pgbouncerBinary() !== null;
if (!present) console.warn("PostgreSQL or PgBouncer not installed: the PgBouncer test is skipped");

const PATH = "/stocks/DWGT/profile";
const CREDITS = 120;

describe.skipIf(!present)("accounts through PgBouncer in transaction mode", () => {
  let cluster: PostgresCluster;
  let bouncer: PgBouncer;
  let direct: SQL;
  let dataDir: string;
  const servers: ServerProcess[] = [];
  const pooled = (pooler: "none" | "transaction") =>
    stockdEnv({ STOCKD_ACCOUNTS_URL: bouncer.url, STOCKD_ACCOUNTS_POOLER: pooler });

  beforeAll(async () => {
    cluster = await startPostgres();
    const url = await cluster.database("stockd");
    // Migrations take a session's advisory lock: they run on a direct connection.
    await cliJson(["migrate", "--accounts", url], { env: stockdEnv({}) });
    direct = new SQL(url, { max: 2 });
    bouncer = await startPgBouncer(cluster, "stockd");
    dataDir = await demoDataDir();
  }, 120_000);

  afterAll(async () => {
    for (const server of servers) server.proc.kill("SIGKILL");
    await Promise.all(servers.map((s) => s.exited));
    await direct?.close();
    await bouncer?.stop();
    await cluster?.stop();
  });

  /** A user with `CREDITS` credits and a key, made by the CLI through the pooler. */
  async function account(email: string): Promise<{ userId: string; keyId: string; key: string }> {
    const env = pooled("transaction");
    const user = await cliJson<{ id: string }>(
      ["users", "create", "--email", email, "--credits", String(CREDITS)],
      {
        env,
      },
    );
    const key = await cliJson<{ id: string; key: string }>(["keys", "create", "--user", user.id], { env });
    return { userId: user.id, keyId: key.id, key: key.key };
  }

  /** `calls` calls at once from 16 clients; the statuses and the request ids of the 200s. */
  async function load(server: ServerProcess, key: string, calls: number) {
    const statuses: number[] = [];
    const served: string[] = [];
    let next = 0;
    const client = async () => {
      while (next++ < calls) {
        const res = await fetch(`${server.url}${PATH}`, { headers: { authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        statuses.push(res.status);
        if (res.status === 200) served.push(res.headers.get("x-request-id") as string);
      }
    };
    await Promise.all(Array.from({ length: 16 }, client));
    return { statuses, served };
  }

  test("with the switch: every credit's call answers 200, billed once; the rest 402; nothing held after", async () => {
    const { userId, key } = await account("pooled@example.test");
    const server = await ServerProcess.start({ dataDir, env: pooled("transaction") });
    servers.push(server);
    const { statuses, served } = await load(server, key, CREDITS / PRICING.profile + 60);
    expect(statuses.filter((s) => s === 200).length).toBe(CREDITS / PRICING.profile);
    expect(statuses.filter((s) => s !== 200 && s !== 402)).toEqual([]);
    const ledger = (await direct`
      SELECT request_id FROM ledger WHERE user_id = ${userId} AND reason = 'usage' ORDER BY request_id`) as {
      request_id: string;
    }[];
    expect(ledger.map((r) => r.request_id)).toEqual([...served].sort());
    const [user] = (await direct`
      SELECT balance::int AS balance, reserved::int AS reserved FROM users WHERE id = ${userId}`) as {
      balance: number;
      reserved: number;
    }[];
    expect(user).toEqual({ balance: 0, reserved: 0 });
  }, 60_000);

  test("with the switch, a new key works and a disabled one stops within the cache's reload period (no LISTEN)", async () => {
    const { keyId, key } = await account("disabled@example.test");
    const server = servers[0] as ServerProcess;
    /** The status the replica answers the key with once it is `wanted`, or after 8 s. */
    const within = async (wanted: number) => {
      let status = 0;
      for (const until = Date.now() + 8_000; status !== wanted && Date.now() < until; await Bun.sleep(100))
        status = (await fetch(`${server.url}${PATH}`, { headers: { authorization: `Bearer ${key}` } }))
          .status;
      return status;
    };
    expect(await within(200)).toBe(200);
    await cliJson(["keys", "disable", keyId, "--json"], { env: pooled("transaction") });
    expect(await within(401)).toBe(401);
  }, 30_000);

  test("with the switch, an MCP client signs in and refreshes: the token exchange is one transaction through the pooler", async () => {
    const { key } = await account("oauth@example.test");
    const server = servers[0] as ServerProcess;
    // The replica knows the new key within its cache's reload period.
    for (const until = Date.now() + 8_000; Date.now() < until; await Bun.sleep(100))
      if (
        (await fetch(`${server.url}${PATH}`, { headers: { authorization: `Bearer ${key}` } })).status === 200
      )
        break;
    const { clientId, tokens } = await fullFlow(server.url, key);
    const renewed = await tokenRequest(server.url, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(renewed.status).toBe(200);
    const next = (await renewed.json()) as Tokens;
    expect((await mcpToolsList(server.url, next.access_token)).status).toBe(200);
    const [used] = await direct`SELECT count(*)::int AS n FROM oauth_tokens WHERE used_at IS NOT NULL`;
    expect(used?.n).toBe(1);
  }, 30_000);

  test("without the switch, calls through the pooler fail (503, not charged) instead of being billed wrong", async () => {
    const { userId, key } = await account("unswitched@example.test");
    const server = await ServerProcess.start({ dataDir, env: pooled("none") }).catch(() => null);
    // A replica may already fail at its start (its first statements are prepared ones).
    if (server === null) return;
    servers.push(server);
    const { statuses, served } = await load(server, key, 80);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    const ledger = (await direct`
      SELECT request_id FROM ledger WHERE user_id = ${userId} AND reason = 'usage'`) as {
      request_id: string;
    }[];
    expect(ledger.map((r) => r.request_id).sort()).toEqual([...served].sort());
  }, 60_000);
});
