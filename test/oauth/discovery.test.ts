/**
 * The authorization server inside stockd, through its door: the discovery documents, client
 * registration and its limits, and the whole flow over stockd's own transport.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_CLIENT_NAME, MAX_REDIRECT_URIS } from "../../src/oauth/register.ts";
import { REGISTRATIONS_PER_MINUTE } from "../../src/oauth/server.ts";
import { openAccounts, startTestServer, type TestServer } from "../helpers/server.ts";
import { authorizationUrl, fullFlow, pkce, register } from "./bot.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

describe("discovery", () => {
  test("protected-resource metadata (RFC 9728) at the path-suffixed and the root URL names /mcp and this server", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]) {
      const res = await fetch(server.url + path);
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(await res.json()).toEqual({
        resource: `${server.url}/mcp`,
        authorization_servers: [server.url],
        scopes_supported: ["stockd:read"],
        bearer_methods_supported: ["header"],
        resource_name: "stockd",
      });
    }
  });

  test("authorization-server metadata (RFC 8414): issuer, endpoints, S256 only, iss on redirects, no client-ID documents", async () => {
    const res = await fetch(`${server.url}/.well-known/oauth-authorization-server`);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc.issuer).toBe(server.url);
    expect(doc.authorization_endpoint).toBe(`${server.url}/oauth/authorize`);
    expect(doc.token_endpoint).toBe(`${server.url}/oauth/token`);
    expect(doc.registration_endpoint).toBe(`${server.url}/oauth/register`);
    expect(doc.revocation_endpoint).toBe(`${server.url}/oauth/revoke`);
    expect(doc.code_challenge_methods_supported).toEqual(["S256"]);
    expect(doc.token_endpoint_auth_methods_supported).toEqual(["none"]);
    expect(doc.grant_types_supported).toEqual(["authorization_code", "refresh_token"]);
    expect(doc.authorization_response_iss_parameter_supported).toBe(true);
    expect(doc.client_id_metadata_document_supported).toBe(false);
  });

  test("a spoofed Host header changes nothing in the documents", async () => {
    const res = await fetch(`${server.url}/.well-known/oauth-authorization-server`, {
      headers: { host: "evil.example", "x-forwarded-host": "evil.example" },
    });
    expect(JSON.stringify(await res.json())).not.toContain("evil.example");
  });

  test("browsers' CORS preflights are answered; unknown well-known paths are 404", async () => {
    const preflight = await fetch(`${server.url}/oauth/token`, {
      method: "OPTIONS",
      headers: { origin: "http://localhost:6274", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
    expect((await fetch(`${server.url}/.well-known/openid-configuration`)).status).toBe(404);
  });
});

describe("registration (RFC 7591)", () => {
  test("a public client is registered (201) and persisted; its answer echoes what was stored", async () => {
    const body = {
      client_name: "Cursor",
      redirect_uris: [
        "cursor://anysphere.cursor-mcp/oauth/callback",
        "https://www.cursor.com/agents/mcp/oauth/callback",
        "http://localhost:8787/callback",
      ],
      token_endpoint_auth_method: "client_secret_post",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      application_type: "web",
      unknown_field: "ignored",
    };
    const res = await register(server.url, body);
    expect(res.status).toBe(201);
    const client = (await res.json()) as Record<string, unknown>;
    expect(client.client_id).toMatch(/^stc_[A-Za-z0-9_-]{22}$/);
    expect(client.redirect_uris).toEqual(body.redirect_uris);
    expect(client.token_endpoint_auth_method).toBe("none");
    expect(client.client_secret).toBeUndefined();
    expect(client.unknown_field).toBeUndefined();
    const stored = openAccounts(server.dataDir);
    try {
      const row = stored.db
        .query("SELECT client_name FROM oauth_clients WHERE client_id = ?")
        .get(client.client_id as string);
      expect(row).toEqual({ client_name: "Cursor" });
    } finally {
      stored.close();
    }
  });

  test("limits: redirect URI count and kind, name length, body size, grant types", async () => {
    const uris = (n: number) => Array.from({ length: n }, (_, i) => `http://127.0.0.1/cb${i}`);
    const cases: [unknown, number, string][] = [
      [{ redirect_uris: uris(MAX_REDIRECT_URIS + 1) }, 400, "invalid_redirect_uri"],
      [{ redirect_uris: [] }, 400, "invalid_redirect_uri"],
      [{ redirect_uris: ["http://example.com/cb"] }, 400, "invalid_redirect_uri"],
      [{ redirect_uris: ["https://ok.example/cb", "javascript:alert(1)"] }, 400, "invalid_redirect_uri"],
      [
        { redirect_uris: uris(1), client_name: "x".repeat(MAX_CLIENT_NAME + 1) },
        400,
        "invalid_client_metadata",
      ],
      [{ redirect_uris: uris(1), client_name: "a\u0000b" }, 400, "invalid_client_metadata"],
      [{ redirect_uris: uris(1), grant_types: ["client_credentials"] }, 400, "invalid_client_metadata"],
      [{ redirect_uris: uris(1), response_types: ["token"] }, 400, "invalid_client_metadata"],
      [[uris(1)], 400, "invalid_client_metadata"],
    ];
    for (const [body, status, error] of cases) {
      const res = await register(server.url, body);
      expect([res.status, ((await res.json()) as { error: string }).error], JSON.stringify(body)).toEqual([
        status,
        error,
      ]);
    }
    const huge = await register(server.url, {
      redirect_uris: uris(1),
      software_statement: "x".repeat(17_000),
    });
    expect(huge.status).toBe(413);
    expect(await register(server.url, { redirect_uris: uris(MAX_REDIRECT_URIS) }).then((r) => r.status)).toBe(
      201,
    );
  });

  test(`an address registers at most ${REGISTRATIONS_PER_MINUTE} clients a minute, then gets 429 with Retry-After`, async () => {
    const own = await startTestServer();
    try {
      const statuses: number[] = [];
      for (let i = 0; i <= REGISTRATIONS_PER_MINUTE; i++)
        statuses.push((await register(own.url, { redirect_uris: ["http://127.0.0.1/cb"] })).status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(REGISTRATIONS_PER_MINUTE);
      const last = await register(own.url, { redirect_uris: ["http://127.0.0.1/cb"] });
      expect(last.status).toBe(429);
      expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await own.stop();
    }
  });
});

describe("the flow through stockd", () => {
  test("register, consent with an API key, code, tokens, refresh: over stockd's own transport", async () => {
    const { key } = server.newKey(10);
    const { clientId, tokens } = await fullFlow(server.url, key);
    expect(tokens.access_token).toStartWith("stk_at_");
    const refreshed = await fetch(`${server.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        client_id: clientId,
      }),
    });
    expect(refreshed.status).toBe(200);
  });

  test("a registered client outlives a restart (clients keep their client_id)", async () => {
    const own = await startTestServer();
    const dataDir = own.dataDir;
    const res = await register(own.url, {
      client_name: "Inspector",
      redirect_uris: ["http://127.0.0.1:6276/oauth/callback"],
    });
    const { client_id } = (await res.json()) as { client_id: string };
    await own.stop();
    const again = await startTestServer(dataDir);
    try {
      const url = authorizationUrl(again.url, {
        clientId: client_id,
        redirectUri: "http://127.0.0.1:6276/oauth/callback",
        challenge: pkce().challenge,
      });
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("Inspector");
    } finally {
      await again.stop();
    }
  });

  test("GET on /oauth/token is refused with 405; HEAD on the door is refused", async () => {
    expect((await fetch(`${server.url}/oauth/token`)).status).toBe(405);
    expect((await fetch(`${server.url}/oauth/authorize`, { method: "HEAD" })).status).toBe(405);
  });
});
