#!/usr/bin/env bun
/**
 * The serving thread's cost of an MCP tool call against the REST call that returns the same
 * data, in one run, without HTTP: the app's `handle` is called in-process over the demo
 * snapshot, 64 calls at a time, as bench/edge-calls.ts does. The MCP requests are the bytes the
 * official SDK client sends (recorded once, in both protocol eras); `tools/list` (no REST call)
 * and `callTool` alone (no SDK) split where the time goes. The variants of a case take turns
 * within each repetition, so that a change of the shared machine's load hits them alike; the
 * ratios are of medians, and the load average is printed before and after.
 *
 * `bun bench/mcp-calls.ts [--rounds 200]`
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { buildDemo } from "../src/demo/index.ts";
import type { Reply } from "../src/http/context.ts";
import { mcpDoor } from "../src/mcp/door.ts";
import { callTool } from "../src/mcp/server.ts";
import { tempDir } from "../test/helpers/env.ts";
import { inProcessApp } from "./lib/in-process.ts";
import { loadAverage } from "./lib/machine.ts";
import { median } from "./lib/stats.ts";

const CONNECTIONS = 64;
const REPETITIONS = 7;
const ORIGIN = "http://127.0.0.1:1";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "200" } } });
const rounds = Number(values.rounds ?? 200);

const dir = tempDir("stockd-mcp-calls-");
await buildDemo(dir);
const bench = await inProcessApp(resolve(import.meta.dir, ".."), dir, {
  users: 1,
  doors: (deps) => [
    mcpDoor({
      ...deps,
      oauth: { verifyAccessToken: () => null },
      publicUrl: () => ORIGIN,
      allowedHosts: [],
    }),
  ],
});
const { app, activeSnapshot: active } = bench;
const key = bench.keys[0] as string;

/** One call through the edge as the transport makes it: the reply's body read, delivery reported. */
async function send(request: Request): Promise<number> {
  const reply: Reply = await app.handle(request);
  const body = reply.body;
  if (body instanceof Response) await body.arrayBuffer();
  app.delivered(reply, true);
  return reply.status;
}

/** The requests the SDK client sends for one tool call (or list), recorded through `send`. */
async function recorded(mode: "auto" | "legacy", name: string | null, args: Record<string, unknown>) {
  const seen: { url: string; init: { method: string; headers: Record<string, string>; body: string } }[] = [];
  const fetchVia = async (url: string | URL | Request, init?: RequestInit) => {
    const request = url instanceof Request ? url : new Request(String(url), init);
    // As over HTTP/1.1, where the client always sends it (/mcp checks it).
    request.headers.set("host", "127.0.0.1:1");
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => {
      headers[k] = v;
    });
    const body = await request.clone().text();
    seen.push({ url: request.url, init: { method: request.method, headers, body } });
    const reply = await app.handle(request);
    app.delivered(reply, true);
    const raw = reply.body instanceof Response ? await reply.body.arrayBuffer() : reply.body;
    const bytes = Array.isArray(raw) ? Buffer.concat(raw) : raw;
    return new Response(bytes, { status: reply.status, headers: reply.headers });
  };
  const client = new Client({ name: "bench", version: "1" }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), {
      fetch: fetchVia as typeof fetch,
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  const from = seen.length;
  if (name) await client.callTool({ name, arguments: args });
  else await client.listTools();
  const made = seen[from];
  await client.close();
  if (!made) throw new Error("the client sent nothing");
  return () => new Request(made.url, made.init);
}

const rest = (path: string) => () =>
  new Request(`${ORIGIN}${path}`, { headers: { authorization: `Bearer ${key}` } });

type Make = () => Request | Promise<number>;

/** `count` rounds of 64 concurrent calls; throws on any answer but 200. */
async function playRounds(make: Make, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const statuses = await Promise.all(
      Array.from({ length: CONNECTIONS }, () => {
        const made = make();
        return made instanceof Request ? send(made) : made;
      }),
    );
    if (statuses.some((s) => s !== 200)) throw new Error(`status ${statuses.find((s) => s !== 200)}`);
  }
}

/**
 * µs per call of each variant: REPETITIONS turns in which every variant runs `rounds` rounds
 * in turn (after a warm-up of each), and the median of its turns.
 */
async function perCall(variants: Make[]): Promise<number[]> {
  for (const make of variants) await playRounds(make, Math.ceil(rounds / 4));
  const times = variants.map((): number[] => []);
  for (let rep = 0; rep < REPETITIONS; rep++)
    for (const [i, make] of variants.entries()) {
      const started = performance.now();
      await playRounds(make, rounds);
      times[i]?.push(((performance.now() - started) * 1000) / (rounds * CONNECTIONS));
    }
  return times.map(median);
}

const price = { symbol: "DWGT", start_date: "2025-01-01", end_date: "2025-12-31" };
const cases: [string, string, string, Record<string, unknown>][] = [
  ["profile", "/stocks/DWGT/profile", "get_company", { symbol: "DWGT" }],
  ["fundamental-metrics", "/stocks/DWGT/fundamental-metrics", "get_fundamentals", { symbol: "DWGT" }],
  ["price (1 year)", "/stocks/DWGT/price?start_date=2025-01-01&end_date=2025-12-31", "get_prices", price],
];

/** `callTool` alone, on the same REST path: the tools' own work without the SDK. */
const direct = (name: string, args: Record<string, unknown>) => async () => {
  const result = await callTool(
    { activeSnapshot: active },
    (target, ledger) => app.restAs(key, target, ledger),
    name,
    args,
  );
  return result.isError ? 500 : 200;
};

console.log(
  `MCP tool call vs the REST call of the same data: µs of the serving thread per call (${CONNECTIONS} at a time, median of ${REPETITIONS} alternating turns); load average ${loadAverage()}`,
);
console.log(
  `${"case".padEnd(22)} ${"REST".padStart(8)} ${"tool only".padStart(10)} ${"MCP modern".padStart(11)} ${"MCP legacy".padStart(11)}   modern/REST  legacy/REST`,
);
for (const [label, path, name, args] of cases) {
  const [restUs = 0, directUs = 0, modern = 0, legacy = 0] = await perCall([
    rest(path),
    direct(name, args),
    await recorded("auto", name, args),
    await recorded("legacy", name, args),
  ]);
  console.log(
    `${label.padEnd(22)} ${restUs.toFixed(1).padStart(8)} ${directUs.toFixed(1).padStart(10)} ${modern.toFixed(1).padStart(11)} ${legacy.toFixed(1).padStart(11)}   ${(modern / restUs).toFixed(2).padStart(10)}×  ${(legacy / restUs).toFixed(2).padStart(10)}×`,
  );
}
const [listModern = 0, listLegacy = 0] = await perCall([
  await recorded("auto", null, {}),
  await recorded("legacy", null, {}),
]);
console.log(
  `${"tools/list".padEnd(22)} ${"".padStart(8)} ${"".padStart(10)} ${listModern.toFixed(1).padStart(11)} ${listLegacy.toFixed(1).padStart(11)}   (the SDK's own cost: no REST call)`,
);

console.log(`load average after: ${loadAverage()}`);
bench.close();
