import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The shared real-data folder, or null (tests that need it are skipped with a notice). */
export const FIXTURES =
  process.env.STOCKD_FIXTURES && existsSync(process.env.STOCKD_FIXTURES) ? process.env.STOCKD_FIXTURES : null;
if (!FIXTURES) console.warn("STOCKD_FIXTURES is not set: tests on real SEC/price files are skipped");

const made: string[] = [];

/**
 * Removes every directory `tempDir` made. Run once after the whole test run (preload.ts): a
 * hook declared here would belong to the first test file that imports this module only, and
 * the directories of every later file (~7 MB each, ~270 a run) were left behind.
 */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A fresh temporary directory, removed after the test run. */
export function tempDir(prefix = "stockd-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/**
 * A source directory of copies of fixture files (STOCKD_FIXTURES): `files` maps each path in
 * the new directory to the fixture file copied there (the importer reads nothing outside its
 * source directory, so links to the fixtures would be refused).
 */
export function fixtureSources(prefix: string, files: Record<string, string>): string {
  const dir = tempDir(prefix);
  for (const [to, from] of Object.entries(files)) {
    mkdirSync(join(dir, to, ".."), { recursive: true });
    copyFileSync(join(FIXTURES ?? "", from), join(dir, to));
  }
  return dir;
}

/** Copies a directory tree into a fresh temporary directory. */
export function copyToTemp(source: string): string {
  const dir = tempDir();
  cpSync(source, dir, { recursive: true });
  return dir;
}
