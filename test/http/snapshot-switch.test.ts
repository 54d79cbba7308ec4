import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeDemoSources } from "../../src/demo/index.ts";
import { main } from "../../src/index.ts";
import { importSources } from "../../src/ingest/pipeline/import.ts";
import { tempDir } from "../helpers/env.ts";
import { demoDataDir, startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(await demoDataDir(), { pollMs: 100 });
});
afterAll(() => server.stop());

const quiet = { out: () => {}, err: () => {} };

test("activating another snapshot under load switches without failing a request or a charge", async () => {
  const before = server.snapshots.current()?.id as string;
  const src = tempDir();
  writeDemoSources(src, new Date("2025-01-15T12:00:00Z"));
  const next = await importSources(src, server.dataDir, { activate: false });
  const { key, userId } = server.newKey(100_000);
  let stop = false;
  const statuses: number[] = [];
  const seen = new Set<string>();
  const seenPrices = new Set<string>();
  const today = new Date().toISOString().slice(0, 10);
  // Through Elysia (quote) and on the fast path (price, metrics: bodies held per snapshot).
  const paths = [
    "/securities/DWGT/quote",
    `/stocks/DWGT/price?start_date=2025-01-01&end_date=${today}`,
    "/stocks/DWGT/fundamental-metrics",
  ];
  let call = 0;
  const load = async () => {
    while (!stop) {
      const path = paths[call++ % paths.length] as string;
      const res = await server.get(path, key);
      statuses.push(res.status);
      const body = (await res.json()) as { quote?: { date: string } } | { date: string }[];
      if (Array.isArray(body)) seenPrices.add(body.at(-1)?.date ?? "none");
      else if (body.quote) seen.add(body.quote.date);
    }
  };
  const workers = Array.from({ length: 8 }, load);
  await Bun.sleep(300);
  expect(await main(["snapshots", "activate", next.id, "--data-dir", server.dataDir], quiet)).toBe(0);
  const deadline = Date.now() + 5000;
  while (server.snapshots.current()?.id !== next.id && Date.now() < deadline) await Bun.sleep(50);
  await Bun.sleep(300);
  stop = true;
  await Promise.all(workers);
  expect(server.snapshots.current()?.id).toBe(next.id);
  expect(next.id).not.toBe(before);
  expect(statuses.length).toBeGreaterThan(50);
  expect(statuses.every((s) => s === 200)).toBe(true);
  // Both snapshots answered: the old one's last date and the new one's (2025-01-14).
  expect(seen.has("2025-01-14")).toBe(true);
  expect(seen.size).toBe(2);
  expect(seenPrices.has("2025-01-14")).toBe(true);
  expect(seenPrices.size).toBe(2);
  expect(server.accounts.getBalance(userId)).toBe(100_000 - statuses.length);
});
