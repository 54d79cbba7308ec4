/**
 * One sync at a time per data dir: the SEC counts requests per user, and two runs writing one
 * mirror would race. The lock is a file created exclusively, holding the owner's pid; a lock
 * whose process is gone (a kill -9) is stale and taken over.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { isOtherProcessAlive } from "../processes.ts";
import { syncDir } from "./state.ts";

/** Another sync holds the data dir. */
export class SyncLockedError extends Error {
  override name = "SyncLockedError";
}

/** A held lock; `release` removes it. */
export interface SyncLock {
  release(): void;
}

export function lockPath(dataDir: string): string {
  return join(syncDir(dataDir), "lock");
}

/** Locks this process holds: another lock file of its pid was left by an earlier process with that pid (PID 1 in a container). */
const held = new Set<string>();

/** Takes the data dir's sync lock or throws SyncLockedError naming the holder. */
export function acquireSyncLock(dataDir: string): SyncLock {
  const path = lockPath(dataDir);
  mkdirSync(syncDir(dataDir), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      held.add(path);
      return {
        release: () => {
          held.delete(path);
          rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = lockHolder(dataDir);
      if (holder !== null)
        throw new SyncLockedError(`another sync (pid ${holder}) is running on this data dir`);
      rmSync(path, { force: true });
    }
  }
  throw new SyncLockedError("another sync took the lock at the same moment");
}

/** The pid of the live process holding the lock, or null (no lock, or a stale one). */
export function lockHolder(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(lockPath(dataDir), "utf8").trim());
  } catch {
    return null;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  if (pid === process.pid) return held.has(lockPath(dataDir)) ? pid : null;
  return isOtherProcessAlive(pid) ? pid : null;
}
