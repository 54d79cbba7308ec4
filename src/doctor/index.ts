import { statSync } from "node:fs";
import { join } from "node:path";
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

/** Where the accounts are: the shared PostgreSQL database when its URL is set, else the data dir's SQLite file. */
export interface DoctorAccounts {
  url: string | null;
  timeoutMs: number;
}

/**
 * Checks an installation without changing it: the data dir, the active snapshot's files
 * against its manifest, leftover staging dirs, and the accounts database (SQLite or
 * PostgreSQL). Healthy when nothing failed (warnings do not count).
 */
export async function runDoctor(dataDir: string, accounts: DoctorAccounts): Promise<DoctorReport> {
  const findings = checkDataDir(dataDir);
  if (statSync(dataDir, { throwIfNoEntry: false })?.isDirectory())
    findings.push(...(await checkActiveSnapshot(dataDir)), ...checkStaging(dataDir));
  if (accounts.url !== null) findings.push(...(await checkPgAccounts(accounts.url, accounts.timeoutMs)));
  else if (statSync(dataDir, { throwIfNoEntry: false })?.isDirectory())
    findings.push(...checkAccounts(join(dataDir, "accounts.db")));
  return { healthy: findings.every((f) => f.status !== "fail"), data_dir: dataDir, findings };
}
