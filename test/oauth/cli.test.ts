/**
 * `stockd oauth grants` and `stockd oauth revoke` (the command's code, run in this process) on
 * the SQLite accounts of a data dir while its server runs: a grant made through the consent
 * page is listed, and once revoked its tokens are refused at /mcp and /oauth/token. (On
 * PostgreSQL, in a process of its own: postgres.test.ts.)
 */
import { describe, expect, test } from "bun:test";
import { main } from "../../src/index.ts";
import { useDemoServer } from "../helpers/server.ts";
import { fullFlow, mcpToolsList, tokenRequest } from "./bot.ts";

const server = useDemoServer();

/** Runs `stockd ARGS --data-dir DIR`: its exit code and what it printed. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
  const code = await main([...args, "--data-dir", server.dataDir], io, {});
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/** The JSON a command that must succeed prints with --json. */
async function cliJson<T>(args: string[]): Promise<T> {
  const r = await cli([...args, "--json"]);
  if (r.code !== 0) throw new Error(`stockd ${args.join(" ")} exited ${r.code}: ${r.err}`);
  return JSON.parse(r.out) as T;
}

interface Listed {
  grants: { id: string; user_id: string; key_id: string; client_name: string; revoked_at: string | null }[];
}

const mcp = (token: string) => mcpToolsList(server.url, token);

describe("stockd oauth on the SQLite accounts", () => {
  test("grants lists a user's grant; revoke ends it at once; --all still lists it; a second revoke changes nothing", async () => {
    const { key, keyId, userId } = server.newKey(10);
    const other = server.newKey(10);
    const { clientId, tokens } = await fullFlow(server.url, key);
    await fullFlow(server.url, other.key);
    const listed = await cliJson<Listed>(["oauth", "grants", "--user", userId]);
    expect(listed.grants).toHaveLength(1);
    expect(listed.grants[0]).toMatchObject({ user_id: userId, key_id: keyId, client_name: "Test client" });
    const grantId = listed.grants[0]?.id as string;
    expect((await mcp(tokens.access_token)).status).toBe(200);

    const revoked = await cliJson<{ was_live: boolean }>(["oauth", "revoke", grantId]);
    expect(revoked.was_live).toBe(true);
    expect((await mcp(tokens.access_token)).status).toBe(401);
    const refreshed = await tokenRequest(server.url, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(400);

    expect((await cliJson<Listed>(["oauth", "grants", "--user", userId])).grants).toHaveLength(0);
    const all = await cliJson<Listed>(["oauth", "grants", "--user", userId, "--all"]);
    expect(all.grants[0]?.revoked_at).not.toBeNull();
    expect((await cliJson<{ was_live: boolean }>(["oauth", "revoke", grantId])).was_live).toBe(false);
    // The other user's grant is untouched.
    const others = await cliJson<Listed>(["oauth", "grants", "--user", other.userId]);
    expect(others.grants).toHaveLength(1);
  });

  test("an unknown grant or user is a usage error (exit 2)", async () => {
    const unknown = await cli(["oauth", "revoke", "grt_nothing"]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("no grant grt_nothing");
    expect((await cli(["oauth", "grants", "--user", "nobody@example.test"])).code).toBe(2);
    expect((await cli(["oauth", "frobnicate"])).err).toContain("usage: stockd oauth");
  });
});
