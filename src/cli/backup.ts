import { join, resolve } from "node:path";
import { backupAccountsDb } from "../accounts/maintenance.ts";
import type { Config } from "../config.ts";
import { readCurrent } from "../snapshot/store.ts";
import { accountsDbPath } from "./accounts.ts";
import { Flags, type Io, type ParsedArgs, printResult, UsageError } from "./args.ts";

/** The file a backup writes inside `--to DIR`: restoring is copying it back into the data dir. */
const BACKUP_FILE = "accounts.db";

/**
 * `backup --to DIR [--json]`: a consistent copy of the accounts database, safe while a server
 * is running, and the id of the active snapshot (snapshots are immutable files: back up the
 * data dir's `snapshots/` with any file copy). Never overwrites an existing file. Accounts on
 * PostgreSQL are backed up with its own tools (pg_dump).
 */
export function backupCommand(args: ParsedArgs, config: Config, io: Io): number {
  const flags = new Flags(args, ["to"]);
  if (config.accountsUrl !== null)
    throw new UsageError(
      "the accounts are in PostgreSQL (accounts_url is set): back them up with pg_dump; this command copies the SQLite accounts file",
    );
  const dest = join(resolve(flags.required("to")), BACKUP_FILE);
  const outcome = backupAccountsDb(accountsDbPath(config), dest);
  if (!outcome.ok) {
    if (outcome.code === "bad_copy") {
      io.err(`stockd: backup failed: ${outcome.message}`);
      return 1;
    }
    throw new UsageError(outcome.message);
  }
  const snapshotId = readCurrent(config.dataDir);
  const result = { ...outcome.value, snapshot_id: snapshotId, created_at: new Date().toISOString() };
  printResult(io, flags.bool("json"), result, [
    `backed up ${result.users} users to ${result.path} (${result.bytes} bytes); active snapshot: ${snapshotId ?? "none"}`,
  ]);
  return 0;
}
