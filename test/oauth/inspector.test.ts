/**
 * The official MCP Inspector CLI (a real third-party client) against stockd: its whole OAuth
 * flow (discovery, registration, PKCE, resource, iss) with the consent bot as its browser,
 * then a tool call charged to the approving key's user.
 */
import { expect, test } from "bun:test";
import { createServer } from "node:net";
import { join } from "node:path";
import { tempDir } from "../helpers/env.ts";
import { openAccounts, useDemoServer } from "../helpers/server.ts";
import { ROOT } from "../helpers/spawn.ts";

const server = useDemoServer();

/** A loopback port free now, for the Inspector's callback listener. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

test("the Inspector CLI signs in through the consent page and calls a tool, charged to the key's user", async () => {
  const { key, userId } = server.newKey(100);
  const home = tempDir("inspector-");
  const callback = `http://127.0.0.1:${await freePort()}/oauth/callback`;
  const child = Bun.spawn(
    [
      "node",
      join(ROOT, "node_modules/.bin/mcp-inspector"),
      "--cli",
      `${server.url}/mcp`,
      "--transport",
      "http",
      "--callback-url",
      callback,
      "--method",
      "tools/call",
      "--tool-name",
      "get_company",
      "--tool-arg",
      "symbol=DWGT",
      "--format",
      "json",
    ],
    {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        NO_COLOR: "1",
        TZ: "UTC",
        // Its browser is the consent bot; secrets stay in memory (no keychain here).
        BROWSER: join(ROOT, "test/oauth/browser.sh"),
        STOCKD_BUN: process.execPath,
        STOCKD_CONSENT_KEY: key,
        MCP_AUTO_OPEN_ENABLED: "true",
        MCP_INSPECTOR_SECRET_STORE: "memory",
        MCP_INSPECTOR_OAUTH_STATE_PATH: join(home, "oauth.json"),
      },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const killer = setTimeout(() => child.kill(), 90_000);
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(killer);
  expect(code, err).toBe(0);
  expect(err).toContain("Authorization complete.");
  const result = JSON.parse(out).result as {
    isError?: boolean;
    structuredContent: { meta: { credits_charged: number } };
  };
  expect(result.isError).not.toBe(true);
  expect(result.structuredContent.meta.credits_charged).toBe(1);
  expect(await server.accounts.getBalance(userId)).toBe(99);
  // The Inspector registered itself; its grant is the approving key's.
  const stored = openAccounts(server.dataDir);
  try {
    const grant = stored.db
      .query(
        "SELECT user_id FROM oauth_grants g JOIN oauth_clients c USING (client_id) WHERE c.redirect_uris LIKE ?",
      )
      .get(`%${callback}%`);
    expect(grant).toEqual({ user_id: userId });
  } finally {
    stored.close();
  }
}, 120_000);
