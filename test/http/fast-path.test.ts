/**
 * The fast-path routes (`fastPath: true`, http/fast-path.ts) are matched by the edge and served
 * without Elysia; Elysia holds the same definitions, and `viaElysia` reaches it for every path.
 * Both paths must answer every request alike: status, body (but the request id), content type
 * and what is charged.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type EdgeUnderTest, startEdge } from "../helpers/edge.ts";
import { demoDataDir, limits, startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let edge: EdgeUnderTest;

beforeAll(async () => {
  const dir = await demoDataDir();
  server = await startTestServer(dir);
  edge = await startEdge(dir, limits({}), { viaElysia: true });
});
afterAll(async () => {
  await edge.close();
  await server.stop();
});

const today = new Date().toISOString().slice(0, 10);
const future = `${Number(today.slice(0, 4)) + 1}${today.slice(4)}`;

const PATHS = [
  "/stocks/DWGT/profile",
  "/stocks/dwgt/profile",
  "/stocks/DHLD-B/profile",
  "/stocks/dhld%2Fb/profile",
  "/stocks/NOSUCH/profile",
  `/stocks/${"X".repeat(40)}/profile`,
  "/stocks/DWGT/profile?extra=1",
  "/stocks/DWGT/price?start_date=2024-01-01&end_date=2024-03-31",
  "/stocks/DWGT/price?start_date=2024-01-06&end_date=2024-01-07",
  "/stocks/DWGT/price?start_date=1990-01-01&end_date=1990-12-31",
  "/stocks/DWGT/price?start_date=2024-01-01",
  "/stocks/DWGT/price?end_date=2024-01-01",
  "/stocks/DWGT/price?start_date=2024-02-30&end_date=2024-03-01",
  "/stocks/DWGT/price?start_date=2024-3-1&end_date=2024-03-01",
  "/stocks/DWGT/price?start_date=2024-03-01&end_date=2024-01-01",
  `/stocks/DWGT/price?start_date=2024-01-01&end_date=${future}`,
  "/stocks/NOSUCH/price?start_date=2024-01-01&end_date=2024-01-31",
  "/stocks/DWGT/fundamental-metrics",
  "/stocks/DWGT/growth",
  "/stocks/DWGT/capital-allocation",
  "/stocks/DWGT/owner-earnings",
  "/stocks/DWGT/dividend",
  "/stocks/DWGT/earnings",
  "/stocks/DWGT/estimates",
  "/stocks/DHLD-B/estimates",
  "/securities/DWGT/valuation",
  "/securities/dwgt/valuation",
  "/securities/NOSUCH/valuation",
];

interface Answer {
  status: number;
  type: string | null;
  charged: string | null;
  body: unknown;
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  const body = JSON.parse(text) as unknown;
  if (body && typeof body === "object" && "request_id" in body)
    (body as { request_id: string }).request_id = "-";
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    charged: response.headers.get("x-credits-charged"),
    body,
  };
}

/** A call with an Idempotency-Key and its retry both answer `text`, the retry as a replay. */
async function expectReplayed(path: string, key: string, idempotencyKey: string, text: string) {
  const retry = { headers: { "idempotency-key": idempotencyKey } };
  const first = await server.get(path, key, retry);
  const replay = await server.get(path, key, retry);
  expect(await first.text()).toBe(text);
  expect(await replay.text()).toBe(text);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
}

describe("fast-path routes", () => {
  test("the fast path and Elysia answer every request alike", async () => {
    const viaServer = server.newKey(1_000);
    const viaEdge = edge.newKey(1_000);
    for (const path of PATHS) {
      const fast = await answerOf(await server.get(path, viaServer.key));
      const headers = { authorization: `Bearer ${viaEdge.key}` };
      const routed = await answerOf(
        await edge.handle(new Request(`http://stockd.test${path}`, { headers }), "127.0.0.1"),
      );
      expect(fast, path).toEqual(routed);
    }
    const successes = (await Promise.all(PATHS.map((p) => server.get(p, viaServer.key)))).filter(
      (r) => r.status === 200,
    ).length;
    // The same number of calls were charged on both sides (every 2xx, once).
    expect(server.accounts.getBalance(viaServer.userId)).toBe(1_000 - 2 * successes);
    expect(edge.accounts.getBalance(viaEdge.userId)).toBe(1_000 - successes);
  });

  test("HEAD is answered like GET without a body, and other methods are refused before billing", async () => {
    const { key, userId } = server.newKey(10);
    const head = await server.get("/stocks/DWGT/fundamental-metrics", key, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect(head.headers.get("x-credits-charged")).toBe("1");
    // Its Content-Length is the GET body's.
    const get = await server.get("/stocks/DWGT/fundamental-metrics", key);
    expect(head.headers.get("content-length")).toBe(String((await get.arrayBuffer()).byteLength));
    const post = await server.get("/stocks/DWGT/profile", key, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect(server.accounts.getBalance(userId)).toBe(8);
  });

  test("a large body and a small one are sent whole with their length; the bytes are those Elysia's path sends", async () => {
    const { key, userId } = server.newKey(10);
    const year = "/stocks/DWGT/price?start_date=2024-01-01&end_date=2024-12-31";
    const week = "/stocks/DWGT/price?start_date=2024-03-04&end_date=2024-03-08";
    const large = await server.get(year, key);
    const text = await large.text();
    expect(text.length).toBeGreaterThan(16 * 1024);
    expect(large.headers.get("transfer-encoding")).toBeNull();
    expect(large.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    expect(large.headers.get("content-type")).toBe("application/json;charset=utf-8");
    const rows = JSON.parse(text) as { date: string }[];
    expect(rows.length).toBeGreaterThan(200);
    expect(rows.every((r) => r.date >= "2024-01-01" && r.date <= "2024-12-31")).toBe(true);
    // The same bytes as the whole body Elysia's path sends.
    const viaEdge = edge.newKey(10);
    const headers = { authorization: `Bearer ${viaEdge.key}` };
    const routed = await edge.handle(new Request(`http://stockd.test${year}`, { headers }), "127.0.0.1");
    expect(await routed.text()).toBe(text);
    const small = await server.get(week, key);
    const smallText = await small.text();
    expect(small.headers.get("content-length")).toBe(String(smallText.length));
    expect(JSON.parse(smallText)).toHaveLength(5);
    // A retried large call replays the bytes it was charged for, once.
    await expectReplayed(year, key, "year-1", text);
    expect(server.accounts.getBalance(userId)).toBe(7);
    // HEAD of the large window: no body, the GET body's length, billed like GET.
    const head = await server.get(year, key, { method: "HEAD" });
    expect([head.status, await head.text(), head.headers.get("x-credits-charged")]).toEqual([200, "", "1"]);
    expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    expect(server.accounts.getBalance(userId)).toBe(6);
  });

  test("a large routed (Elysia) answer is sent whole with its length too, its bytes unchanged", async () => {
    const { key, userId } = server.newKey(10);
    const path = "/stocks/DWGT/income-statement?period_type=quarterly&limit=40";
    const large = await server.get(path, key);
    const text = await large.text();
    expect(large.status).toBe(200);
    expect(text.length).toBeGreaterThan(16 * 1024);
    expect(large.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    expect(large.headers.get("x-credits-charged")).toBe("1");
    const { symbol, periods } = JSON.parse(text) as { symbol: string; periods: { period_type: string }[] };
    expect(symbol).toBe("DWGT");
    expect(periods.length).toBeGreaterThan(20);
    expect(periods.every((p) => p.period_type === "quarterly")).toBe(true);
    // One period: the same first period.
    const one = await server.get("/stocks/DWGT/income-statement?period_type=quarterly&limit=1", key);
    const oneText = await one.text();
    expect(one.headers.get("content-length")).toBe(String(Buffer.byteLength(oneText)));
    expect(JSON.parse(oneText)).toEqual({ symbol, periods: periods.slice(0, 1) });
    // An idempotent retry replays the very bytes of the first answer, charged once.
    await expectReplayed(path, key, "statements-1", text);
    expect(server.accounts.getBalance(userId)).toBe(7);
  });
});
