/**
 * Reproducible answers: a call that pins a snapshot (`?snapshot=ID`, the id an earlier answer's
 * X-Snapshot-Id gave) gets that snapshot's answer byte for byte after a newer import, on the
 * fast path and through Elysia; a pin that is no id is a 400 and one not on disk a 404, and
 * neither costs anything.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeDemoSources } from "../../src/demo/index.ts";
import { importSources } from "../../src/ingest/pipeline/import.ts";
import { tempDir } from "../helpers/env.ts";
import { demoDataDir, startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer(await demoDataDir(), { pollMs: 100 });
  key = server.newKey(1_000).key;
});
afterAll(() => server.stop());

const PATHS = [
  // The fast path, Elysia, and a heavy (DuckDB) route.
  `/stocks/DWGT/price?start_date=2020-01-01&end_date=${new Date().toISOString().slice(0, 10)}`,
  "/securities/DWGT/quote",
  "/stocks/DWGT/income-statement?period_type=quarterly&limit=4",
];

async function answer(path: string): Promise<{ status: number; snapshot: string | null; body: string }> {
  const res = await server.get(path, key);
  return { status: res.status, snapshot: res.headers.get("x-snapshot-id"), body: await res.text() };
}

async function balance(): Promise<number> {
  const res = await server.get("/account", key);
  return ((await res.json()) as { credits_remaining: number }).credits_remaining;
}

test("a pinned call answers from its snapshot, byte for byte, after a newer one is activated", async () => {
  const first = server.snapshots.current()?.id as string;
  const before = await Promise.all(PATHS.map(answer));
  for (const a of before) expect([a.status, a.snapshot], a.body).toEqual([200, first]);

  // A newer import (the demo as generated on another day: other prices) becomes the active one.
  const src = tempDir();
  writeDemoSources(src, new Date("2025-01-15T12:00:00Z"));
  const next = (await importSources(src, server.dataDir)).id;
  for (let i = 0; i < 100 && server.snapshots.current()?.id !== next; i++) await Bun.sleep(50);
  expect(server.snapshots.current()?.id).toBe(next);

  const unpinned = await answer(PATHS[0] as string);
  expect(unpinned.snapshot).toBe(next);
  expect(unpinned.body).not.toBe(before[0]?.body);

  for (const [i, path] of PATHS.entries()) {
    const pinned = await answer(`${path}${path.includes("?") ? "&" : "?"}snapshot=${first}`);
    expect([pinned.status, pinned.snapshot], path).toEqual([200, first]);
    expect(pinned.body, path).toBe(before[i]?.body as string);
  }
});

test("a pin that is no snapshot id is a 400 naming the parameter, one not on disk a 404; neither is charged", async () => {
  const credits = await balance();
  const bad = await server.get("/stocks/DWGT/profile?snapshot=..%2F..%2Fetc", key);
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { detail: string }).detail).toContain("snapshot");
  const gone = await server.get("/stocks/DWGT/profile?snapshot=20000101T000000Z-abcdef", key);
  expect(gone.status).toBe(404);
  expect(((await gone.json()) as { detail: string }).detail).toContain("20000101T000000Z-abcdef");
  expect(gone.headers.get("x-credits-charged")).toBe("0");
  expect(await balance()).toBe(credits);
});

test("/openapi.json documents `snapshot` on the routes that read one", async () => {
  const doc = (await (await server.get("/openapi.json", null)).json()) as {
    paths: Record<string, Record<string, { parameters?: { name: string }[] }>>;
  };
  const names = (path: string) => (doc.paths[path]?.get?.parameters ?? []).map((p) => p.name);
  expect(names("/stocks/{symbol}/profile")).toContain("snapshot");
  expect(names("/stocks/{symbol}/income-statement")).toContain("snapshot");
  expect(names("/account")).not.toContain("snapshot");
});
