import { Database } from "bun:sqlite";
import { beforeAll, describe, expect, test } from "bun:test";
import {
  closeSync,
  mkdirSync,
  openSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { DoctorReport } from "../../src/doctor/index.ts";
import { main } from "../../src/index.ts";
import { readCurrent, readManifest, snapshotDir } from "../../src/snapshot/store.ts";
import { tempDir } from "../helpers/env.ts";
import { demoDataDir, openAccounts } from "../helpers/server.ts";

/** `stockd doctor --json` over `dataDir`: the exit code and the report. */
async function doctor(dataDir: string): Promise<{ code: number; report: DoctorReport }> {
  const out: string[] = [];
  const code = await main(
    ["doctor", "--json", "--data-dir", dataDir],
    { out: (t) => out.push(t), err: () => {} },
    {},
  );
  return { code, report: JSON.parse(out.join("")) as DoctorReport };
}

const failures = (report: DoctorReport) =>
  report.findings.filter((f) => f.status === "fail").map((f) => f.message);

/** A demo data dir with one user who has spent some credits. */
async function healthyDataDir(): Promise<{ dir: string; userId: string }> {
  const dir = await demoDataDir();
  const store = openAccounts(dir);
  try {
    const user = store.createUser("doctor@example.test", 50);
    if (!user.ok) throw new Error(user.message);
    const { info } = store.createKey(user.value.id, null, null);
    store.commitDebits([
      { userId: user.value.id, keyId: info.id, cost: 2, endpoint: "profile", requestId: "r1" },
    ]);
    return { dir, userId: user.value.id };
  } finally {
    store.close();
  }
}

/** The path of one of the active snapshot's table files. */
function tableFile(dir: string, table = "prices"): string {
  const id = readCurrent(dir) as string;
  const entry = readManifest(dir, id).tables[table as "prices"];
  if (!entry) throw new Error(`the demo snapshot has no ${table} table`);
  return join(snapshotDir(dir, id), entry.file);
}

beforeAll(async () => {
  await demoDataDir(); // builds the shared demo template once, within this hook's timeout
}, 120_000);

describe("stockd doctor", () => {
  test("a healthy installation exits 0 with every check ok", async () => {
    const { dir } = await healthyDataDir();
    const { code, report } = await doctor(dir);
    expect(failures(report)).toEqual([]);
    expect(code).toBe(0);
    expect(report.healthy).toBe(true);
    const checks = new Set(report.findings.filter((f) => f.status === "ok").map((f) => f.check));
    expect([...checks].sort()).toEqual(["accounts", "data_dir", "snapshot", "staging"]);
  });

  test("flipped bytes in a Parquet file: exit 1 naming the file", async () => {
    const { dir } = await healthyDataDir();
    const file = tableFile(dir);
    const fd = openSync(file, "r+");
    const middle = Math.floor(statSync(file).size / 2);
    const bytes = Buffer.alloc(4);
    readSync(fd, bytes, 0, 4, middle);
    writeSync(
      fd,
      bytes.map((b) => b ^ 0xff),
      0,
      4,
      middle,
    );
    closeSync(fd);
    const { code, report } = await doctor(dir);
    expect(code).toBe(1);
    expect(failures(report)).toEqual([expect.stringContaining(`${file}: sha256`)]);
  });

  test("a missing table file is named", async () => {
    const { dir } = await healthyDataDir();
    const file = tableFile(dir, "securities");
    rmSync(file);
    const { code, report } = await doctor(dir);
    expect(code).toBe(1);
    expect(failures(report)).toEqual([`${file}: missing (table securities)`]);
  });

  test("no active snapshot is a failure", async () => {
    const { dir } = await healthyDataDir();
    rmSync(join(dir, "CURRENT"));
    const { code, report } = await doctor(dir);
    expect(code).toBe(1);
    expect(failures(report)).toEqual([expect.stringContaining("no active snapshot")]);
  });

  test("a ledger row written behind the store's back is reported as a balance mismatch", async () => {
    const { dir, userId } = await healthyDataDir();
    const db = new Database(join(dir, "accounts.db"));
    db.query(
      "INSERT INTO ledger (user_id, delta, reason, created_at) VALUES (?, 7, 'tampered', '2024-01-01T00:00:00Z')",
    ).run(userId);
    db.close();
    const { code, report } = await doctor(dir);
    expect(code).toBe(1);
    expect(failures(report)).toEqual([
      `user ${userId} (doctor@example.test): balance 48 but ledger deltas sum to 55`,
    ]);
  });

  test("a daily usage row that disagrees with the ledger is reported with its day and endpoint", async () => {
    const { dir, userId } = await healthyDataDir();
    const db = new Database(join(dir, "accounts.db"));
    const { day } = db.query("SELECT day FROM usage_daily WHERE user_id = ?").get(userId) as { day: string };
    db.query("UPDATE usage_daily SET calls = calls + 1 WHERE user_id = ?").run(userId);
    db.close();
    const { code, report } = await doctor(dir);
    expect(code).toBe(1);
    expect(failures(report)).toEqual([
      `user ${userId}: daily usage of profile on ${day} is 2 calls, 2 credits, but the ledger has 1 calls, 2 credits`,
    ]);
  });

  test("a corrupt page in the accounts database fails the integrity check", async () => {
    const { dir } = await healthyDataDir();
    const path = join(dir, "accounts.db");
    const store = openAccounts(dir);
    for (let i = 0; i < 200; i++) store.createUser(`filler${i}@example.test`, 1);
    store.close(); // the last connection checkpoints the WAL into the file
    const fd = openSync(path, "r+");
    writeSync(fd, Buffer.alloc(64, 0xff), 0, 64, 2 * 4096 + 8); // inside page 3
    closeSync(fd);
    const { code, report } = await doctor(dir);
    expect(code).toBe(1);
    expect(failures(report)).toEqual([`${path}: integrity: database disk image is malformed`]);
  });

  test("a file that is not SQLite at all is reported", async () => {
    const { dir } = await healthyDataDir();
    const path = join(dir, "accounts.db");
    for (const suffix of ["-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    writeFileSync(path, "this is not a database, just some text that is long enough");
    const { code, report } = await doctor(dir);
    expect(code).toBe(1);
    expect(failures(report)).toEqual([expect.stringContaining(`${path}: cannot be read as SQLite`)]);
  });

  test("a leftover staging dir is a warning, not a failure", async () => {
    const { dir } = await healthyDataDir();
    mkdirSync(join(dir, "snapshots", ".staging-20240101T000000Z-abcdef"));
    const { code, report } = await doctor(dir);
    expect(code).toBe(0);
    expect(report.findings.filter((f) => f.status === "warn")).toEqual([
      expect.objectContaining({
        check: "staging",
        message: expect.stringContaining(".staging-20240101T000000Z-abcdef"),
      }),
    ]);
  });

  test("a data dir that does not exist fails at once", async () => {
    const dir = join(tempDir(), "nope");
    const { code, report } = await doctor(dir);
    expect(code).toBe(1);
    expect(failures(report)).toEqual([`data dir ${dir} does not exist`]);
  });

  test("without --json it prints one line per finding and a verdict", async () => {
    const { dir } = await healthyDataDir();
    const out: string[] = [];
    const code = await main(["doctor", "--data-dir", dir], { out: (t) => out.push(t), err: () => {} }, {});
    expect(code).toBe(0);
    expect(out.at(-1)).toBe("healthy");
    expect(out[0]).toStartWith("ok    data dir ");
  });
});
