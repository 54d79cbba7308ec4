/**
 * The official MCP SDK client's OAuth flow against stockd, end to end over loopback: discovery
 * from /mcp's 401, registration, the consent page (answered by the consent bot, with a real
 * API key), the code with `iss`, the token exchange, then tool calls charged to the key's
 * user; and the /mcp gate's answers to bad tokens.
 */
import { describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { useDemoServer } from "../helpers/server.ts";
import { fullFlow, mcpToolsList } from "./bot.ts";
import { BotProvider } from "./sdk-provider.ts";

const server = useDemoServer();

/** Connects a client to /mcp the way an interactive client does: OAuth, the consent, again with the token. */
async function connectWithOAuth(apiKey: string, mode: "auto" | "legacy" = "auto") {
  const url = new URL(`${server.url}/mcp`);
  const provider = new BotProvider(apiKey);
  const first = new Client({ name: "oauth-test", version: "1" }, { versionNegotiation: { mode } });
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  const refused = await first.connect(transport).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(UnauthorizedError);
  const params = provider.callback?.searchParams;
  if (!params) throw new Error("the consent bot never reached the callback");
  expect(params.get("state")).toBe(provider.lastState as string);
  expect(params.get("iss")).toBe(server.url);
  await transport.finishAuth(params);
  const client = new Client({ name: "oauth-test", version: "1" }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return { client, provider };
}

describe("the SDK client's OAuth flow", () => {
  for (const mode of ["auto", "legacy"] as const) {
    test(`${mode} era: discovery, registration, consent, tokens; a tool call is charged to the approving key's user`, async () => {
      const { key, userId } = server.newKey(100);
      const { client, provider } = await connectWithOAuth(key, mode);
      expect(provider.tokens()?.access_token).toStartWith("stk_at_");
      expect(provider.callback?.port).toBe("39871");
      const result = await client.callTool({ name: "get_company", arguments: { symbol: "DWGT" } });
      expect(result.isError).not.toBe(true);
      const charged = (result.structuredContent as { meta: { credits_charged: number } }).meta
        .credits_charged;
      expect(charged).toBeGreaterThan(0);
      expect(await server.accounts.getBalance(userId)).toBe(100 - charged);
      await client.close();
    });
  }

  test("the grant dies with its key: a disabled key's tokens get 401 at /mcp", async () => {
    const { key, keyId } = server.newKey(100);
    const { client, provider } = await connectWithOAuth(key);
    await client.close();
    const token = provider.tokens()?.access_token as string;
    const call = () => mcpToolsList(server.url, token);
    expect((await call()).status).not.toBe(401);
    await server.accounts.setKeyDisabled(keyId, true);
    const refused = await call();
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain(
      `resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`,
    );
  });
});

describe("/mcp and OAuth tokens", () => {
  const post = (credential: string, query = "") =>
    fetch(`${server.url}/mcp${query}`, {
      method: "POST",
      headers: {
        ...(credential ? { authorization: `Bearer ${credential}` } : {}),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });

  test("an access token, a refresh token, a revoked token, garbage: only the live access token passes", async () => {
    const { key } = server.newKey(10);
    const { clientId, tokens } = await fullFlow(server.url, key);
    expect((await post(tokens.access_token)).status).toBe(200);
    expect((await post(tokens.refresh_token)).status).toBe(401);
    expect((await post("stk_at_forged")).status).toBe(401);
    await fetch(`${server.url}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens.access_token, client_id: clientId }),
    });
    expect((await post(tokens.access_token)).status).toBe(401);
  });

  test("a token in the query string is refused, never used", async () => {
    const { key } = server.newKey(10);
    const { tokens } = await fullFlow(server.url, key);
    const res = await post("", `?access_token=${tokens.access_token}`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await res.text()).not.toContain('"result"');
  });
});
