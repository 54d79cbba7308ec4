/**
 * A cursor names the snapshot its first page was read from: after a newer one is activated, its pages
 * still come from that snapshot, and say it is no longer the active one; a snapshot no longer
 * on disk is a free tool error that says so.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { argsDigest, type Columnar, encodeCursor, fromColumnar } from "../../src/mcp/output.ts";
import { activateSnapshot, newSnapshotId, snapshotDir } from "../../src/snapshot/store.ts";
import { demoDataDir, startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(await demoDataDir(), { pollMs: 100 });
}, 180_000);
afterAll(() => server.stop());

/** A second snapshot, the same files under a newer id (cheaper than a second import). */
function copySnapshot(dataDir: string, id: string): string {
  const next = newSnapshotId(new Date(Date.now() + 1000));
  cpSync(snapshotDir(dataDir, id), snapshotDir(dataDir, next), { recursive: true });
  const manifest = join(snapshotDir(dataDir, next), "manifest.json");
  writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, "utf8")), id: next }));
  return next;
}

interface Payload {
  data: Columnar;
  meta: { snapshot_id: string; snapshot_active: boolean; next_cursor: string | null; hint?: string };
  error?: { message: string };
}

test("pages after a newer snapshot is activated come from the cursor's snapshot, marked no longer active", async () => {
  const { key, userId } = server.newKey(100);
  const client = new Client({ name: "cursor-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  const args = { symbol: "DWGT", start_date: "1990-01-01", end_date: "2026-01-01" };
  const call = async (extra: Record<string, unknown>) => {
    const result = await client.callTool({ name: "get_prices", arguments: { ...args, ...extra } });
    return { isError: result.isError === true, payload: result.structuredContent as unknown as Payload };
  };
  try {
    const first = await call({});
    const snapshot = first.payload.meta.snapshot_id;
    expect(first.payload.meta.snapshot_active).toBe(true);
    expect(first.payload.meta.next_cursor).toBeTruthy();
    const pinned = `/stocks/DWGT/price?start_date=1990-01-01&end_date=2026-01-01&snapshot=${snapshot}`;

    const next = copySnapshot(server.dataDir, snapshot);
    activateSnapshot(server.dataDir, next);
    for (let i = 0; i < 100 && server.snapshots.current()?.id !== next; i++) await Bun.sleep(50);
    expect(server.snapshots.current()?.id).toBe(next);

    const second = await call({ cursor: first.payload.meta.next_cursor });
    expect(second.isError).toBe(false);
    expect(second.payload.meta.snapshot_id).toBe(snapshot);
    expect(second.payload.meta.snapshot_active).toBe(false);
    expect(second.payload.meta.hint).toContain("no longer the active one");
    const rest = (await (await server.get(pinned, key)).json()) as Record<string, unknown>[];
    const shown = first.payload.data.rows.length;
    expect(fromColumnar(second.payload.data)).toEqual(
      rest.slice(shown, shown + second.payload.data.rows.length),
    );

    // A cursor of a snapshot this server does not hold: a free error that says what to do.
    const before = server.accounts.getBalance(userId);
    const gone = encodeCursor({
      snapshot: "20000101T000000Z-abcdef",
      tool: "get_prices",
      args: argsDigest({ ...args, sampling: "daily" }),
      offset: 10,
    });
    const refused = await call({ cursor: gone });
    expect(refused.isError).toBe(true);
    expect(refused.payload.error?.message).toContain("no longer on this server");
    expect(server.accounts.getBalance(userId)).toBe(before);
  } finally {
    await client.close();
  }
});
