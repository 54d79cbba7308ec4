/**
 * Charged only for answers delivered, on every transport path: pipelined requests are each
 * answered in order; a client that leaves before its answer, or while its body is still
 * being written, pays nothing net; the request log and the metrics report what the ledger
 * holds; `Host` plays no part in routing; what the HTTP parser refuses is problem+json.
 * Every exchange here is raw bytes over a socket, as a client would send them.
 */
import { describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { createLogger } from "../../src/log.ts";
import { GATED, withGate } from "../helpers/gate.ts";
import { expectLedgerConsistent, expectNothingHeld, usageRows } from "../helpers/ledger.ts";
import { useDemoServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

const METRICS_TOKEN = "metrics-token-for-delivery-tests";
const lines: string[] = [];
const server = useDemoServer({
  log: createLogger("info", (line) => lines.push(line)),
  config: { metricsToken: METRICS_TOKEN },
});

const PRICE_ALL = "/stocks/DWGT/price?start_date=1990-01-01&end_date=2026-11-01";

function request(path: string, key: string | null, extra: string[] = []): string {
  const headers = ["Host: stockd.test", ...(key ? [`Authorization: Bearer ${key}`] : []), ...extra];
  return `GET ${path} HTTP/1.1\r\n${headers.join("\r\n")}\r\n\r\n`;
}

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Sends `bytes` in one write and reads until the server closes (or `ms` pass). */
async function exchange(bytes: string, ms = 5_000): Promise<Buffer> {
  const socket = await open();
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.write(bytes);
  await Promise.race([closed, Bun.sleep(ms)]);
  socket.destroy();
  return Buffer.concat(chunks);
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The HTTP/1.1 responses in a byte stream, each with a Content-Length (as stockd sends them). */
function responses(bytes: Buffer): RawResponse[] {
  const out: RawResponse[] = [];
  let at = 0;
  while (at < bytes.length) {
    const end = bytes.indexOf("\r\n\r\n", at);
    if (end === -1) break;
    const [statusLine, ...fields] = bytes.toString("latin1", at, end).split("\r\n");
    const headers: Record<string, string> = {};
    for (const field of fields) {
      const colon = field.indexOf(":");
      headers[field.slice(0, colon).toLowerCase()] = field.slice(colon + 1).trim();
    }
    const length = Number(headers["content-length"] ?? 0);
    out.push({
      status: Number(statusLine?.split(" ")[1]),
      headers,
      body: bytes.toString("utf8", end + 4, end + 4 + length),
    });
    at = end + 4 + length;
  }
  return out;
}

/** The request log's lines for these request ids. */
function logged(ids: Iterable<string>): { credits: number; delivered: boolean; status: number }[] {
  const wanted = new Set(ids);
  return lines
    .map(
      (line) =>
        JSON.parse(line) as {
          msg: string;
          request_id?: string;
          credits: number;
          delivered: boolean;
          status: number;
        },
    )
    .filter((entry) => entry.msg === "request" && entry.request_id && wanted.has(entry.request_id));
}

function ledgerRows(userId: string): { reason: string; delta: number; request_id: string }[] {
  return server.accounts.db
    .query<{ reason: string; delta: number; request_id: string }, { u: string }>(
      "SELECT reason, delta, request_id FROM ledger WHERE user_id = $u AND reason IN ('usage', 'refund') ORDER BY id",
    )
    .all({ u: userId });
}

describe("pipelined requests", () => {
  test("three billed calls in one write, the last with Connection: close: three answers in order, three debits", async () => {
    const { key, userId } = server.newKey(100);
    const paths = [
      "/stocks/DWGT/profile",
      "/stocks/DWGT/fundamental-metrics",
      "/stocks/DWGT/income-statement",
    ];
    const bytes = paths
      .map((p, i) => request(p, key, i === paths.length - 1 ? ["Connection: close"] : []))
      .join("");
    const answers = responses(await exchange(bytes));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(JSON.parse(answers[0]?.body ?? "").identity.symbol).toBe("DWGT");
    expect(JSON.parse(answers[2]?.body ?? "").periods).toBeArray();
    const ids = answers.map((a) => a.headers["x-request-id"]);
    expect(usageRows(server, userId).requestIds).toEqual(ids as string[]);
    expectLedgerConsistent(server, userId, 97);
  });

  test("a DuckDB call pipelined behind a direct one and a 404 between them: each answered, charged as answered", async () => {
    const { key, userId } = server.newKey(100);
    const bytes = [
      request("/stocks/DWGT/profile", key),
      request("/no/such/route", key),
      request("/sec_filings?ticker=DWGT&per_page=5", key),
      request("/health", null, ["Connection: close"]),
    ].join("");
    const answers = responses(await exchange(bytes));
    expect(answers.map((a) => a.status)).toEqual([200, 404, 200, 200]);
    expect(answers.map((a) => a.headers["x-credits-charged"])).toEqual(["1", "0", "1", undefined]);
    expectLedgerConsistent(server, userId, 98);
  });
});

describe("clients that leave", () => {
  test("reset before the answer (the handler still running): no debit, nothing held", async () => {
    const { key, userId } = server.newKey(10);
    await withGate(server, async (gate) => {
      const socket = await open();
      socket.write(request(GATED, key));
      await waitUntil(() => gate.waiting === 1);
      socket.resetAndDestroy();
      await Bun.sleep(50);
      gate.open();
      await gate.settled();
    });
    await Bun.sleep(50);
    expect(ledgerRows(userId)).toEqual([]);
    expectLedgerConsistent(server, userId, 10);
    await expectNothingHeld(server, key);
  });

  test("a request that arrives with the client's close (read after it left): no debit", async () => {
    const { key, userId } = server.newKey(10);
    for (const leave of ["end", "reset"] as const) {
      const socket = await open();
      socket.write(request(GATED, key));
      if (leave === "end") socket.end();
      else socket.resetAndDestroy();
    }
    await Bun.sleep(300);
    const rows = ledgerRows(userId);
    // A debit may only stand with its refund: the answer never reached an open connection.
    expect(rows.filter((r) => r.reason === "usage").length).toBe(
      rows.filter((r) => r.reason === "refund").length,
    );
    expectLedgerConsistent(server, userId, 10);
  });

  test("reset while bodies are being written: every response not taken whole by the socket is refunded", async () => {
    const { key, userId } = server.newKey(1_000);
    const socket = await open();
    let received = 0;
    socket.on("data", (chunk: Buffer) => {
      received += chunk.length;
    });
    socket.pause();
    // 30 answers of ~360 KB pipelined and not read: the socket's buffers fill long before the end.
    const count = 30;
    socket.write(Array.from({ length: count }, () => request(PRICE_ALL, key)).join(""));
    await waitUntil(() => ledgerRows(userId).length === count, 20_000);
    await Bun.sleep(300);
    socket.resetAndDestroy();
    await Bun.sleep(300);
    const rows = ledgerRows(userId);
    const debits = rows.filter((r) => r.reason === "usage");
    const refunds = rows.filter((r) => r.reason === "refund");
    expect(debits.length).toBe(count);
    expect(usageRows(server, userId).rows).toBe(count - refunds.length);
    // The one cut off mid-body and every one queued behind it.
    expect(refunds.length).toBeGreaterThan(0);
    expect(refunds.length).toBeLessThan(count);
    for (const refund of refunds) expect(debits.map((d) => d.request_id)).toContain(refund.request_id);
    const entries = logged(debits.map((d) => d.request_id));
    expect(entries.length).toBe(count);
    expect(entries.filter((e) => !e.delivered).length).toBe(refunds.length);
    expect(entries.reduce((n, e) => n + e.credits, 0)).toBe(count - refunds.length);
    expect(received).toBeLessThan(count * 360_000);
    expectLedgerConsistent(server, userId, 1_000 - (count - refunds.length));
    await expectNothingHeld(server, key);
  });

  test("pipelining more than 32 requests ahead of its reading: the connection is closed, nothing undelivered stays charged", async () => {
    const { key, userId } = server.newKey(1_000);
    const socket = await open();
    socket.pause();
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.write(Array.from({ length: 100 }, () => request(PRICE_ALL, key)).join(""));
    expect(await Promise.race([closed.then(() => true), Bun.sleep(10_000).then(() => false)])).toBe(true);
    await Bun.sleep(300);
    const rows = ledgerRows(userId);
    expect(rows.filter((r) => r.reason === "usage").length).toBeLessThanOrEqual(32);
    // What the socket took before the close was delivered; everything else was given back.
    const charged = usageRows(server, userId).rows;
    expect(charged).toBeLessThan(32);
    expectLedgerConsistent(server, userId, 1_000 - charged);
    await expectNothingHeld(server, key);
  });

  test("an idempotent call cut off is not refunded: its response is remembered, and its retry gets it free", async () => {
    const { key, userId } = server.newKey(1_000);
    const socket = await open();
    socket.pause();
    const plain = Array.from({ length: 25 }, () => request(PRICE_ALL, key));
    socket.write([...plain, request(PRICE_ALL, key, ["Idempotency-Key: cut-off-1"])].join(""));
    await waitUntil(() => ledgerRows(userId).length === 26, 20_000);
    await Bun.sleep(300);
    socket.resetAndDestroy();
    await Bun.sleep(300);
    const rows = ledgerRows(userId);
    const refunded = new Set(rows.filter((r) => r.reason === "refund").map((r) => r.request_id));
    const debits = rows.filter((r) => r.reason === "usage");
    // Answered in order: the plain call just before it was cut off, so it was too; yet its debit stands.
    expect(refunded.has(debits[24]?.request_id as string)).toBe(true);
    expect(refunded.has(debits[25]?.request_id as string)).toBe(false);
    const idempotent = server.accounts.db
      .query<{ n: number }, { u: string }>("SELECT count(*) AS n FROM idempotency WHERE user_id = $u")
      .get({ u: userId });
    expect(idempotent?.n).toBe(1);
    const retry = await server.get(PRICE_ALL, key, { headers: { "idempotency-key": "cut-off-1" } });
    expect([
      retry.status,
      retry.headers.get("idempotent-replayed"),
      retry.headers.get("x-credits-charged"),
    ]).toEqual([200, "true", "0"]);
    await retry.arrayBuffer();
    expectLedgerConsistent(server, userId, 1_000 - (26 - refunded.size));
  });

  test("closing after the whole answer was read: charged once", async () => {
    const { key, userId } = server.newKey(10);
    const answers = responses(await exchange(request("/stocks/DWGT/profile", key, ["Connection: close"])));
    expect(answers.map((a) => a.status)).toEqual([200]);
    expectLedgerConsistent(server, userId, 9);
    expect(ledgerRows(userId).map((r) => r.reason)).toEqual(["usage"]);
  });
});

describe("the log and the metrics report what the ledger holds", () => {
  test("after answered, refused, abandoned and refunded calls: log credits and the counter equal the ledger's net", async () => {
    const metricsBefore = await creditsCounter();
    const { key, userId } = server.newKey(500);
    const ids: string[] = [];
    for (const path of ["/stocks/DWGT/profile", "/stocks/NOSUCH/profile", "/stocks/DWGT/growth"]) {
      const res = await server.get(path, key);
      await res.arrayBuffer();
      ids.push(res.headers.get("x-request-id") as string);
    }
    // Abandoned before the answer, and cut off while bodies were queued.
    for (let i = 0; i < 5; i++) {
      const abort = new AbortController();
      const call = server.get(PRICE_ALL, key, { signal: abort.signal }).catch(() => null);
      abort.abort();
      await call;
    }
    const socket = await open();
    socket.pause();
    socket.write(Array.from({ length: 30 }, () => request(PRICE_ALL, key)).join(""));
    await waitUntil(() => ledgerRows(userId).filter((r) => r.reason === "usage").length >= 32, 20_000);
    await Bun.sleep(300);
    socket.resetAndDestroy();
    await Bun.sleep(300);
    const rows = server.accounts.db
      .query<{ delta: number; request_id: string }, { u: string }>(
        "SELECT delta, request_id FROM ledger WHERE user_id = $u AND reason IN ('usage', 'refund')",
      )
      .all({ u: userId });
    const net = -rows.reduce((n, r) => n + r.delta, 0);
    const all = new Set([...ids, ...rows.map((r) => r.request_id)]);
    expect(logged(all).reduce((n, e) => n + e.credits, 0)).toBe(net);
    expect((await creditsCounter()) - metricsBefore).toBe(net);
    expectLedgerConsistent(server, userId, 500 - net);
  });
});

/** `stockd_credits_charged_total` summed over routes. */
async function creditsCounter(): Promise<number> {
  const res = await server.get("/metrics", METRICS_TOKEN);
  const text = await res.text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("stockd_credits_charged_total"))
    .reduce((n, line) => n + Number(line.split(" ").at(-1)), 0);
}

describe("Host plays no part", () => {
  test("HTTP/1.0 without Host, HTTP/1.1 without Host, and malformed Hosts are served as any other request", async () => {
    const { key, userId } = server.newKey(10);
    const cases = [
      `GET /stocks/DWGT/profile HTTP/1.0\r\nAuthorization: Bearer ${key}\r\n\r\n`,
      `GET /stocks/DWGT/profile HTTP/1.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
      ...["a b", "a:99999", "[::1", "x", "", "evil.example:80/x"].map(
        (host) =>
          `GET /stocks/DWGT/profile HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
      ),
    ];
    for (const bytes of cases) {
      const [answer] = responses(await exchange(bytes));
      expect(answer?.status, bytes).toBe(200);
      expect(JSON.parse(answer?.body ?? "{}").identity.symbol).toBe("DWGT");
    }
    expectLedgerConsistent(server, userId, 10 - cases.length);
  });

  test("a short Host never turns a path into another route: /abcd/sec_filings is a free 404", async () => {
    const { key, userId } = server.newKey(10);
    for (const host of ["x", "ab", "abcd"]) {
      const bytes = `GET /abcd/sec_filings HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`;
      const [answer] = responses(await exchange(bytes));
      expect(answer?.status).toBe(404);
      expect(answer?.headers["x-credits-charged"]).toBe("0");
    }
    expectLedgerConsistent(server, userId, 10);
  });
});

describe("what the HTTP parser refuses is problem+json", () => {
  const cases: [string, string, number, string][] = [
    ["an unknown method", "FOO / HTTP/1.1\r\nHost: x\r\n\r\n", 405, "method_not_allowed"],
    ["a lowercase method", "get /health HTTP/1.1\r\nHost: x\r\n\r\n", 405, "method_not_allowed"],
    ["HTTP/2.0 as text", "GET /health HTTP/2.0\r\nHost: x\r\n\r\n", 505, "http_version_not_supported"],
    [
      "a control character in a header",
      "GET /health HTTP/1.1\r\nHost: x\r\nX: a\u0001b\r\n\r\n",
      400,
      "malformed_request",
    ],
    [
      "a header line without a colon",
      "GET /health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n",
      400,
      "malformed_request",
    ],
    [
      "headers over 16 KiB",
      `GET /health HTTP/1.1\r\nHost: x\r\nX: ${"a".repeat(20_000)}\r\n\r\n`,
      431,
      "headers_too_large",
    ],
    [
      "a body over 16 KiB",
      "GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 20000\r\n\r\n",
      413,
      "payload_too_large",
    ],
    [
      "a chunked body",
      "GET /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      413,
      "payload_too_large",
    ],
    ["a target that is no path", "GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed_request"],
  ];
  for (const [name, bytes, status, code] of cases) {
    test(`${name}: ${status} ${code}, then the connection closes`, async () => {
      const answers = responses(await exchange(bytes));
      expect(answers.length).toBe(1);
      const [answer] = answers as [RawResponse];
      expect(answer.status).toBe(status);
      expect(answer.headers["content-type"]).toBe("application/problem+json");
      expect(answer.headers.connection?.toLowerCase()).toBe("close");
      const body = JSON.parse(answer.body) as { code: string; status: number; request_id: string };
      expect([body.code, body.status]).toEqual([code, status]);
      expect(answer.headers["x-request-id"]).toBe(body.request_id);
      if (status === 405) expect(answer.headers.allow).toBe("GET, HEAD");
    });
  }
});
