/** Another complete snapshot made in a moment: a copy of one under a later id (tests and bench/snapshot-follow.ts). */
import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { newSnapshotId, readManifest, snapshotDir } from "../../src/snapshot/store.ts";

/** Copies snapshot `from` of `dataDir` to a new id dated `secondsLater` from now (ids sort by date); returns the id. */
export function cloneSnapshot(dataDir: string, from: string, secondsLater: number): string {
  const id = newSnapshotId(new Date(Date.now() + secondsLater * 1000));
  cpSync(snapshotDir(dataDir, from), snapshotDir(dataDir, id), { recursive: true });
  const manifest = { ...readManifest(dataDir, from), id };
  writeFileSync(join(snapshotDir(dataDir, id), "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  return id;
}
