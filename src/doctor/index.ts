import { statSync } from "node:fs";
import { join } from "node:path";
import type { PgConnection } from "../accounts/pg/accounts.ts";
import { checkAccounts } from "./accounts.ts";
import type { Finding } from "./findings.ts";
import { checkPgAccounts } from "./pg-accounts.ts";
import { checkActiveSnapshot, checkDataDir, checkStaging } from "./snapshot.ts";

export type { Finding } from "./findings.ts";

export interface DoctorReport {
  healthy: boolean;
  data_dir: string;
  findings: Finding[];
}

/**
 * Checks an installation without changing it: the data dir, the active snapshot's files
 * against its manifest, leftover staging dirs, and the accounts database: the data dir's
 * SQLite file, or the `shared` PostgreSQL one. Healthy when nothing failed (warnings do not
 * count).
 */
export async function runDoctor(dataDir: string, shared: PgConnection | null): Promise<DoctorReport> {
  const findings = checkDataDir(dataDir);
  if (statSync(dataDir, { throwIfNoEntry: false })?.isDirectory())
    findings.push(...(await checkActiveSnapshot(dataDir)), ...checkStaging(dataDir));
  if (shared !== null) findings.push(...(await checkPgAccounts(shared)));
  else if (statSync(dataDir, { throwIfNoEntry: false })?.isDirectory())
    findings.push(...checkAccounts(join(dataDir, "accounts.db")));
  return { healthy: findings.every((f) => f.status !== "fail"), data_dir: dataDir, findings };
}
