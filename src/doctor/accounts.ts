import { existsSync } from "node:fs";
import { type AccountsInspection, inspectAccountsDb } from "../accounts/maintenance.ts";
import { capped, type Finding, fail, ok, warn } from "./findings.ts";

/** Problems listed per kind before "... and N more". */
const MAX_LISTED = 20;

/** The accounts database: schema version, integrity, every balance and the daily usage against the ledger. */
export function checkAccounts(path: string): Finding[] {
  if (!existsSync(path))
    return [
      warn("accounts", `no accounts database at ${path} yet (the first "serve" or "users create" makes it)`),
    ];
  let report: AccountsInspection;
  try {
    report = inspectAccountsDb(path);
  } catch (error) {
    return [fail("accounts", `${path}: cannot be read as SQLite: ${(error as Error).message}`)];
  }
  const findings = [...schemaFindings(path, report), ...consistencyFindings(path, report)];
  if (findings.some((f) => f.status === "fail")) return findings;
  return [
    ...findings,
    ok(
      "accounts",
      `${path}: integrity ok; ${report.users} users, every balance equals the sum of its ledger, none negative; daily usage equals the ledger`,
    ),
  ];
}

function schemaFindings(path: string, report: AccountsInspection): Finding[] {
  const { schema_version: found, expected_schema_version: expected } = report;
  if (found > expected)
    return [
      fail(
        "accounts",
        `${path}: schema version ${found} is newer than this stockd's ${expected} (a downgrade?)`,
      ),
    ];
  if (found < expected)
    return [
      warn("accounts", `${path}: schema version ${found}; the next start migrates it forward to ${expected}`),
    ];
  return [];
}

function consistencyFindings(path: string, report: AccountsInspection): Finding[] {
  return [
    ...capped(report.integrity_errors, MAX_LISTED, (e) => `${path}: integrity: ${e}`),
    ...capped(
      report.ledger_mismatches,
      MAX_LISTED,
      (m) => `user ${m.user_id} (${m.email}): balance ${m.balance} but ledger deltas sum to ${m.ledger_sum}`,
    ),
    ...capped(
      report.negative_balances,
      MAX_LISTED,
      (n) => `user ${n.user_id} (${n.email}): negative balance ${n.balance}`,
    ),
    ...capped(
      report.usage_mismatches,
      MAX_LISTED,
      (u) =>
        `user ${u.user_id}: daily usage of ${u.endpoint || "(no endpoint)"} on ${u.day} is ${u.usage_calls} calls, ` +
        `${u.usage_credits} credits, but the ledger has ${u.ledger_calls} calls, ${u.ledger_credits} credits`,
    ),
  ].map((message) => fail("accounts", message));
}
