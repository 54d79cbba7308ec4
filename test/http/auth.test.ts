import { describe, expect, test } from "bun:test";
import { main } from "../../src/index.ts";
import { useDemoServer } from "../helpers/server.ts";

const server = useDemoServer();

const quiet = { out: () => {}, err: () => {} };

/** The parts of a 401 that must not differ between kinds of bad key. */
async function shape(res: Response) {
  const body = (await res.json()) as Record<string, unknown>;
  delete body.request_id;
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    auth: res.headers.get("www-authenticate"),
    charged: res.headers.get("x-credits-charged"),
    body,
  };
}

describe("authentication", () => {
  test("missing, malformed, unknown, disabled and expired keys all get the same 401", async () => {
    const disabled = server.newKey(10);
    server.accounts.setKeyDisabled(disabled.keyId, true);
    const expired = server.newKey(10, { expiresAt: "2020-01-01T00:00:00.000Z" });
    const valid = server.newKey(10);
    const attempts: [string, Record<string, string>][] = [
      ["missing", {}],
      ["empty bearer", { authorization: "Bearer " }],
      ["wrong scheme", { authorization: `Basic ${valid.key}` }],
      ["not a key", { authorization: "Bearer hello" }],
      ["unknown", { authorization: `Bearer sk_${"A".repeat(43)}` }],
      ["disabled", { authorization: `Bearer ${disabled.key}` }],
      ["expired", { authorization: `Bearer ${expired.key}` }],
      ["sql", { authorization: "Bearer ' OR 1=1 --" }],
    ];
    const shapes = [];
    for (const [kind, headers] of attempts) {
      const res = await fetch(`${server.url}/stocks/DWGT/profile`, { headers });
      expect(res.status, kind).toBe(401);
      shapes.push(await shape(res));
    }
    for (const s of shapes) expect(s).toEqual(shapes[0] as (typeof shapes)[0]);
    expect(shapes[0]?.auth).toBe('Bearer realm="stockd", error="invalid_token"');
    expect(shapes[0]?.type).toBe("application/problem+json");
    expect(server.accounts.getBalance(disabled.userId)).toBe(10);
    expect(server.accounts.getBalance(expired.userId)).toBe(10);
  });

  test("a bad key is a 401 whatever the query says; a good key with a count not in digits is a free 400", async () => {
    const { key, userId } = server.newKey(10);
    const path = "/securities/DWGT/insider_tradings?limit=abc";
    for (const headers of [{}, { authorization: "Bearer sk_bogus" }] as Record<string, string>[]) {
      const res = await fetch(`${server.url}${path}`, { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
    }
    const bad = await server.get(path, key);
    expect(bad.status).toBe(400);
    expect((await bad.json()) as object).toMatchObject({ errors: [{ in: "query", name: "limit" }] });
    expect([bad.headers.get("x-credits-charged"), bad.headers.get("x-credits-remaining")]).toEqual([
      "0",
      "10",
    ]);
    // A public path takes no counts: its query is not checked.
    expect((await fetch(`${server.url}/health?page=x`)).status).toBe(200);
    expect(server.accounts.getBalance(userId)).toBe(10);
  });

  test("the scheme's case does not matter (RFC 9110): bearer and BEARER authenticate like Bearer", async () => {
    const { key, userId } = server.newKey(10);
    for (const scheme of ["bearer", "BEARER", "BeArEr"]) {
      const res = await fetch(`${server.url}/stocks/DWGT/profile`, {
        headers: { authorization: `${scheme} ${key}` },
      });
      expect(res.status, scheme).toBe(200);
    }
    expect(server.accounts.getBalance(userId)).toBe(7);
  });

  test("authenticated calls that are not charged carry X-Credits-Charged 0 and the credits left (400, 402, 404)", async () => {
    const { key } = server.newKey(1);
    const bad = await server.get("/stocks/DWGT/price?start_date=2024-02-30&end_date=2024-03-01", key);
    const unknown = await server.get("/stocks/NOSUCH/profile", key);
    for (const res of [bad, unknown]) {
      expect([
        res.status,
        res.headers.get("x-credits-charged"),
        res.headers.get("x-credits-remaining"),
      ]).toEqual([res.status, "0", "1"]);
    }
    expect([bad.status, unknown.status]).toEqual([400, 404]);
    expect((await server.get("/stocks/DWGT/profile", key)).status).toBe(200);
    const broke = await server.get("/stocks/DWGT/profile", key);
    expect([
      broke.status,
      broke.headers.get("x-credits-charged"),
      broke.headers.get("x-credits-remaining"),
    ]).toEqual([402, "0", "0"]);
  });

  test("a key disabled through the CLI stops working on the running server within 5 s, and enabling restores it", async () => {
    const { key, keyId } = server.newKey(100);
    expect((await server.get("/stocks/DWGT/profile", key)).status).toBe(200);
    expect(await main(["keys", "disable", keyId, "--data-dir", server.dataDir], quiet)).toBe(0);
    const deadline = Date.now() + 5000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      status = (await server.get("/stocks/DWGT/profile", key)).status;
      if (status === 200) await Bun.sleep(100);
    }
    expect(status).toBe(401);
    expect(await main(["keys", "enable", keyId, "--data-dir", server.dataDir], quiet)).toBe(0);
    await Bun.sleep(1200);
    expect((await server.get("/stocks/DWGT/profile", key)).status).toBe(200);
  });

  test("the database holds only key hashes, never a key", async () => {
    const { key } = server.newKey(1);
    const rows = server.accounts.db.query("SELECT * FROM api_keys").all() as Record<string, unknown>[];
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(key);
    expect(dump).not.toContain(key.slice(3));
    expect(rows.every((r) => typeof r.hash === "string" && /^[0-9a-f]{64}$/.test(r.hash))).toBe(true);
  });

  test("/health, /openapi.json and /docs need no key; everything else does", async () => {
    for (const path of ["/health", "/openapi.json", "/docs"])
      expect((await server.get(path)).status, path).toBe(200);
    for (const path of ["/account", "/securities/search?query=a", "/sec_filings"]) {
      expect((await server.get(path)).status, path).toBe(401);
    }
  });

  test("methods other than GET and HEAD get 405 with Allow, before any auth", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      const res = await fetch(`${server.url}/stocks/DWGT/profile`, { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("GET, HEAD");
      expect(((await res.json()) as { code: string }).code).toBe("method_not_allowed");
    }
  });

  test("HEAD answers like GET without a body, and is billed like GET", async () => {
    const { key, userId } = server.newKey(5);
    const res = await server.get("/stocks/DWGT/profile", key, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
    expect(server.accounts.getBalance(userId)).toBe(4);
  });
});
