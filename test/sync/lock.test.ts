/**
 * The sync lock (src/sync/lock.ts): a lock file naming this process's pid that this process
 * does not hold was left by an earlier process with the same pid (PID 1 in a container after
 * a restart), so it is stale; one this process holds is not.
 */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { acquireSyncLock, lockHolder, lockPath, SyncLockedError } from "../../src/sync/lock.ts";
import { tempDir } from "../helpers/env.ts";

test("a lock left with this pid is stale; the one this process takes is held", () => {
  const dataDir = tempDir("stockd-lock-");
  mkdirSync(dirname(lockPath(dataDir)), { recursive: true });
  writeFileSync(lockPath(dataDir), `${process.pid}\n`);
  expect(lockHolder(dataDir)).toBeNull();
  const lock = acquireSyncLock(dataDir);
  try {
    expect(lockHolder(dataDir)).toBe(process.pid);
    expect(() => acquireSyncLock(dataDir)).toThrow(SyncLockedError);
  } finally {
    lock.release();
  }
  expect(lockHolder(dataDir)).toBeNull();
});
