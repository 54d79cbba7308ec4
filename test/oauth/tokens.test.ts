/**
 * The authorization-code flow with PKCE over real HTTP, and the life of its tokens: single-use
 * codes, refresh rotation and family revocation, audience, expiry, and grants that die with
 * the key that approved them.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { AuthFailureThrottle } from "../../src/http/limits.ts";
import { createOAuthServer } from "../../src/oauth/server.ts";
import { SqliteOAuthStore } from "../../src/oauth/store.ts";
import {
  authorizationUrl,
  codeOf,
  consentBot,
  fullFlow,
  pkce,
  registerClient,
  type Tokens,
  tokenRequest,
} from "./bot.ts";
import { startAuthServer } from "./harness.ts";

const auth = startAuthServer();
afterAll(() => auth.stop());

/** A consent that ends in a code (not yet exchanged), with everything the exchange needs. */
async function codeFor(key: string) {
  const clientId = await registerClient(auth.base);
  const { verifier, challenge } = pkce();
  const redirectUri = "http://127.0.0.1:50001/callback";
  const redirect = await consentBot(authorizationUrl(auth.base, { clientId, redirectUri, challenge }), key);
  expect(redirect.status).toBe(303);
  const fields = {
    grant_type: "authorization_code",
    code: codeOf(redirect, auth.base),
    code_verifier: verifier,
    redirect_uri: redirectUri,
    client_id: clientId,
  };
  return { clientId, fields };
}

async function refresh(clientId: string, refreshToken: string): Promise<Response> {
  return tokenRequest(auth.base, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: clientId,
  });
}

describe("the authorization-code flow", () => {
  test("a consent gives a code on the redirect with state and iss; the code gives tokens for /mcp charged to the approving key", async () => {
    const { key, keyId, userId } = auth.newKey();
    const { tokens } = await fullFlow(auth.base, key);
    expect(tokens.token_type).toBe("Bearer");
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe("stockd:read");
    expect(tokens.access_token).toStartWith("stk_at_");
    expect(tokens.refresh_token).toStartWith("stk_rt_");
    const access = await auth.oauth.verifyAccessToken(tokens.access_token, auth.now());
    expect(access?.key.id).toBe(keyId);
    expect(access?.key.user_id).toBe(userId);
    expect(access?.resource).toBe(`${auth.base}/mcp`);
    // Only hashes are stored.
    const stored = auth.accounts.db.query("SELECT hash FROM oauth_tokens").all() as { hash: string }[];
    expect(stored.length).toBeGreaterThan(0);
    for (const { hash } of stored) {
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(hash).not.toBe(tokens.access_token);
    }
  });

  test("the token answer is not cached and is readable cross-origin", async () => {
    const { fields } = await codeFor(auth.newKey().key);
    const res = await tokenRequest(auth.base, fields);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("a code works once; its second use is refused and revokes the tokens the first gave", async () => {
    const { fields } = await codeFor(auth.newKey().key);
    const first = await tokenRequest(auth.base, fields);
    expect(first.status).toBe(200);
    const tokens = (await first.json()) as Tokens;
    expect(await auth.oauth.verifyAccessToken(tokens.access_token, auth.now())).not.toBeNull();
    const again = await tokenRequest(auth.base, fields);
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: string }).error).toBe("invalid_grant");
    expect(await auth.oauth.verifyAccessToken(tokens.access_token, auth.now())).toBeNull();
  });

  test("a wrong PKCE verifier, another redirect URI or another client get invalid_grant", async () => {
    const key = auth.newKey().key;
    const wrongVerifier = await codeFor(key);
    const res1 = await tokenRequest(auth.base, { ...wrongVerifier.fields, code_verifier: pkce().verifier });
    expect([res1.status, ((await res1.json()) as { error: string }).error]).toEqual([400, "invalid_grant"]);
    const wrongRedirect = await codeFor(key);
    const res2 = await tokenRequest(auth.base, {
      ...wrongRedirect.fields,
      redirect_uri: "http://127.0.0.1:50002/callback",
    });
    expect([res2.status, ((await res2.json()) as { error: string }).error]).toEqual([400, "invalid_grant"]);
    const otherClient = await codeFor(key);
    const res3 = await tokenRequest(auth.base, {
      ...otherClient.fields,
      client_id: await registerClient(auth.base),
    });
    expect([res3.status, ((await res3.json()) as { error: string }).error]).toEqual([400, "invalid_grant"]);
  });

  test("a code is short-lived: after 60 seconds it is refused", async () => {
    const { fields } = await codeFor(auth.newKey().key);
    auth.advance(61_000);
    const res = await tokenRequest(auth.base, fields);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error_description: string }).error_description).toMatch(/expired/);
  });

  test("a token request names this server's resource or none; another gets invalid_target", async () => {
    const { fields } = await codeFor(auth.newKey().key);
    const res = await tokenRequest(auth.base, { ...fields, resource: "https://other.example/mcp" });
    expect([res.status, ((await res.json()) as { error: string }).error]).toEqual([400, "invalid_target"]);
  });

  test("an unknown client gets 401 invalid_client (clients register again on it)", async () => {
    const res = await tokenRequest(auth.base, {
      grant_type: "refresh_token",
      refresh_token: "stk_rt_x",
      client_id: "stc_unknown",
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_client");
  });

  test("malformed token requests get RFC 6749 errors: missing grant type, unknown grant type, JSON body, repeated field", async () => {
    const missing = await tokenRequest(auth.base, { client_id: "x" });
    expect([missing.status, ((await missing.json()) as { error: string }).error]).toEqual([
      400,
      "invalid_request",
    ]);
    const unknown = await tokenRequest(auth.base, { grant_type: "password", client_id: "x" });
    expect(((await unknown.json()) as { error: string }).error).toBe("unsupported_grant_type");
    const json = await fetch(`${auth.base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ grant_type: "refresh_token" }),
    });
    expect([json.status, ((await json.json()) as { error: string }).error]).toEqual([400, "invalid_request"]);
    const twice = await fetch(`${auth.base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=refresh_token&grant_type=authorization_code",
    });
    expect(((await twice.json()) as { error_description: string }).error_description).toMatch(
      /more than once/,
    );
  });

  test("codes and tokens in the query string are refused", async () => {
    const { fields } = await codeFor(auth.newKey().key);
    const res = await fetch(`${auth.base}/oauth/token?${new URLSearchParams(fields)}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "",
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error_description: string }).error_description).toMatch(
      /never in the URL/,
    );
    // The code was not consumed by the refused request.
    expect((await tokenRequest(auth.base, fields)).status).toBe(200);
  });
});

describe("refresh tokens", () => {
  test("each refresh rotates: a new pair, the old refresh token used up", async () => {
    const { clientId, tokens } = await fullFlow(auth.base, auth.newKey().key);
    const res = await refresh(clientId, tokens.refresh_token);
    expect(res.status).toBe(200);
    const next = (await res.json()) as Tokens;
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect(next.access_token).not.toBe(tokens.access_token);
    expect(await auth.oauth.verifyAccessToken(next.access_token, auth.now())).not.toBeNull();
    const third = await refresh(clientId, next.refresh_token);
    expect(third.status).toBe(200);
  });

  test("reusing a rotated refresh token revokes the whole family, the newest tokens included", async () => {
    const { clientId, tokens } = await fullFlow(auth.base, auth.newKey().key);
    const next = (await (await refresh(clientId, tokens.refresh_token)).json()) as Tokens;
    const replay = await refresh(clientId, tokens.refresh_token);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe("invalid_grant");
    expect(await auth.oauth.verifyAccessToken(next.access_token, auth.now())).toBeNull();
    expect(await auth.oauth.verifyAccessToken(tokens.access_token, auth.now())).toBeNull();
    expect((await refresh(clientId, next.refresh_token)).status).toBe(400);
  });

  test("a refresh whose new tokens are not stored leaves its refresh token unused: the retry works, nothing is revoked", async () => {
    const { clientId, tokens } = await fullFlow(auth.base, auth.newKey().key);
    const db = auth.accounts.db;
    db.run(
      "CREATE TRIGGER fail_tokens BEFORE INSERT ON oauth_tokens BEGIN SELECT RAISE(ABORT, 'disk hiccup'); END",
    );
    try {
      expect((await refresh(clientId, tokens.refresh_token)).status).toBe(500);
    } finally {
      db.run("DROP TRIGGER fail_tokens");
    }
    const retried = await refresh(clientId, tokens.refresh_token);
    expect(retried.status).toBe(200);
    const next = (await retried.json()) as Tokens;
    expect(await auth.oauth.verifyAccessToken(next.access_token, auth.now())).not.toBeNull();
    expect(await auth.oauth.verifyAccessToken(tokens.access_token, auth.now())).not.toBeNull();
  });

  test("a refresh may narrow the scope but not widen it", async () => {
    const { clientId, tokens } = await fullFlow(auth.base, auth.newKey().key);
    const wider = await tokenRequest(auth.base, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      scope: "stockd:read stockd:write",
    });
    expect(((await wider.json()) as { error: string }).error).toBe("invalid_scope");
  });

  test("a refresh token lasts 30 days, and each rotation starts a new 30 days", async () => {
    const { clientId, tokens } = await fullFlow(auth.base, auth.newKey().key);
    auth.advance(29 * 24 * 3600_000);
    const res = await refresh(clientId, tokens.refresh_token);
    expect(res.status).toBe(200);
    const next = (await res.json()) as Tokens;
    auth.advance(29 * 24 * 3600_000);
    expect((await refresh(clientId, next.refresh_token)).status).toBe(200);
    const { clientId: other, tokens: old } = await fullFlow(auth.base, auth.newKey().key);
    auth.advance(30 * 24 * 3600_000 + 1000);
    // Unused for 30 days, the client itself is forgotten too (see "forgetting clients").
    const late = await refresh(other, old.refresh_token);
    expect([late.status, ((await late.json()) as { error: string }).error]).toEqual([401, "invalid_client"]);
  });
});

describe("refresh token expiry", () => {
  test("a refresh token past its 30 days is refused as expired", async () => {
    const { clientId, tokens } = await fullFlow(auth.base, auth.newKey().key);
    auth.advance(30 * 24 * 3600_000 - 10 * 60_000);
    // A token request now sweeps; the client, used under 30 days ago, stays, and so does the token.
    expect((await refresh("stc_nobody", "stk_rt_x")).status).toBe(401);
    auth.advance(11 * 60_000);
    const late = await refresh(clientId, tokens.refresh_token);
    expect(await late.json()).toEqual({
      error: "invalid_grant",
      error_description: "the refresh token has expired",
    });
  });
});

describe("forgetting clients", () => {
  test("a client idle for 30 days with no valid token is forgotten with its grants; a client in use stays", async () => {
    const idle = await fullFlow(auth.base, auth.newKey().key);
    const active = await fullFlow(auth.base, auth.newKey().key);
    auth.advance(29 * 24 * 3600_000);
    const next = (await (await refresh(active.clientId, active.tokens.refresh_token)).json()) as Tokens;
    auth.advance(2 * 24 * 3600_000);
    // The next token request sweeps (at most hourly).
    expect((await refresh(active.clientId, next.refresh_token)).status).toBe(200);
    const clients = (id: string) =>
      auth.accounts.db.query("SELECT count(*) AS n FROM oauth_clients WHERE client_id = ?").get(id);
    const grants = (id: string) =>
      auth.accounts.db.query("SELECT count(*) AS n FROM oauth_grants WHERE client_id = ?").get(id);
    expect(clients(idle.clientId)).toEqual({ n: 0 });
    expect(grants(idle.clientId)).toEqual({ n: 0 });
    expect(clients(active.clientId)).toEqual({ n: 1 });
    const gone = await refresh(idle.clientId, idle.tokens.refresh_token);
    expect(gone.status).toBe(401);
  });
});

describe("access tokens at the resource", () => {
  test("an access token lives one hour", async () => {
    const { tokens } = await fullFlow(auth.base, auth.newKey().key);
    const issued = auth.now().getTime();
    expect(
      await auth.oauth.verifyAccessToken(tokens.access_token, new Date(issued + 3590_000)),
    ).not.toBeNull();
    expect(await auth.oauth.verifyAccessToken(tokens.access_token, new Date(issued + 3601_000))).toBeNull();
  });

  test("a token issued for another resource (the server's URL changed) is refused, and so is its refresh", async () => {
    const { clientId, tokens } = await fullFlow(auth.base, auth.newKey().key);
    const elsewhere = createOAuthServer({
      store: new SqliteOAuthStore(auth.accounts.db),
      keys: { authenticate: () => null, knownKey: () => null },
      publicUrl: () => "https://stocks.example.com",
      authFailures: new AuthFailureThrottle(10),
      registrations: new AuthFailureThrottle(10),
    });
    expect(await elsewhere.verifyAccessToken(tokens.access_token, auth.now())).toBeNull();
    expect(await auth.oauth.verifyAccessToken(tokens.access_token, auth.now())).not.toBeNull();
    // Its refresh token is refused there too: the client must authorize again.
    const refreshed = await elsewhere.handle(
      new Request("https://stocks.example.com/oauth/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: tokens.refresh_token,
          client_id: clientId,
        }),
      }),
      "127.0.0.1",
    );
    expect(((await refreshed.json()) as { error_description: string }).error_description).toMatch(
      /grant was made for http:\/\/127\.0\.0\.1:\d+\/mcp; authorize again/,
    );
  });

  test("refresh and code values, API keys and garbage are no access tokens", async () => {
    const { key } = auth.newKey();
    const { tokens } = await fullFlow(auth.base, key);
    for (const presented of [tokens.refresh_token, key, "stk_at_", "stk_at_nope", ""])
      expect(await auth.oauth.verifyAccessToken(presented, auth.now())).toBeNull();
  });

  test("disabling the approving key kills its grants for good: access, refresh, even after re-enabling", async () => {
    const { key, keyId } = auth.newKey();
    const { clientId, tokens } = await fullFlow(auth.base, key);
    expect(auth.accounts.setKeyDisabled(keyId, true)).toBe(true);
    expect(await auth.oauth.verifyAccessToken(tokens.access_token, auth.now())).toBeNull();
    auth.accounts.setKeyDisabled(keyId, false);
    expect(await auth.oauth.verifyAccessToken(tokens.access_token, auth.now())).toBeNull();
    const res = await refresh(clientId, tokens.refresh_token);
    expect(res.status).toBe(400);
  });

  test("a grant dies when its key expires, checked when the token is used (not only at issue)", async () => {
    const expiresAt = new Date(auth.now().getTime() + 30 * 60_000).toISOString();
    const { key } = auth.newKey(100, expiresAt);
    const { clientId, tokens } = await fullFlow(auth.base, key);
    expect(await auth.oauth.verifyAccessToken(tokens.access_token, auth.now())).not.toBeNull();
    auth.advance(31 * 60_000);
    expect(await auth.oauth.verifyAccessToken(tokens.access_token, auth.now())).toBeNull();
    const res = await refresh(clientId, tokens.refresh_token);
    expect(((await res.json()) as { error_description: string }).error_description).toMatch(
      /grant has been revoked|disabled or expired/,
    );
  });

  test("revocation (RFC 7009) ends the grant; another client's token is left alone; the answer is 200 either way", async () => {
    const { clientId, tokens } = await fullFlow(auth.base, auth.newKey().key);
    const revoke = (token: string, client: string) =>
      fetch(`${auth.base}/oauth/revoke`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token, client_id: client }),
      });
    const other = await registerClient(auth.base);
    expect((await revoke(tokens.access_token, other)).status).toBe(200);
    expect(await auth.oauth.verifyAccessToken(tokens.access_token, auth.now())).not.toBeNull();
    expect((await revoke("stk_rt_unknown", clientId)).status).toBe(200);
    expect((await revoke(tokens.refresh_token, clientId)).status).toBe(200);
    expect(await auth.oauth.verifyAccessToken(tokens.access_token, auth.now())).toBeNull();
  });
});
