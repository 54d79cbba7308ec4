import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../../src/index.ts";
import { readCurrent } from "../../src/snapshot/store.ts";
import { cli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/env.ts";
import { useDemoServer } from "../helpers/server.ts";

const server = useDemoServer();

/** `stockd backup --json` through `main`, over the server's data dir. */
async function backup(to: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
  const code = await main(["backup", "--to", to, "--json", "--data-dir", server.dataDir], io, {});
  return { code, out: out.join(""), err: err.join("\n") };
}

/** Balance and ledger sum per user in a database file. */
function balances(path: string): Map<string, { balance: number; ledger: number }> {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db
      .query(
        `SELECT u.id, u.balance, (SELECT coalesce(sum(delta), 0) FROM ledger l WHERE l.user_id = u.id) AS ledger
         FROM users u`,
      )
      .all() as { id: string; balance: number; ledger: number }[];
    return new Map(rows.map((r) => [r.id, { balance: r.balance, ledger: r.ledger }]));
  } finally {
    db.close();
  }
}

function integrity(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    return (db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
  } finally {
    db.close();
  }
}

describe("stockd backup", () => {
  test("a copy taken while serving passes integrity_check and holds the same balances", async () => {
    const users = [server.newKey(20), server.newKey(20), server.newKey(20)];
    for (const [i, { key }] of users.entries())
      for (let n = 0; n <= i; n++) expect((await server.get("/stocks/DWGT/profile", key)).status).toBe(200);
    const to = join(tempDir(), "nightly");
    const { code, out, err } = await backup(to);
    expect(code, err).toBe(0);
    const result = JSON.parse(out);
    expect(result).toMatchObject({ path: join(to, "accounts.db"), snapshot_id: readCurrent(server.dataDir) });
    expect(result.users).toBeGreaterThanOrEqual(3);
    expect(integrity(result.path)).toBe("ok");
    const copy = balances(result.path);
    for (const [i, { userId }] of users.entries()) {
      expect(copy.get(userId), `user ${i}`).toEqual({ balance: 20 - (i + 1), ledger: 20 - (i + 1) });
      expect(server.accounts.getBalance(userId)).toBe(20 - (i + 1));
    }
    // The server keeps serving, and the copy does not follow it.
    expect((await server.get("/stocks/DWGT/profile", users[0]?.key)).status).toBe(200);
    expect(balances(result.path).get(users[0]?.userId as string)?.balance).toBe(19);
  });

  test("a copy taken from another process during a stream of debits is consistent", async () => {
    const credits = 1_000_000; // more than the calls made while the child runs
    const { key, userId } = server.newKey(credits);
    const to = join(tempDir(), "under-load");
    let calls = 0;
    let stop = false;
    const load = (async () => {
      while (!stop) {
        const res = await server.get("/stocks/DWGT/profile", key);
        expect(res.status).toBe(200);
        calls++;
      }
    })();
    while (calls < 5) await Bun.sleep(5);
    const child = await cli(["backup", "--to", to, "--json"], { dataDir: server.dataDir });
    stop = true;
    await load;
    expect(child.code, child.stderr).toBe(0);
    const path = join(to, "accounts.db");
    expect(integrity(path)).toBe("ok");
    const copied = balances(path).get(userId);
    expect(copied?.balance, "balance = sum of ledger deltas in the copy").toBe(copied?.ledger as number);
    expect(copied?.balance, "the debits made before the backup started").toBeLessThanOrEqual(credits - 5);
    expect(copied?.balance).toBeGreaterThanOrEqual(credits - calls);
  });

  test("refuses to overwrite an existing backup", async () => {
    const to = join(tempDir(), "once");
    expect((await backup(to)).code).toBe(0);
    const before = readFileSync(join(to, "accounts.db"));
    const again = await backup(to);
    expect(again.code).toBe(2);
    expect(again.err).toContain(`${join(to, "accounts.db")} exists; refusing to overwrite it`);
    expect(readFileSync(join(to, "accounts.db")).equals(before)).toBe(true);
  });

  test("a data dir without an accounts database is refused", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
    const code = await main(["backup", "--to", tempDir(), "--data-dir", tempDir()], io, {});
    expect(code).toBe(2);
    expect(err.join("")).toContain("no accounts database");
  });
});
