/**
 * The data dir's leftovers (src/snapshot/store.ts): what an interrupted import or pull left is
 * removed at the next start, also when that start has the same pid (stockd is PID 1 in a
 * container after every restart), and what this process is writing now is kept.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanStaging, stagingName } from "../../src/snapshot/store.ts";
import { tempDir } from "../helpers/env.ts";

test("staging folders and CURRENT temp files of this pid are removed unless this process named them", () => {
  const dataDir = tempDir("stockd-staging-");
  const snapshots = join(dataDir, "snapshots");
  const leftover = join(snapshots, `.staging-20260101T000000Z-aaaaaa-${process.pid}`);
  const inUse = join(snapshots, stagingName("20260101T000000Z-bbbbbb"));
  const tmp = join(dataDir, `CURRENT.${process.pid}.tmp`);
  mkdirSync(leftover, { recursive: true });
  mkdirSync(inUse, { recursive: true });
  writeFileSync(tmp, "20260101T000000Z-aaaaaa\n");
  cleanStaging(dataDir);
  expect(existsSync(leftover)).toBe(false);
  expect(existsSync(tmp)).toBe(false);
  expect(existsSync(inUse)).toBe(true);
});
