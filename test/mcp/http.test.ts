/**
 * `/mcp` over the real server and the official SDK client (both protocol eras): every tool
 * answers the REST API's data at its price, errors are free, long series page by cursor, the
 * gate (keys, Origin, Host, methods, body size) and billing under concurrency.
 */
import { describe, expect, test } from "bun:test";
import { request as httpRequest } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type Columnar, fromColumnar, MAX_RESULT_BYTES } from "../../src/mcp/output.ts";
import { monthEnds } from "../../src/mcp/tools.ts";
import { useDemoServer } from "../helpers/server.ts";

const server = useDemoServer();

type Mode = "auto" | "legacy";

async function connect(key: string, mode: Mode = "auto"): Promise<Client> {
  const client = new Client({ name: "stockd-test", version: "1" }, { versionNegotiation: { mode } });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

interface Payload {
  data?: unknown;
  meta?: {
    credits_charged: number;
    next_cursor: string | null;
    truncated: boolean;
    snapshot_id: string | null;
  };
  error?: { message: string; status?: number };
  hint?: string;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const payload = result.structuredContent as Payload;
  // The same data in the text block as in structuredContent.
  const text = (result.content as { type: string; text: string }[])[0]?.text ?? "";
  expect(JSON.parse(text)).toEqual(payload);
  return { isError: result.isError === true, payload, bytes: Buffer.byteLength(text) };
}

/** A call and the pages its cursors continue it with, their series joined into the first page's data. */
async function allPages(client: Client, name: string, args: Record<string, unknown>) {
  const first = await call(client, name, args);
  let cursor = first.payload.meta?.next_cursor ?? null;
  let pages = 1;
  while (cursor && pages < 20) {
    const next = await call(client, name, { ...args, cursor });
    expect(next.isError).toBe(false);
    const data = next.payload.data;
    const table = (isTable(data) ? data : Object.values(data as object).find(isTable)) as Columnar;
    const into = (
      isTable(first.payload.data)
        ? first.payload.data
        : Object.values(first.payload.data as object).find(isTable)
    ) as Columnar;
    into.rows.push(...table.rows);
    cursor = next.payload.meta?.next_cursor ?? null;
    pages++;
  }
  return { ...first, pages };
}

const isTable = (v: unknown): v is Columnar =>
  v !== null && typeof v === "object" && "columns" in v && "rows" in v && Object.keys(v).length === 2;

/** A tool's data in the REST API's shape: its tables back to rows of objects. */
function asRest(data: unknown): unknown {
  if (isTable(data)) return fromColumnar(data);
  if (data === null || typeof data !== "object" || Array.isArray(data)) return data;
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, isTable(v) ? fromColumnar(v) : v]));
}

const balance = (userId: string) => server.accounts.getBalance(userId);

/** Each tool, with arguments and the REST call that answers the same data. */
const CASES: [string, Record<string, unknown>, string][] = [
  ["search_securities", { query: "demo" }, "/securities/search?query=demo"],
  ["get_company", { symbol: "DWGT" }, "/stocks/DWGT/profile"],
  ["get_company", { symbol: "DWGT", view: "quote" }, "/securities/DWGT/quote"],
  ["get_statements", { symbol: "DWGT", statement: "income" }, "/stocks/DWGT/income-statement"],
  [
    "get_statements",
    { symbol: "DWGT", statement: "cash_flow", period_type: "quarterly", limit: 4 },
    "/stocks/DWGT/cash-flow-statement?period_type=quarterly&limit=4",
  ],
  [
    "get_prices",
    { symbol: "DWGT", start_date: "2025-01-01", end_date: "2025-03-31" },
    "/stocks/DWGT/price?start_date=2025-01-01&end_date=2025-03-31",
  ],
  ["get_valuation", { symbol: "DWGT" }, "/securities/DWGT/valuation"],
  ["get_valuation", { symbol: "DWGT", view: "history" }, "/securities/DWGT/valuation/history"],
  ["get_valuation", { symbol: "DWGT", view: "monthly" }, "/stocks/DWGT/valuation-history"],
  ["get_fundamentals", { symbol: "DWGT" }, "/stocks/DWGT/fundamental-metrics"],
  ["get_fundamentals", { symbol: "DWGT", view: "growth" }, "/stocks/DWGT/growth"],
  ["get_fundamentals", { symbol: "DWGT", view: "capital_allocation" }, "/stocks/DWGT/capital-allocation"],
  ["get_fundamentals", { symbol: "DWGT", view: "owner_earnings" }, "/stocks/DWGT/owner-earnings"],
  ["get_dividends_earnings", { symbol: "DWGT" }, "/stocks/DWGT/dividend"],
  ["get_dividends_earnings", { symbol: "DWGT", view: "earnings" }, "/stocks/DWGT/earnings"],
  ["get_dividends_earnings", { symbol: "DWGT", view: "estimates" }, "/stocks/DWGT/estimates"],
  ["get_insider_trades", { symbol: "DWGT", limit: 20 }, "/securities/DWGT/insider_tradings?limit=20"],
  ["get_filings", { ticker: "DWGT", per_page: 10 }, "/sec_filings?ticker=DWGT&per_page=10"],
  ["get_earnings_calendar", { ticker: "DWGT" }, "/calendar/earnings?ticker=DWGT"],
];

describe("every tool answers the REST API's data at its price", () => {
  for (const mode of ["auto", "legacy"] as const)
    test(`${mode} era`, async () => {
      const { key, userId } = server.newKey(1_000);
      const client = await connect(key, mode);
      try {
        let answered = 0;
        for (const [name, args, path] of CASES) {
          const rest = await server.get(path, key);
          const restBody = await rest.json();
          const before = balance(userId) as number;
          const { isError, payload, pages } = await allPages(client, name, args);
          const charged = before - (balance(userId) as number);
          if (rest.status !== 200) {
            // What the REST API refuses is a free tool error with a hint.
            expect(isError, `${name} ${path}`).toBe(true);
            expect(payload.hint).toBeTruthy();
            expect(charged).toBe(0);
            continue;
          }
          answered++;
          expect(isError, `${name} ${path}`).toBe(false);
          expect(asRest(payload.data), `${name} ${path}`).toEqual(restBody);
          expect(payload.meta?.snapshot_id).toBe(rest.headers.get("x-snapshot-id"));
          // Each page is a call at the REST price.
          expect(charged, path).toBe(pages * Number(rest.headers.get("x-credits-charged")));
          expect(payload.meta?.credits_charged).toBe(charged / pages);
        }
        // The demo has data for nearly every case: the comparison is not vacuous.
        expect(answered).toBeGreaterThanOrEqual(CASES.length - 3);
      } finally {
        await client.close();
      }
    });

  test("get_account is free and shows the balance", async () => {
    const { key, userId } = server.newKey(7);
    const client = await connect(key);
    const { isError, payload } = await call(client, "get_account", {});
    await client.close();
    expect(isError).toBe(false);
    expect((payload.data as { balance: number }).balance).toBe(7);
    expect(balance(userId)).toBe(7);
  });

  test("monthly sampling keeps each month's last trading day", async () => {
    const { key } = server.newKey(10);
    const client = await connect(key);
    const range = { symbol: "DWGT", start_date: "2024-01-01", end_date: "2024-12-31" };
    const { payload } = await call(client, "get_prices", { ...range, sampling: "monthly" });
    await client.close();
    const daily = (await (
      await server.get("/stocks/DWGT/price?start_date=2024-01-01&end_date=2024-12-31", key)
    ).json()) as {
      date: string;
    }[];
    expect(asRest(payload.data)).toEqual(monthEnds(daily));
    expect((payload.data as Columnar).rows.length).toBe(12);
  });
});

describe("tools/list", () => {
  test("lists the tools in a fixed order, small, read-only, with the REST parameters' rules", async () => {
    const { key } = server.newKey(1);
    const first = await connect(key);
    const legacy = await connect(key, "legacy");
    const a = await first.listTools();
    const b = await legacy.listTools();
    await first.close();
    await legacy.close();
    expect(a.tools.map((t) => t.name)).toEqual(b.tools.map((t) => t.name));
    expect(a.tools.length).toBe(11);
    expect(Buffer.byteLength(JSON.stringify(a.tools))).toBeLessThanOrEqual(12 * 1024);
    for (const tool of a.tools) {
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool.inputSchema.additionalProperties).toBe(false);
    }
    const prices = a.tools.find((t) => t.name === "get_prices");
    expect(prices?.inputSchema.required).toEqual(["symbol", "start_date", "end_date"]);
    expect((prices?.inputSchema.properties?.start_date as { pattern?: string } | undefined)?.pattern).toBe(
      "^\\d{4}-\\d{2}-\\d{2}$",
    );
  });
});

describe("errors are tool results with a hint, and free", () => {
  test("unknown symbol, invalid arguments, unknown tool, a cursor of another call", async () => {
    const { key, userId } = server.newKey(5);
    const client = await connect(key);
    try {
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ["get_company", { symbol: "NOPE" }, /unknown symbol/],
        ["get_prices", { symbol: "DWGT", start_date: "2024-13-01", end_date: "2024-12-31" }, /start_date/],
        ["get_prices", { symbol: "DWGT", start_date: "2024-01-01" }, /end_date/],
        ["get_company", { symbol: "DWGT", extra: 1 }, /invalid arguments/],
        ["get_company", { symbol: "DWGT", view: "everything" }, /view/],
        ["get_statements", { symbol: "DWGT", statement: "income", limit: 0 }, /limit/],
        [
          "get_prices",
          { symbol: "DWGT", start_date: "2024-01-01", end_date: "2024-12-31", cursor: "x" },
          /cursor/,
        ],
      ];
      for (const [name, args, message] of cases) {
        const { isError, payload } = await call(client, name, args);
        expect(isError, JSON.stringify(args)).toBe(true);
        expect(payload.error?.message).toMatch(message);
        expect(payload.hint).toBeTruthy();
      }
      const unknown = await client.callTool({ name: "get_everything", arguments: {} });
      expect(unknown.isError).toBe(true);
    } finally {
      await client.close();
    }
    expect(balance(userId)).toBe(5);
  });

  test("a balance that does not cover the call: an error, no data, nothing charged", async () => {
    const { key, userId } = server.newKey(1);
    const client = await connect(key);
    const { isError, payload } = await call(client, "get_valuation", { symbol: "DWGT", view: "history" });
    await client.close();
    expect(isError).toBe(true);
    expect(payload.error?.status).toBe(402);
    expect(payload.data).toBeUndefined();
    expect(balance(userId)).toBe(1);
  });
});

describe("a long series pages by cursor under the byte cap", () => {
  test("the pages join into the REST answer; each is billed; a cursor fits only its own call", async () => {
    const { key, userId } = server.newKey(100);
    const client = await connect(key);
    const args = { symbol: "DWGT", start_date: "1990-01-01", end_date: "2026-01-01" };
    const rest = (await (
      await server.get("/stocks/DWGT/price?start_date=1990-01-01&end_date=2026-01-01", key)
    ).json()) as unknown[];
    const rows: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    try {
      do {
        const { isError, payload, bytes } = await call(
          client,
          "get_prices",
          cursor ? { ...args, cursor } : args,
        );
        expect(isError).toBe(false);
        expect(bytes).toBeLessThanOrEqual(MAX_RESULT_BYTES);
        rows.push(...fromColumnar(payload.data as Columnar));
        cursor = payload.meta?.next_cursor ?? null;
        expect(payload.meta?.truncated).toBe(cursor !== null);
        pages++;
      } while (cursor && pages < 50);
      expect(pages).toBeGreaterThan(1);
      expect(rows).toEqual(rest);
      const first = await call(client, "get_prices", args);
      const other = await call(client, "get_prices", {
        ...args,
        end_date: "2025-12-31",
        cursor: first.payload.meta?.next_cursor,
      });
      expect(other.isError).toBe(true);
      expect(other.payload.error?.message).toMatch(/cursor/);
    } finally {
      await client.close();
    }
    // The REST call, each page, and the first page again.
    expect(balance(userId)).toBe(100 - 1 - pages - 1);
  });
});

describe("billing is exact under concurrency", () => {
  test("N concurrent tool calls on a balance of k: exactly k succeed, the balance ends at 0", async () => {
    const k = 5;
    const n = 16;
    const { key, userId } = server.newKey(k);
    const client = await connect(key);
    const results = await Promise.all(
      Array.from({ length: n }, () =>
        client.callTool({ name: "get_company", arguments: { symbol: "DWGT" } }),
      ),
    );
    await client.close();
    expect(results.filter((r) => r.isError !== true).length).toBe(k);
    expect(balance(userId)).toBe(0);
    const rows = server.accounts.db
      .query<{ endpoint: string; delta: number }, [string]>(
        "SELECT endpoint, delta FROM ledger WHERE user_id = ? AND reason = 'usage'",
      )
      .all(userId);
    expect(rows.length).toBe(k);
    expect(rows.every((r) => r.endpoint === "mcp:get_company" && r.delta === -1)).toBe(true);
    expect(server.accounts.ledgerSum(userId)).toBe(0);
  });
});

/** A raw POST to /mcp: a legacy `initialize` unless a body is given. */
function post(headers: Record<string, string>, body?: string): Promise<Response> {
  return fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: body ?? initialize("2025-06-18"),
  });
}

function initialize(version: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
}

/** The JSON-RPC message of a legacy answer (an SSE `message` event, or JSON). */
async function message(res: Response): Promise<{ result?: Record<string, unknown>; error?: unknown }> {
  const text = await res.text();
  const data = text.startsWith("{")
    ? text
    : (text.split("\n").find((l) => l.startsWith("data: ")) ?? "").slice(6);
  return JSON.parse(data);
}

describe("the gate of /mcp", () => {
  test("missing, unknown, malformed and disabled keys: one 401 with the metadata challenge", async () => {
    const { key, keyId } = server.newKey(5);
    server.accounts.setKeyDisabled(keyId, true);
    const challenge = `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp", scope="stockd:read"`;
    const bodies = new Set<string>();
    for (const auth of [undefined, "Bearer sk_unknown", "Bearer", "Basic abc", `Bearer ${key}`]) {
      const res = await post(auth ? { authorization: auth } : {});
      expect(res.status, String(auth)).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe(challenge);
      const body = (await res.json()) as { detail: string };
      bodies.add(body.detail);
    }
    expect(bodies.size).toBe(1);
  });

  test("the challenge's scope is one both metadata documents advertise", async () => {
    const res = await post({});
    const scope = /scope="([^"]+)"/.exec(res.headers.get("www-authenticate") ?? "")?.[1];
    expect(scope).toBeDefined();
    for (const path of ["oauth-protected-resource/mcp", "oauth-authorization-server"]) {
      const doc = (await (await fetch(`${server.url}/.well-known/${path}`)).json()) as {
        scopes_supported: string[];
      };
      for (const s of (scope as string).split(" ")) expect(doc.scopes_supported, path).toContain(s);
    }
  });

  test("a foreign Origin or Host is a 403; loopback ones pass", async () => {
    const { key } = server.newKey(5);
    const auth = { authorization: `Bearer ${key}` };
    expect((await post({ ...auth, origin: "https://evil.example" })).status).toBe(403);
    expect((await post({ ...auth, origin: "http://localhost:3000" })).status).toBe(200);
    expect(await rawStatus({ ...auth, host: "evil.example" })).toBe(403);
    expect(await rawStatus({ ...auth, host: "localhost:8080" })).toBe(200);
  });

  test("GET and DELETE are 405s naming POST; a body over 64 KiB is a 413", async () => {
    const { key } = server.newKey(5);
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${server.url}/mcp`, { method, headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { pad: "x".repeat(70_000) },
    });
    expect((await post({ authorization: `Bearer ${key}` }, big)).status).toBe(413);
  });

  test("2025-06-18 and 2025-11-25 clients are answered in their revision", async () => {
    const { key, userId } = server.newKey(5);
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const res = await post({ authorization: `Bearer ${key}` }, initialize(version));
      expect(res.status).toBe(200);
      expect((await message(res)).result?.protocolVersion).toBe(version);
      const called = await post(
        { authorization: `Bearer ${key}`, "mcp-protocol-version": version },
        JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "get_company", arguments: { symbol: "DWGT" } },
        }),
      );
      // The response says what the tool call was charged, as a REST response does.
      expect(called.headers.get("x-credits-charged")).toBe("1");
      const result = (await message(called)).result as { structuredContent: { data: unknown } };
      expect(result.structuredContent.data).toEqual(
        await (await server.get("/stocks/DWGT/profile", key)).json(),
      );
    }
    // Two tool calls and two REST reads.
    expect(balance(userId)).toBe(1);
  });
});

/** A POST with a chosen Host header (fetch sets its own). */
function rawStatus(headers: Record<string, string>): Promise<number> {
  const body = initialize("2025-06-18");
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "content-length": String(Buffer.byteLength(body)),
        ...headers,
      },
    });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end(body);
  });
}
