/**
 * Users and keys for the run (through the CLI, as an operator would create them) and the
 * billing check afterwards: for every key, credits charged = 2xx responses × cost, by the CLI
 * (`credits show`) and by the ledger, whose rows must also sum to the balance.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { cliJson } from "../../test/helpers/cli.ts";

export interface BenchKey {
  email: string;
  userId: string;
  key: string;
  credits: number;
}

/** One user per key, each with `credits`. */
export async function createKeys(
  root: string,
  dataDir: string,
  count: number,
  credits: number,
): Promise<BenchKey[]> {
  const keys: BenchKey[] = [];
  for (let i = 0; i < count; i++) {
    const email = `bench-${i + 1}@bench.invalid`;
    const opts = { root, cwd: root, dataDir };
    const user = await cliJson<{ id: string }>(
      ["users", "create", "--email", email, "--credits", String(credits)],
      opts,
    );
    const key = await cliJson<{ key: string }>(["keys", "create", "--user", email, "--name", "bench"], opts);
    keys.push({ email, userId: user.id, key: key.key, credits });
  }
  return keys;
}

/** 2xx responses per key and endpoint, over the whole run. */
export class Tally {
  private readonly ok = new Map<string, number>();

  add(keyIndex: number, endpoint: string, count: number): void {
    const id = `${keyIndex}|${endpoint}`;
    this.ok.set(id, (this.ok.get(id) ?? 0) + count);
  }

  /** Credits the key should have been charged, and its number of billed (cost > 0) 2xx responses. */
  expected(keyIndex: number, cost: (endpoint: string) => number): { calls: number; credits: number } {
    let calls = 0;
    let credits = 0;
    for (const [id, count] of this.ok) {
      const [k, endpoint] = id.split("|") as [string, string];
      if (Number(k) !== keyIndex || cost(endpoint) === 0) continue;
      calls += count;
      credits += count * cost(endpoint);
    }
    return { calls, credits };
  }
}

export interface BillingLine {
  email: string;
  calls: number;
  expected: number;
  /** Initial credits minus the balance `credits show` reports. */
  charged: number;
  reserved: number;
  /** Credits of the ledger's usage rows, and their number. */
  ledgerUsage: number;
  ledgerRows: number;
  /** The ledger's rows summed, against the balance. */
  ledgerSum: number;
  balance: number;
  ok: boolean;
}

/** Compares, per key, what was charged with what the load generator saw succeed. */
export async function checkBilling(
  root: string,
  dataDir: string,
  keys: readonly BenchKey[],
  tally: Tally,
  cost: (endpoint: string) => number,
): Promise<BillingLine[]> {
  const db = new Database(join(dataDir, "accounts.db"), { readonly: true });
  try {
    const lines: BillingLine[] = [];
    for (const [i, k] of keys.entries())
      lines.push(await billingLine(root, dataDir, db, k, tally.expected(i, cost)));
    return lines;
  } finally {
    db.close();
  }
}

async function billingLine(
  root: string,
  dataDir: string,
  db: Database,
  key: BenchKey,
  expected: { calls: number; credits: number },
): Promise<BillingLine> {
  const shown = await cliJson<{ balance: number; reserved: number }>(
    ["credits", "show", "--user", key.email],
    {
      root,
      cwd: root,
      dataDir,
    },
  );
  const ledger = db
    .query<{ total: number; usage: number; rows: number }, [string]>(
      `SELECT coalesce(sum(delta), 0) AS total,
              coalesce(-sum(CASE WHEN reason = 'usage' THEN delta END), 0) AS usage,
              count(CASE WHEN reason = 'usage' THEN 1 END) AS rows
       FROM ledger WHERE user_id = ?`,
    )
    .get(key.userId) ?? { total: 0, usage: 0, rows: 0 };
  const charged = key.credits - shown.balance;
  return {
    email: key.email,
    calls: expected.calls,
    expected: expected.credits,
    charged,
    reserved: shown.reserved,
    ledgerUsage: ledger.usage,
    ledgerRows: ledger.rows,
    ledgerSum: ledger.total,
    balance: shown.balance,
    ok:
      charged === expected.credits &&
      ledger.usage === expected.credits &&
      ledger.rows === expected.calls &&
      ledger.total === shown.balance &&
      shown.reserved === 0,
  };
}
