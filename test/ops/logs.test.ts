import { expect, test } from "bun:test";
import { createLogger } from "../../src/log.ts";
import { useDemoServer } from "../helpers/server.ts";

const METRICS_TOKEN = "metrics-token-for-log-test-42";
const lines: string[] = [];
const server = useDemoServer({
  config: { metricsToken: METRICS_TOKEN },
  log: createLogger("debug", (line) => lines.push(line)),
});

test("request logs carry the key prefix but never the key or the metrics token", async () => {
  const { key } = server.newKey(1);
  const prefix = key.slice(3, 11);
  const calls = [
    server.get("/stocks/DWGT/profile", key), // 200, spends the only credit
    server.get("/stocks/DWGT/profile", key), // 402
    server.get("/stocks/NOSUCH/profile", key), // 404 (released)
    server.get("/no/such/route", key),
    server.get("/stocks/DWGT/profile", `${key}x`), // 401: a bad key is not logged either
    server.get("/metrics", METRICS_TOKEN),
    server.get("/metrics", key),
    server.get(`/securities/search?query=${key}`, key),
  ];
  for (const res of await Promise.all(calls)) await res.arrayBuffer();
  const log = lines.join("");
  const requests = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === "request");
  expect(requests.length, "one line per request").toBe(calls.length);
  expect(requests.filter((r) => r.key_prefix === prefix).length).toBeGreaterThanOrEqual(4);
  const first = requests.find((r) => r.status === 200 && r.route === "profile");
  expect(first).toMatchObject({ key_prefix: prefix, credits: 1, method: "GET" });
  expect(typeof first.ms).toBe("number");
  expect(first.request_id).toMatch(/^[0-9a-f-]{36}$/);
  // The secret part of the key: only its first 8 characters (the prefix) may appear.
  expect(log).not.toContain(key.slice(3, 20));
  expect(log).not.toContain(key.slice(-16));
  expect(log).not.toContain(METRICS_TOKEN);
});
