/**
 * The compiled binary, as a self-hoster runs it: built by scripts/build.ts (the same script
 * as `npm run build` and the Dockerfile), copied alone into an empty directory and run there
 * with a fixed environment whose PATH holds neither Bun nor Node.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { type CliResult, cli } from "./helpers/cli.ts";
import { tempDir } from "./helpers/env.ts";
import { ROOT, ServerProcess } from "./helpers/spawn.ts";

const BUILD_TIMEOUT_MS = 120_000;
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;
const DEMO_USER = "demo@stockd.local";

let work: string;
let env: Record<string, string>;
let server: ServerProcess;

/** Runs the binary to completion (bounded) in the work dir; returns its exit code and output. */
function runCli(...args: string[]): Promise<CliResult> {
  return cli(args, { binary: "./stockd", cwd: work, env, timeoutMs: 30_000 });
}

/** Starts `stockd serve --port 0` on ./d and waits (bounded) for the URL it prints. */
function serve(): Promise<ServerProcess> {
  return ServerProcess.start({
    binary: "./stockd",
    cwd: work,
    env,
    dataDir: "./d",
    startTimeoutMs: START_TIMEOUT_MS,
  });
}

/** Sends SIGTERM and waits (bounded) for the exit code. */
async function terminate(served: ServerProcess): Promise<number | null | "still running"> {
  return (await served.stop("SIGTERM", STOP_TIMEOUT_MS)) ? served.exitCode : "still running";
}

function demoKey(served: ServerProcess): string {
  const key = /demo API key \(shown once\): (sk_[0-9A-Za-z]+)/.exec(served.stderr)?.[1];
  if (!key) throw new Error(`no demo key in the start-up output:\n${served.stderr}`);
  return key;
}

function get(served: ServerProcess, path: string, key?: string): Promise<Response> {
  return served.get(path, key, { signal: AbortSignal.timeout(10_000) });
}

async function balance(): Promise<{ user: string; balance: number; reserved: number }> {
  const shown = await runCli("credits", "show", "--user", DEMO_USER, "--json", "--data-dir", "./d");
  expect(shown.code, `credits show failed: ${shown.stderr}`).toBe(0);
  return JSON.parse(shown.stdout);
}

describe("stockd binary", () => {
  // Inside the describe: these run before env.ts removes the temp dirs.
  beforeAll(async () => {
    const build = tempDir("stockd-build-");
    const built = Bun.spawn([process.execPath, "scripts/build.ts", "--outfile", join(build, "stockd")], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
      timeout: BUILD_TIMEOUT_MS,
    });
    const [out, err, code] = await Promise.all([
      new Response(built.stdout).text(),
      new Response(built.stderr).text(),
      built.exited,
    ]);
    if (code !== 0) throw new Error(`scripts/build.ts failed (exit ${code}):\n${out}${err}`);
    work = tempDir("stockd-binary-");
    const empty = join(work, "no-bin");
    mkdirSync(empty);
    copyFileSync(join(build, "stockd"), join(work, "stockd"));
    env = {
      TZ: "UTC",
      NO_COLOR: "1",
      PATH: empty,
      HOME: join(work, "home"),
      XDG_CACHE_HOME: join(work, "cache"),
    };
    server = await serve();
  }, BUILD_TIMEOUT_MS + START_TIMEOUT_MS);

  afterAll(async () => {
    if (server && server.exitCode === null) await terminate(server);
  });

  test("--version, --help and per-command help", async () => {
    const { version } = await Bun.file(join(ROOT, "package.json")).json();
    const printed = await runCli("--version", "--json");
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout), "the version baked in at build time").toMatchObject({ version });
    const help = await runCli("--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("usage: stockd <command>");
    const serveHelp = await runCli("serve", "--help");
    expect(serveHelp.code).toBe(0);
    expect(serveHelp.stdout).toContain("usage: stockd serve");
  });

  test("a fresh data dir gets the demo data, and libduckdb.so is unpacked into the user cache", () => {
    expect(server.stderr).toContain("demo API key");
    expect(existsSync(join(work, "d", "CURRENT")), "the demo snapshot is active").toBe(true);
    const cached = readdirSync(join(work, "cache", "stockd"), { recursive: true }).map(String);
    expect(
      cached.some((f) => /libduckdb-\w+\.so$/.test(f)),
      `cache holds ${cached.join(", ")}`,
    ).toBe(true);
  });

  test("an authenticated call is billed one credit, and the CLI sees the same balance", async () => {
    const key = demoKey(server);
    const first = await get(server, "/stocks/DWGT/profile", key);
    expect(first.status).toBe(200);
    const profile = (await first.json()) as { identity?: { symbol?: string } };
    expect(profile.identity?.symbol, "the profile of the demo company").toBe("DWGT");
    const second = await get(server, "/stocks/DWGT/profile", key);
    expect(second.status).toBe(200);
    await second.arrayBuffer();
    const before = Number(first.headers.get("x-credits-remaining"));
    const after = Number(second.headers.get("x-credits-remaining"));
    expect(second.headers.get("x-credits-charged")).toBe("1");
    expect(after, "each 200 costs one credit").toBe(before - 1);
    expect((await balance()).balance, "credits show reports the committed balance").toBe(after);
    expect((await get(server, "/stocks/DWGT/profile")).status, "no key, no data").toBe(401);
  });

  test("the checkpoint worker runs in the binary: debits reach the database file itself", async () => {
    const key = demoKey(server);
    const res = await get(server, "/stocks/DWGT/profile", key);
    expect(res.status).toBe(200);
    const remaining = Number(res.headers.get("x-credits-remaining"));
    // A copy of the file without its WAL shows the debit only after a checkpoint, which the
    // serving connection leaves to the worker thread (one a second).
    const copy = join(work, "accounts-file-only.db");
    let inFile: number | undefined;
    for (let i = 0; i < 60 && inFile !== remaining; i++) {
      await Bun.sleep(50);
      copyFileSync(join(work, "d", "accounts.db"), copy);
      const db = new Database(copy, { readonly: true });
      try {
        inFile = db
          .query<{ balance: number }, [string]>("SELECT balance FROM users WHERE email = ?")
          .get(DEMO_USER)?.balance;
      } catch {
        inFile = undefined; // copied during a checkpoint: try again
      } finally {
        db.close();
      }
    }
    expect(inFile).toBe(remaining);
  });

  test("the docs page, its embedded assets and /openapi.json are served", async () => {
    for (const path of ["/docs", "/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css"]) {
      const response = await get(server, path);
      expect(response.status, `${path} status`).toBe(200);
      expect((await response.arrayBuffer()).byteLength, `${path} has a body`).toBeGreaterThan(100);
    }
    const spec = (await (await get(server, "/openapi.json")).json()) as { paths: object };
    expect(Object.keys(spec.paths)).toContain("/stocks/{symbol}/profile");
  });

  test("healthcheck exits 0 against a live server and 1 against a closed port", async () => {
    expect((await runCli("healthcheck", "--url", `${server.url}/health`)).code).toBe(0);
    expect((await runCli("healthcheck", "--url", "http://127.0.0.1:1/health")).code).toBe(1);
  });

  test("stockd mcp speaks MCP over stdio in both eras, billed to the same ledger as the server", async () => {
    const key = demoKey(server);
    const rest = await get(server, "/stocks/DWGT/profile", key);
    expect(rest.status).toBe(200);
    const profile = await rest.json();
    for (const mode of ["auto", "legacy"] as const) {
      const start = (await balance()).balance;
      const client = new Client({ name: "binary-test", version: "1" }, { versionNegotiation: { mode } });
      await client.connect(
        new StdioClientTransport({
          command: join(work, "stockd"),
          args: ["mcp", "--data-dir", "./d", "--log-level", "silent"],
          cwd: work,
          env: { ...env, STOCKD_API_KEY: key },
        }),
      );
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain("get_company");
        const result = await client.callTool({ name: "get_company", arguments: { symbol: "DWGT" } });
        expect(result.isError, mode).not.toBe(true);
        expect((result.structuredContent as { data: unknown }).data, mode).toEqual(profile);
      } finally {
        await client.close();
      }
      expect((await balance()).balance, `${mode}: one credit, in the server's ledger`).toBe(start - 1);
    }
    const noKey = await runCli("mcp", "--data-dir", "./d");
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("STOCKD_API_KEY");
  });

  test("SIGTERM: calls in flight finish and are billed exactly, then exit 0", async () => {
    const second = await serve(); // the data dir is initialised: no demo, no key printed
    const key = demoKey(server);
    const start = await balance();
    const calls = Array.from({ length: 20 }, () =>
      get(second, "/stocks/DWGT/profile", key).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status;
        },
        () => "refused" as const,
      ),
    );
    await Bun.sleep(5);
    expect(await terminate(second), `exit code; stderr:\n${second.stderr}`).toBe(0);
    const outcomes = await Promise.all(calls);
    expect(
      outcomes.every((o) => o === 200 || o === "refused"),
      `outcomes: ${outcomes.join(",")}`,
    ).toBe(true);
    const ok = outcomes.filter((o) => o === 200).length;
    expect(await balance(), "every answered call was debited, nothing left held").toEqual({
      ...start,
      balance: start.balance - ok,
      reserved: 0,
    });
  });
});
