/**
 * A door (src/http/doors.ts) over the real transport: its methods and bounded body (whole within
 * a deadline), its gate, its REST calls billed and rate-limited like the REST API's and run on
 * the door call's in-flight places; every other path keeps the REST API's rules.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { renameSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { Billing } from "../../src/accounts/billing.ts";
import { AccountsStore } from "../../src/accounts/store.ts";
import { ApiError } from "../../src/errors.ts";
import { createApp } from "../../src/http/app.ts";
import type { Door } from "../../src/http/doors.ts";
import { listenHttp } from "../../src/http/transport.ts";
import { createLogger } from "../../src/log.ts";
import { SnapshotService } from "../../src/query/snapshot.ts";
import { openDuckDb } from "../../src/snapshot/duckdb.ts";
import { demoDataDir, limits } from "../helpers/server.ts";

const LIMIT = 256;
/** A key's rate: a burst of this many calls, then (practically) none for the rest of the file. */
const BURST = 10;

/** A door at `path` that takes keys of `billing`. */
function gatedDoor(billing: Billing, name: string, handle: Door["handle"]): Door {
  return {
    name,
    matches: (path) => path === `/${name}`,
    methods: ["POST"],
    maxBodyBytes: LIMIT,
    gate: {
      key: (presented, now) => billing.authenticate(presented, now),
      refusal: () =>
        new ApiError("unauthorized", "a key is needed", undefined, {
          "www-authenticate": `Bearer realm="${name}"`,
        }),
    },
    handle,
  };
}

/** The REST paths a body names, one a line ("/..."); none for any other body. */
const pathsOf = (text: string) => (text.startsWith("/") ? text.split("\n") : []);

/**
 * `/echo` echoes the body's length and serves the REST paths it names in the caller's name, all
 * at once (as a batch of tool calls would); `/fail` serves them, then throws.
 */
function echoDoors(billing: Billing): Door[] {
  return [
    gatedDoor(billing, "echo", async ({ call, rest }) => {
      const text = await call.request.text();
      const answers = await Promise.all(pathsOf(text).map((path) => rest(path, "door:echo")));
      return Response.json({ length: text.length, statuses: answers.map((a) => a.status) });
    }),
    gatedDoor(billing, "fail", async ({ call, rest }) => {
      for (const path of pathsOf(await call.request.text())) await rest(path, "door:fail");
      throw new Error("the handler failed after its REST calls");
    }),
  ];
}

/** What the test lets `/stream` do next. */
let streaming = Promise.withResolvers<void>();
let proceed = Promise.withResolvers<void>();

/**
 * `/stream` answers at once with a body whose stream serves the REST path the request names,
 * then waits for the test (as the MCP SDK's SSE answer runs tool calls while it is read).
 */
function streamDoor(billing: Billing): Door {
  return gatedDoor(billing, "stream", async ({ call, rest }) => {
    const path = await call.request.text();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        const answer = await rest(path, "door:stream");
        streaming.resolve();
        await proceed.promise;
        controller.enqueue(new TextEncoder().encode(JSON.stringify({ status: answer.status })));
        controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "application/json" } });
  });
}

let url = "";
let accounts: AccountsStore;
let snapshots: SnapshotService;
let stop: () => Promise<void>;

beforeAll(async () => {
  const dataDir = await demoDataDir();
  const log = createLogger("silent");
  accounts = AccountsStore.open(join(dataDir, "accounts.db"));
  const billing = new Billing(accounts, 200);
  const instance = await openDuckDb();
  snapshots = new SnapshotService(instance, dataDir, log);
  await snapshots.refresh();
  const app = createApp({
    accounts,
    billing,
    snapshots,
    log,
    version: "test",
    limits: limits({ ratePerSecond: 0.001, burst: BURST, maxInFlight: 1, maxInFlightPerUser: 1 }),
    doors: [...echoDoors(billing), streamDoor(billing)],
  });
  const transport = await listenHttp(app, 0, "127.0.0.1");
  const address = transport.server.address();
  url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  stop = async () => {
    await transport.stop(1000);
    billing.close();
    snapshots.close();
    accounts.close();
    instance.closeSync();
  };
}, 180_000);
afterAll(() => stop());

function newKey(credits: number): { key: string; userId: string } {
  const user = accounts.createUser(`door${Math.random()}@example.test`, credits);
  if (!user.ok) throw new Error(user.message);
  return { key: accounts.createKey(user.value.id, null, null).key, userId: user.value.id };
}

/** A raw request with a chunked body (fetch states the length of a string body). */
function chunked(path: string, key: string, pieces: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "transfer-encoding": "chunked" },
    });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    for (const piece of pieces) req.write(piece);
    req.end();
  });
}

describe("a door", () => {
  test("takes its method with a body up to its limit, chunked or not", async () => {
    const { key } = newKey(10);
    const res = await fetch(`${url}/echo`, {
      method: "POST",
      body: "x".repeat(LIMIT),
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { length: number }).length).toBe(LIMIT);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(await chunked("/echo", key, ["x".repeat(LIMIT / 2), "y".repeat(LIMIT / 2)])).toBe(200);
  });

  test("refuses a larger body with 413, by its stated length or as it arrives", async () => {
    const { key } = newKey(10);
    const res = await fetch(`${url}/echo`, {
      method: "POST",
      body: "x".repeat(LIMIT + 1),
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(413);
    expect(await chunked("/echo", key, ["x".repeat(LIMIT / 2 + 8), "y".repeat(LIMIT / 2 + 8)])).toBe(413);
  });

  test("answers its other methods 405 naming its own", async () => {
    for (const method of ["GET", "DELETE", "PUT"]) {
      const res = await fetch(`${url}/echo`, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
  });

  test("runs its gate: one refusal of its own for a missing or bad key", async () => {
    for (const auth of [undefined, "Bearer sk_nope", "Basic abc"]) {
      const res = await fetch(`${url}/echo`, {
        method: "POST",
        body: "x",
        headers: auth ? { authorization: auth } : {},
      });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="echo"');
    }
  });

  test("serves REST in its caller's name: the REST price, the ledger row named by the door", async () => {
    const { key, userId } = newKey(1);
    const headers = { authorization: `Bearer ${key}` };
    const first = await fetch(`${url}/echo`, { method: "POST", body: "/stocks/DWGT/profile", headers });
    expect(await first.json()).toEqual({ length: 20, statuses: [200] });
    const second = await fetch(`${url}/echo`, { method: "POST", body: "/stocks/DWGT/profile", headers });
    expect(await second.json()).toEqual({ length: 20, statuses: [402] });
    expect(accounts.getBalance(userId)).toBe(0);
    const rows = accounts.db
      .query<{ endpoint: string; delta: number }, [string]>(
        "SELECT endpoint, delta FROM ledger WHERE user_id = ? AND reason = 'usage'",
      )
      .all(userId);
    expect(rows).toEqual([{ endpoint: "door:echo", delta: -1 }]);
  });
});

/** The user's usage and refund rows in the ledger, and its balance. */
function usage(userId: string) {
  const rows = accounts.db
    .query<{ endpoint: string; reason: string; delta: number }, [string]>(
      "SELECT endpoint, reason, delta FROM ledger WHERE user_id = ? AND reason IN ('usage', 'refund') ORDER BY id",
    )
    .all(userId);
  return { rows, balance: accounts.getBalance(userId) };
}

describe("a door's REST calls", () => {
  test("take a token of the key's rate each past the first: the rest are free 429s", async () => {
    const { key, userId } = newKey(100);
    const body = Array.from({ length: BURST + 2 }, () => "/stocks/DWGT/profile").join("\n");
    const res = await fetch(`${url}/echo`, {
      method: "POST",
      body,
      headers: { authorization: `Bearer ${key}` },
    });
    const { statuses } = (await res.json()) as { statuses: number[] };
    // The door call's own token covers the first; BURST - 1 tokens are left for the others.
    expect(statuses.filter((s) => s === 200)).toHaveLength(BURST);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    expect(accounts.getBalance(userId)).toBe(100 - BURST);
    const next = await fetch(`${url}/stocks/DWGT/profile`, { headers: { authorization: `Bearer ${key}` } });
    expect(next.status).toBe(429);
  });

  test("run on the door call's in-flight place until its answer is whole", async () => {
    const { key } = newKey(100);
    const headers = { authorization: `Bearer ${key}` };
    streaming = Promise.withResolvers<void>();
    proceed = Promise.withResolvers<void>();
    const door = fetch(`${url}/stream`, { method: "POST", body: "/stocks/DWGT/profile", headers });
    await streaming.promise;
    // The door has answered its headers' worth, but its stream still runs: the key's one place is taken.
    const during = await fetch(`${url}/stocks/DWGT/profile`, { headers });
    expect(during.status).toBe(429);
    expect(((await during.json()) as { detail: string }).detail).toContain("in flight");
    proceed.resolve();
    const answer = await door;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ status: 200 });
    const after = await fetch(`${url}/stocks/DWGT/profile`, { headers });
    expect(after.status).toBe(200);
  });

  test("are refunded when the door's handler throws after them", async () => {
    const { key, userId } = newKey(10);
    const res = await fetch(`${url}/fail`, {
      method: "POST",
      body: "/stocks/DWGT/profile\n/stocks/DWGT/profile",
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const { rows, balance } = usage(userId);
    expect(balance).toBe(10);
    expect(rows.filter((r) => r.reason === "usage")).toHaveLength(2);
    expect(rows.reduce((sum, r) => sum + r.delta, 0)).toBe(0);
    // Its place was given back with the 500.
    expect(
      (await fetch(`${url}/stocks/DWGT/profile`, { headers: { authorization: `Bearer ${key}` } })).status,
    ).toBe(200);
  });

  test("are refunded when their answer cannot be read (an export whose file is gone)", async () => {
    const { key, userId } = newKey(10);
    const snapshot = snapshots.acquire();
    if (!snapshot) throw new Error("no active snapshot");
    const entry = snapshot.manifest.tables.insider_trades;
    if (!entry) throw new Error("the demo snapshot has no insider_trades table");
    const file = join(snapshot.dir, entry.file);
    snapshot.release();
    renameSync(file, `${file}.away`);
    try {
      const res = await fetch(`${url}/echo`, {
        method: "POST",
        body: "/exports/insider_trades.parquet",
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ length: 31, statuses: [500] });
    } finally {
      renameSync(`${file}.away`, file);
    }
    expect(usage(userId).balance).toBe(10);
  });
});

describe("a door's request body", () => {
  /** Sends a request head promising `length` bytes, then `send` of them; resolves with the answer and when it came. */
  function slowBody(send: (socket: ReturnType<typeof connect>) => void) {
    return new Promise<{ head: string; ms: number; closed: boolean }>((resolve, reject) => {
      const socket = connect(Number(new URL(url).port), "127.0.0.1");
      const started = performance.now();
      let got = "";
      socket.on("data", (data) => {
        got += data.toString();
      });
      socket.on("error", reject);
      socket.on("close", () => resolve({ head: got, ms: performance.now() - started, closed: true }));
      socket.on("connect", () => {
        socket.write("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 200\r\n\r\n");
        send(socket);
      });
    });
  }

  test("must arrive whole within 10 s, stalled or trickled: then a 408 and the connection closes", async () => {
    const [stalled, trickled] = await Promise.all([
      slowBody(() => {}),
      slowBody((socket) => {
        const drip = setInterval(() => (socket.writable ? socket.write("x") : clearInterval(drip)), 500);
        socket.on("close", () => clearInterval(drip));
      }),
    ]);
    for (const { head, ms, closed } of [stalled, trickled]) {
      expect(head).toStartWith("HTTP/1.1 408");
      expect(head.toLowerCase()).toContain("connection: close");
      expect(closed).toBe(true);
      expect(ms).toBeGreaterThan(9_000);
      expect(ms).toBeLessThan(20_000);
    }
  }, 40_000);
});

describe("every other path keeps the REST API's rules", () => {
  test("POST is a 405 allowing GET and HEAD; a chunked body is a 413", async () => {
    const { key } = newKey(10);
    const res = await fetch(`${url}/stocks/DWGT/profile`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    expect(await chunked("/stocks/DWGT/profile", key, ["x"])).toBe(413);
    expect(await chunked("/echo-not", key, ["x"])).toBe(413);
  });
});
