/**
 * /mcp and OAuth on the PostgreSQL accounts store (docs/scale-out.md, docs/oauth.md): two
 * replicas in this process, each with its own pools, caches and notifications, on one
 * database, with one public URL (as behind a load balancer). A client signs in on replica A
 * and uses and refreshes its tokens on replica B; a consent page shown by A is answered on B; a code is redeemed once across replicas; a
 * refresh token used twice revokes its family everywhere; a key disabled on A ends its grant
 * on B; `stockd oauth revoke` reaches both; a client signed in on a single SQLite server keeps
 * working after `accounts export`. Skipped with a notice without PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { SQL } from "bun";
import type { PgAccounts } from "../../src/accounts/pg/accounts.ts";
import { migratePostgres } from "../../src/accounts/pg/migrate.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { type RunningServer, startServer } from "../../src/server.ts";
import { cliJson } from "../helpers/cli.ts";
import { freePort, type PostgresCluster, postgresBinaries, startPostgres } from "../helpers/postgres.ts";
import { demoDataDir, limits, startTestServer } from "../helpers/server.ts";
import { stockdEnv } from "../helpers/spawn.ts";
import {
  authorizationUrl,
  codeOf,
  consentBot,
  fullFlow,
  hiddenFields,
  mcpToolsList,
  pkce,
  postConsent,
  registerClient,
  type Tokens,
  tokenRequest,
} from "./bot.ts";
import { BotProvider } from "./sdk-provider.ts";

const binaries = postgresBinaries();
if (!binaries) console.warn("PostgreSQL server binaries not found: OAuth on PostgreSQL is not tested");

/** How long a change may take to reach the other replica (a notification; at worst the cache's 5 s). */
const REACH_MS = 6_000;

describe.skipIf(!binaries)("OAuth and /mcp on two replicas over one PostgreSQL", () => {
  let cluster: PostgresCluster;
  let url: string;
  let admin: SQL;
  let a: RunningServer;
  let b: RunningServer;
  let publicUrl: string;
  let users = 0;

  beforeAll(async () => {
    cluster = await startPostgres();
    url = await cluster.database("oauth");
    admin = new SQL(url, { max: 2 });
    await migratePostgres(admin);
    const dataDir = await demoDataDir();
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    a = await replica({ id: "a", port, dataDir, accountsUrl: url });
    b = await replica({ id: "b", port: 0, dataDir, accountsUrl: url });
  }, 120_000);

  /** A replica in this process, on the shared public URL. */
  function replica(o: { id: string; port: number; dataDir: string; accountsUrl: string }) {
    return startServer(
      {
        ...loadConfig({ dataDir: o.dataDir, port: String(o.port), host: "127.0.0.1" }, {}, o.dataDir),
        accountsUrl: o.accountsUrl,
        replicaId: o.id,
        publicUrl,
        limits: limits(),
      },
      createLogger("silent"),
    );
  }

  afterAll(async () => {
    await a?.stop(1_000);
    await b?.stop(1_000);
    await admin?.close();
    await cluster?.stop();
  });

  /** A user and a key made on replica A (known there at once), returned once B knows it too. */
  async function newKey(credits = 100) {
    const accounts = a.accounts as PgAccounts;
    const user = await accounts.createUser(`pg-oauth${++users}@example.test`, credits);
    if (!user.ok) throw new Error(user.message);
    const { key, info } = await accounts.createKey(user.value.id, "laptop", null);
    const onB = b.accounts as PgAccounts;
    for (let waited = 0; !onB.authenticate(key, new Date()) && waited < REACH_MS; waited += 10)
      await Bun.sleep(10);
    return { key, keyId: info.id, userId: user.value.id };
  }

  /** Polls /mcp on `base` until it answers `status`; returns the milliseconds it took (Infinity: never). */
  async function untilStatus(base: string, token: string, status: number): Promise<number> {
    const started = Date.now();
    while (Date.now() - started < REACH_MS) {
      if ((await mcpToolsList(base, token)).status === status) return Date.now() - started;
      await Bun.sleep(20);
    }
    return Number.POSITIVE_INFINITY;
  }

  const refresh = (base: string, clientId: string, token: string) =>
    tokenRequest(base, { grant_type: "refresh_token", refresh_token: token, client_id: clientId });

  test("the SDK client signs in on A; its tokens work on B, charged to the key's user; B refreshes them", async () => {
    const { key, userId } = await newKey(100);
    const provider = new BotProvider(key);
    const first = new Client({ name: "pg-oauth", version: "1" });
    const onA = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), { authProvider: provider });
    const refused = await first.connect(onA).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UnauthorizedError);
    const params = provider.callback?.searchParams;
    if (!params) throw new Error("the consent bot never reached the callback");
    expect(params.get("iss")).toBe(publicUrl);
    await onA.finishAuth(params);
    const client = new Client({ name: "pg-oauth", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${b.url}/mcp`), { authProvider: provider }),
    );
    const result = await client.callTool({ name: "get_company", arguments: { symbol: "DWGT" } });
    expect(result.isError).not.toBe(true);
    const charged = (result.structuredContent as { meta: { credits_charged: number } }).meta.credits_charged;
    expect(charged).toBeGreaterThan(0);
    expect(await a.accounts.getBalance(userId)).toBe(100 - charged);
    await client.close();

    const tokens = provider.tokens();
    const clientId = provider.clientInformation({ issuer: publicUrl })?.client_id as string;
    const renewed = await refresh(b.url, clientId, tokens?.refresh_token as string);
    expect(renewed.status).toBe(200);
    const next = (await renewed.json()) as Tokens;
    expect((await mcpToolsList(a.url, next.access_token)).status).toBe(200);
    expect((await mcpToolsList(b.url, next.access_token)).status).toBe(200);
  });

  test("a consent page shown by A is answered on B (a refused key there, then the right one); decided once", async () => {
    const { key } = await newKey();
    const clientId = await registerClient(b.url);
    const redirectUri = "http://127.0.0.1:45678/callback";
    const { verifier, challenge } = pkce();
    const page = await fetch(authorizationUrl(a.url, { clientId, redirectUri, challenge }));
    expect(page.status).toBe(200);
    const fields = hiddenFields(await page.text());
    const wrong = await postConsent(b.url, { ...fields, api_key: "sk_wrong", decision: "allow" });
    expect(wrong.status).toBe(401);
    const approved = await postConsent(b.url, { ...fields, api_key: key, decision: "allow" });
    expect(approved.status).toBe(303);
    const again = await postConsent(a.url, { ...fields, api_key: key, decision: "allow" });
    expect(again.status).toBe(400);
    const exchanged = await tokenRequest(a.url, {
      grant_type: "authorization_code",
      code: codeOf(approved, publicUrl),
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: clientId,
    });
    expect(exchanged.status).toBe(200);
  });

  test("consent pages opened at once on both replicas from one address: exactly 50 open, the rest 429", async () => {
    const clientId = await registerClient(a.url);
    const { challenge } = pkce();
    const open = (base: string) =>
      fetch(
        authorizationUrl(base, {
          clientId,
          redirectUri: "http://127.0.0.1:45678/callback",
          challenge,
          resource: `${publicUrl}/mcp`,
        }),
      );
    await admin`DELETE FROM oauth_pending`;
    try {
      const pages = await Promise.all(Array.from({ length: 80 }, (_, i) => open(i % 2 ? a.url : b.url)));
      await Promise.all(pages.map((page) => page.arrayBuffer()));
      const statuses = pages.map((page) => page.status);
      expect(statuses.filter((s) => s === 200).length).toBe(50);
      expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
      const [row] = await admin`SELECT count(*)::int AS n FROM oauth_pending`;
      expect(row?.n).toBe(50);
    } finally {
      await admin`DELETE FROM oauth_pending`;
    }
  });

  test("a code is redeemed once across replicas: of two at the same time one gets tokens; the replay revokes them", async () => {
    const { key } = await newKey();
    const clientId = await registerClient(a.url);
    const redirectUri = "http://127.0.0.1:45678/callback";
    const { verifier, challenge } = pkce();
    const consent = await consentBot(authorizationUrl(a.url, { clientId, redirectUri, challenge }), key);
    const code = codeOf(consent, publicUrl);
    const exchange = (base: string) =>
      tokenRequest(base, {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: clientId,
      });
    const answers = await Promise.all([exchange(a.url), exchange(b.url)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
    const won = answers.find((r) => r.status === 200) as Response;
    const lost = answers.find((r) => r.status === 400) as Response;
    expect(((await lost.json()) as { error: string }).error).toBe("invalid_grant");
    const tokens = (await won.json()) as Tokens;
    expect((await mcpToolsList(a.url, tokens.access_token)).status).toBe(401);
    expect((await mcpToolsList(b.url, tokens.access_token)).status).toBe(401);
    expect((await refresh(b.url, clientId, tokens.refresh_token)).status).toBe(400);
  });

  test("a refresh token used twice (on A after B) revokes the family: B refuses the newest token within seconds", async () => {
    const { key } = await newKey();
    const { clientId, tokens } = await fullFlow(a.url, key);
    const renewed = await refresh(b.url, clientId, tokens.refresh_token);
    expect(renewed.status).toBe(200);
    const next = (await renewed.json()) as Tokens;
    // B now holds the newest access token in its cache.
    expect((await mcpToolsList(b.url, next.access_token)).status).toBe(200);
    const replay = await refresh(a.url, clientId, tokens.refresh_token);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe("invalid_grant");
    expect(await untilStatus(b.url, next.access_token, 401)).toBeLessThan(3_000);
    expect((await mcpToolsList(a.url, next.access_token)).status).toBe(401);
    expect((await refresh(b.url, clientId, next.refresh_token)).status).toBe(400);
  });

  test("a refresh that times out storing its new tokens (503) leaves its refresh token unused: the retry on A works", async () => {
    const { key } = await newKey();
    const { clientId, tokens } = await fullFlow(a.url, key);
    // Inserting tokens takes longer than the replica's 2 s timeout: the guard gives up mid-transaction.
    await admin.unsafe(`
      CREATE FUNCTION slow_tokens() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(3); RETURN NEW; END $$;
      CREATE TRIGGER slow_tokens BEFORE INSERT ON oauth_tokens FOR EACH ROW EXECUTE FUNCTION slow_tokens();`);
    try {
      const timedOut = await refresh(b.url, clientId, tokens.refresh_token);
      expect(timedOut.status).toBe(503);
    } finally {
      await admin.unsafe("DROP TRIGGER slow_tokens ON oauth_tokens; DROP FUNCTION slow_tokens();");
    }
    const retried = await refresh(a.url, clientId, tokens.refresh_token);
    expect(retried.status).toBe(200);
    const next = (await retried.json()) as Tokens;
    expect((await mcpToolsList(b.url, next.access_token)).status).toBe(200);
    expect((await mcpToolsList(a.url, tokens.access_token)).status).toBe(200);
  });

  test("a key disabled on A ends its grant on B, for good", async () => {
    const { key, keyId } = await newKey();
    const { clientId, tokens } = await fullFlow(a.url, key);
    expect((await mcpToolsList(b.url, tokens.access_token)).status).toBe(200);
    await (a.accounts as PgAccounts).setKeyDisabled(keyId, true);
    // Within a notification's time, well before B's cached copy would expire (5 s).
    expect(await untilStatus(b.url, tokens.access_token, 401)).toBeLessThan(3_000);
    expect((await refresh(b.url, clientId, tokens.refresh_token)).status).toBe(400);
    // The grant is revoked in the database: enabling the key again does not revive it.
    await (a.accounts as PgAccounts).setKeyDisabled(keyId, false);
    const [grant] = await admin`SELECT revoked_at FROM oauth_grants WHERE key_id = ${keyId}`;
    expect(grant?.revoked_at).not.toBeNull();
    expect((await mcpToolsList(a.url, tokens.access_token)).status).toBe(401);
  });

  test("stockd oauth grants lists a user's grants; stockd oauth revoke ends one on both replicas", async () => {
    const { key, userId } = await newKey();
    const { tokens } = await fullFlow(a.url, key);
    expect((await mcpToolsList(a.url, tokens.access_token)).status).toBe(200);
    expect((await mcpToolsList(b.url, tokens.access_token)).status).toBe(200);
    const env = stockdEnv({ STOCKD_ACCOUNTS_URL: url });
    const listed = await cliJson<{ grants: { id: string; user_id: string; live_until: string | null }[] }>(
      ["oauth", "grants", "--user", userId],
      { env },
    );
    expect(listed.grants).toHaveLength(1);
    expect(listed.grants[0]?.live_until).not.toBeNull();
    const grantId = listed.grants[0]?.id as string;
    const revoked = await cliJson<{ revoked: boolean; was_live: boolean }>(["oauth", "revoke", grantId], {
      env,
    });
    expect(revoked.was_live).toBe(true);
    expect(await untilStatus(a.url, tokens.access_token, 401)).toBeLessThan(3_000);
    expect(await untilStatus(b.url, tokens.access_token, 401)).toBeLessThan(3_000);
    const after = await cliJson<{ grants: unknown[] }>(["oauth", "grants", "--user", userId], { env });
    expect(after.grants).toHaveLength(0);
  });

  test("accounts export moves a signed-in client: its access and refresh tokens work on a replica", async () => {
    const single = await startTestServer(await demoDataDir(), { config: { publicUrl } });
    const { key } = single.newKey(50);
    const { clientId, tokens } = await fullFlow(single.url, key, undefined, publicUrl);
    await single.stop();
    // A database of its own: the export keeps the ledger's ids, made for an empty database.
    const moved = await cluster.database("moved");
    const env = stockdEnv({ STOCKD_ACCOUNTS_URL: moved });
    await cliJson(["migrate", "--accounts", moved], { env });
    const report = await cliJson<{ oauth_added: Record<string, number>; mismatches: unknown[] }>(
      ["accounts", "export", "--to", moved],
      { dataDir: single.dataDir, env },
    );
    expect(report.mismatches).toEqual([]);
    expect(report.oauth_added).toEqual({ clients: 1, grants: 1, tokens: 2 });
    const c = await replica({ id: "c", port: 0, dataDir: single.dataDir, accountsUrl: moved });
    try {
      expect((await mcpToolsList(c.url, tokens.access_token)).status).toBe(200);
      expect((await refresh(c.url, clientId, tokens.refresh_token)).status).toBe(200);
    } finally {
      await c.stop(1_000);
    }
  });
  test("accounts export carries rotated refresh tokens and revocations: a replay on a replica revokes; a grant revoked on SQLite after a first export is revoked by the second", async () => {
    const single = await startTestServer(await demoDataDir(), { config: { publicUrl } });
    const { key } = single.newKey(50);
    const rotated = await fullFlow(single.url, key, undefined, publicUrl);
    const renewing = await refresh(single.url, rotated.clientId, rotated.tokens.refresh_token);
    const renewed = (await renewing.json()) as Tokens;
    const later = await fullFlow(single.url, key, undefined, publicUrl);
    const moved = await cluster.database("moved_twice");
    const env = stockdEnv({ STOCKD_ACCOUNTS_URL: moved });
    await cliJson(["migrate", "--accounts", moved], { env });
    const exported = () =>
      cliJson<{ oauth_added: Record<string, number>; mismatches: unknown[] }>(
        ["accounts", "export", "--to", moved],
        {
          dataDir: single.dataDir,
          env,
        },
      );
    // Two grants: three access tokens, two live refresh tokens and the rotated one.
    expect((await exported()).oauth_added).toEqual({ clients: 2, grants: 2, tokens: 6 });
    const revoked = await fetch(`${single.url}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: later.tokens.access_token, client_id: later.clientId }),
    });
    expect(revoked.status).toBe(200);
    expect((await exported()).oauth_added).toEqual({ clients: 0, grants: 0, tokens: 0 });
    await single.stop();
    const c = await replica({ id: "c2", port: 0, dataDir: single.dataDir, accountsUrl: moved });
    try {
      expect((await mcpToolsList(c.url, later.tokens.access_token)).status).toBe(401);
      expect((await refresh(c.url, later.clientId, later.tokens.refresh_token)).status).toBe(400);
      expect((await mcpToolsList(c.url, renewed.access_token)).status).toBe(200);
      const replay = await refresh(c.url, rotated.clientId, rotated.tokens.refresh_token);
      expect(((await replay.json()) as { error_description: string }).error_description).toContain(
        "used before",
      );
      expect(await untilStatus(c.url, renewed.access_token, 401)).toBeLessThan(3_000);
    } finally {
      await c.stop(1_000);
    }
  });
});
