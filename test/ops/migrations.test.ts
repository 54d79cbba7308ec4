/** Forward migrations of the accounts database keep every row and every guarantee. */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { MIGRATIONS, openAccountsDb, SCHEMA_VERSION } from "../../src/accounts/db.ts";
import { tempDir } from "../helpers/env.ts";

describe("accounts migrations", () => {
  test("a version-2 ledger (AUTOINCREMENT) becomes a plain rowid table with the same rows, ids and guards, and its usage is summed by day", () => {
    const path = join(tempDir(), "accounts.db");
    const old = new Database(path, { create: true, strict: true });
    for (const sql of MIGRATIONS.slice(0, 2)) old.exec(sql);
    old.exec("PRAGMA user_version = 2");
    old.exec("INSERT INTO users (id, email, balance, created_at) VALUES ('u1', 'a@b.test', 7, '2026-01-01')");
    const insert = old.query(
      "INSERT INTO ledger (user_id, delta, reason, endpoint, request_id, created_at) VALUES ('u1', ?, ?, ?, ?, '2026-01-01')",
    );
    insert.run(10, "initial grant", null, null);
    insert.run(-2, "usage", "profile", "r1");
    insert.run(-1, "usage", "price", "r2");
    const before = old.query("SELECT * FROM ledger ORDER BY id").all();
    old.close();

    const db = openAccountsDb(path);
    try {
      expect((db.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(
        SCHEMA_VERSION,
      );
      expect(db.query("SELECT * FROM ledger ORDER BY id").all()).toEqual(before);
      const schema = (
        db.query("SELECT sql FROM sqlite_master WHERE name = 'ledger'").get() as { sql: string }
      ).sql;
      expect(schema).not.toMatch(/AUTOINCREMENT/i);
      expect(db.query("SELECT count(*) AS n FROM sqlite_sequence WHERE name = 'ledger'").get()).toEqual({
        n: 0,
      });
      db.query(
        "INSERT INTO ledger (user_id, delta, reason, created_at) VALUES ('u1', -1, 'usage', '2026-01-02')",
      ).run();
      expect(db.query("SELECT max(id) AS id FROM ledger").get()).toEqual({ id: 4 });
      expect(() => db.exec("UPDATE ledger SET delta = 5")).toThrow(/append-only/);
      expect(() => db.exec("DELETE FROM ledger")).toThrow(/append-only/);
      expect(() =>
        db.exec(
          "INSERT INTO ledger (user_id, delta, reason, created_at) VALUES ('nobody', -1, 'usage', 'x')",
        ),
      ).toThrow(/FOREIGN KEY/);
      // Migration 4: the usage rows, summed per user, UTC day and endpoint; no user index.
      expect(db.query("SELECT * FROM usage_daily ORDER BY endpoint").all()).toEqual([
        { user_id: "u1", day: "2026-01-01", endpoint: "price", calls: 1, credits: 1 },
        { user_id: "u1", day: "2026-01-01", endpoint: "profile", calls: 1, credits: 2 },
      ]);
      const indexes = db
        .query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ledger'")
        .all();
      expect(indexes).toEqual([]);
    } finally {
      db.close();
    }
  });
});
