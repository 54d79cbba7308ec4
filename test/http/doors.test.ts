/**
 * A door (src/http/doors.ts) over the real transport: its methods and bounded body, its gate,
 * its REST calls billed like the REST API's; every other path keeps the REST API's rules.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { request as httpRequest } from "node:http";
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

const LIMIT = 64;

/** Echoes the body's length and, asked for it in the body, serves a REST path in the caller's name. */
function echoDoor(billing: Billing): Door {
  return {
    name: "echo",
    matches: (path) => path === "/echo",
    methods: ["POST"],
    maxBodyBytes: LIMIT,
    gate: {
      key: (presented, now) => billing.authenticate(presented, now),
      refusal: () =>
        new ApiError("unauthorized", "a key is needed", undefined, {
          "www-authenticate": 'Bearer realm="echo"',
        }),
    },
    async handle({ call, rest }) {
      const text = await call.request.text();
      const answer = text.startsWith("/") ? await rest(text, "door:echo") : null;
      return Response.json({ length: text.length, status: answer?.status ?? null });
    },
  };
}

let url = "";
let accounts: AccountsStore;
let stop: () => Promise<void>;

beforeAll(async () => {
  const dataDir = await demoDataDir();
  const log = createLogger("silent");
  accounts = AccountsStore.open(join(dataDir, "accounts.db"));
  const billing = new Billing(accounts, 200);
  const instance = await openDuckDb();
  const snapshots = new SnapshotService(instance, dataDir, log);
  await snapshots.refresh();
  const app = createApp({
    accounts,
    billing,
    snapshots,
    log,
    version: "test",
    limits: limits(),
    doors: [echoDoor(billing)],
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
    expect(await chunked("/echo", key, ["x".repeat(30), "y".repeat(30)])).toBe(200);
  });

  test("refuses a larger body with 413, by its stated length or as it arrives", async () => {
    const { key } = newKey(10);
    const res = await fetch(`${url}/echo`, {
      method: "POST",
      body: "x".repeat(LIMIT + 1),
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(413);
    expect(await chunked("/echo", key, ["x".repeat(40), "y".repeat(40)])).toBe(413);
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
    expect(await first.json()).toEqual({ length: 20, status: 200 });
    const second = await fetch(`${url}/echo`, { method: "POST", body: "/stocks/DWGT/profile", headers });
    expect(await second.json()).toEqual({ length: 20, status: 402 });
    expect(accounts.getBalance(userId)).toBe(0);
    const rows = accounts.db
      .query<{ endpoint: string; delta: number }, [string]>(
        "SELECT endpoint, delta FROM ledger WHERE user_id = ? AND reason = 'usage'",
      )
      .all(userId);
    expect(rows).toEqual([{ endpoint: "door:echo", delta: -1 }]);
  });
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
