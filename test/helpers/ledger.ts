/**
 * Probes of a test server's ledger and accounts: what stands charged, that the ledger, the
 * balance and the daily usage agree, and that nothing stays reserved.
 */
import { expect } from "bun:test";
import type { TestServer } from "./server.ts";

export interface UsageRows {
  /** Number of `usage` ledger rows (one per charged call). */
  rows: number;
  /** Credits those rows debited. */
  credits: number;
  /** The request ids the rows name. */
  requestIds: string[];
}

/**
 * The user's `usage` rows in the ledger that no `refund` row took back (what stands charged),
 * read on the server's own connection.
 */
export function usageRows(server: Pick<TestServer, "accounts">, userId: string): UsageRows {
  const rows = server.accounts.db
    .query<{ delta: number; request_id: string }, { u: string }>(
      `SELECT delta, request_id FROM ledger d WHERE user_id = $u AND reason = 'usage'
         AND NOT EXISTS (SELECT 1 FROM ledger r
                         WHERE r.reason = 'refund' AND r.user_id = d.user_id AND r.request_id = d.request_id)
       ORDER BY id`,
    )
    .all({ u: userId });
  return {
    rows: rows.length,
    credits: rows.reduce((n, r) => n - r.delta, 0),
    requestIds: rows.map((r) => r.request_id),
  };
}

/**
 * balance = sum(ledger.delta) ≥ 0, the daily usage table equals the ledger's usage rows less
 * their refunds, by endpoint, and the expected balance when given. Returns the balance.
 */
export function expectLedgerConsistent(
  server: Pick<TestServer, "accounts">,
  userId: string,
  expected?: number,
): number {
  const balance = server.accounts.getBalance(userId) as number;
  expect(balance).toBeGreaterThanOrEqual(0);
  expect(server.accounts.ledgerSum(userId)).toBe(balance);
  const fromLedger = server.accounts.db
    .query(
      `SELECT d.endpoint, count(*) - count(r.request_id) AS calls, -sum(d.delta) - coalesce(sum(r.delta), 0) AS credits
       FROM ledger d LEFT JOIN ledger r
         ON r.reason = 'refund' AND r.user_id = d.user_id AND r.request_id = d.request_id
       WHERE d.user_id = ? AND d.reason = 'usage' GROUP BY d.endpoint HAVING calls > 0 ORDER BY d.endpoint`,
    )
    .all(userId);
  expect(server.accounts.usageSince(userId, "0000-01-01")).toEqual(fromLedger as never);
  if (expected !== undefined) expect(balance).toBe(expected);
  return balance;
}

interface AccountView {
  balance: number;
  reserved: number;
  available: number;
}

/** `GET /account` (free) with this key. */
export async function account(server: TestServer, key: string): Promise<AccountView> {
  const res = await server.get("/account", key);
  expect(res.status).toBe(200);
  return (await res.json()) as AccountView;
}

/**
 * Waits until no credits are held for the key's user (calls that were cut off still settle
 * their reservation once their handler ends); fails if some stay held.
 */
export async function expectNothingHeld(server: TestServer, key: string, withinMs = 3000): Promise<void> {
  const deadline = Date.now() + withinMs;
  let view = await account(server, key);
  while (view.reserved !== 0 && Date.now() < deadline) {
    await Bun.sleep(25);
    view = await account(server, key);
  }
  expect(view.reserved).toBe(0);
  expect(view.available).toBe(view.balance);
}
