/**
 * The official MCP conformance scenarios (`@modelcontextprotocol/conformance`) that apply to
 * stockd's `/mcp`, run by their own CLI against the real server. The others test features
 * stockd does not offer (prompts, resources, logging, sampling, elicitation, sessions) or
 * the SDK's "everything" server's own tools (`test_simple_text`, `json_schema_2020_12_tool`,
 * ...). The scenarios speak the 2025 revisions. The CLI takes no headers, so it talks to a
 * loopback proxy that adds the API key and passes everything else on as it came (Host and
 * Origin included: one scenario checks DNS-rebinding protection).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createRequire } from "node:module";
import { useDemoServer } from "../helpers/server.ts";

const SCENARIOS = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"];

const server = useDemoServer();
const cli = createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/dist/index.js");
let proxy: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  const { key } = server.newKey(1_000);
  const target = new URL(server.url);
  proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      url.host = target.host;
      const headers = new Headers(request.headers);
      headers.set("authorization", `Bearer ${key}`);
      const answer = await fetch(url, { method: request.method, headers, body: request.body });
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    },
  });
});
afterAll(() => proxy.stop(true));

for (const scenario of SCENARIOS)
  test(scenario, async () => {
    // The CLI needs Node 22 or Bun (it calls fs.globSync); the tests run under Bun.
    const run = Bun.spawn(
      [
        process.execPath,
        cli,
        "server",
        "--url",
        `http://127.0.0.1:${proxy.port}/mcp`,
        "--scenario",
        scenario,
      ],
      { stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } },
    );
    const [out, err] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text()]);
    await run.exited;
    expect(run.exitCode, `${out}\n${err}`).toBe(0);
    const passed = out.match(/Passed: (\d+)\/(\d+), 0 failed/);
    expect(passed, out).not.toBeNull();
    expect(Number(passed?.[1])).toBe(Number(passed?.[2]));
    expect(Number(passed?.[2])).toBeGreaterThan(0);
  }, 120_000);
