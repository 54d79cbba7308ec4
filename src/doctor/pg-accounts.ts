import { SQL } from "bun";
import type { PgConnection } from "../accounts/pg/accounts.ts";
import { Guard } from "../accounts/pg/guard.ts";
import { checkSchema, SchemaError } from "../accounts/pg/migrate.ts";
import { capped, type Finding, fail, ok, warn } from "./findings.ts";

/** Problems listed per kind before "... and N more". */
const MAX_LISTED = 20;

/** What a finding calls the database: its URL may hold a password, so it is never printed. */
const NAME = "the PostgreSQL accounts database (accounts_url)";

interface Mismatch {
  user_id: string;
  email: string;
  balance: number;
  other: number;
}

/**
 * The PostgreSQL accounts database (docs/scale-out.md), read only: reachable within the
 * accounts timeout, every migration this build needs applied with the same files, and the
 * books: every balance equal to the sum of its ledger, every `reserved` equal to the sum of
 * its reservations; reservations past their expiry are a warning (any serving replica sweeps
 * them within a second, so many of them mean that none is running).
 */
export async function checkPgAccounts(shared: PgConnection): Promise<Finding[]> {
  const sql = new SQL(shared.url, {
    max: 1,
    prepare: shared.prepare,
    connectionTimeout: Math.ceil(shared.timeoutMs / 1000),
  });
  try {
    // Each statement on the books has the accounts timeout: a database behind a stuck pooler
    // or a lock fails the check instead of hanging it.
    const guard = new Guard(shared.timeoutMs, 0);
    await guard.run(sql`SELECT 1`, "ping");
    await checkSchema(sql);
    const [balances, holds, expired, users] = await Promise.all([
      guard.run(
        sql`
        SELECT u.id AS user_id, u.email, u.balance::float8 AS balance, coalesce(l.s, 0)::float8 AS other
        FROM users u LEFT JOIN (SELECT user_id, sum(delta) AS s FROM ledger GROUP BY user_id) l
          ON l.user_id = u.id
        WHERE u.balance <> coalesce(l.s, 0) ORDER BY u.id`,
        "balances",
      ),
      guard.run(
        sql`
        SELECT u.id AS user_id, u.email, u.reserved::float8 AS balance, coalesce(r.s, 0)::float8 AS other
        FROM users u LEFT JOIN (SELECT user_id, sum(cost) AS s FROM reservations GROUP BY user_id) r
          ON r.user_id = u.id
        WHERE u.reserved <> coalesce(r.s, 0) ORDER BY u.id`,
        "holds",
      ),
      guard.run(sql`SELECT count(*)::int AS n FROM reservations WHERE expires_at < now()`, "expired"),
      guard.run(sql`SELECT count(*)::int AS n FROM users`, "users"),
    ]);
    const findings = [
      ...capped(
        balances as Mismatch[],
        MAX_LISTED,
        (m) => `user ${m.user_id} (${m.email}): balance ${m.balance} but ledger deltas sum to ${m.other}`,
      ),
      ...capped(
        holds as Mismatch[],
        MAX_LISTED,
        (m) =>
          `user ${m.user_id} (${m.email}): ${m.balance} credits held but its reservations sum to ${m.other}`,
      ),
    ].map((message) => fail("accounts", message));
    const stale = (expired[0] as { n: number }).n;
    if (stale > 0)
      findings.push(
        warn(
          "accounts",
          `${stale} reservation${stale === 1 ? "" : "s"} past expiry, not swept yet: is a replica serving?`,
        ),
      );
    if (findings.some((f) => f.status === "fail")) return findings;
    const count = (users[0] as { n: number }).n;
    return [
      ...findings,
      ok(
        "accounts",
        `${NAME}: schema current; ${count} users, every balance equals the sum of its ledger and every hold the sum of its reservations`,
      ),
    ];
  } catch (error) {
    if (error instanceof SchemaError) return [fail("accounts", `${NAME}: ${error.message}`)];
    return [fail("accounts", `${NAME} did not answer: ${describe(error)}`)];
  } finally {
    await sql.close({ timeout: 1 });
  }
}

/** An error's cause (the guard's says which statement and why) without the URL, which a connection error may repeat. */
function describe(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  const text = typeof cause === "string" ? cause : error instanceof Error ? error.message : String(error);
  return text.replace(/postgres(ql)?:\/\/\S+/gi, "(the URL)");
}
