/**
 * Exact credit cap: however many calls race for a balance, the credits charged never exceed
 * it, every 2xx is exactly one ledger row (with its request id), and the balance is the sum
 * of the ledger. Randomised parts are seeded (STOCKD_TEST_SEED replays the route mix).
 */

import { describe, expect, test } from "bun:test";
import { PRICING } from "../../src/http/pricing.ts";
import { expectLedgerConsistent, expectNothingHeld, usageRows } from "../helpers/ledger.ts";
import { chargedBy, expectProblem } from "../helpers/responses.ts";
import { rng, testSeed } from "../helpers/seed.ts";
import { useDemoServer } from "../helpers/server.ts";

const server = useDemoServer();

/** Routes that answer 2xx for the demo data, with their price. */
const COST_1 = [
  "/stocks/DWGT/profile",
  "/securities/DWGT/quote",
  "/stocks/DCLD/price?start_date=2024-01-01&end_date=2024-03-31",
  "/securities/search?query=demo",
  "/stocks/DSEM/secfiling?form_type=10-K&limit=5",
  "/sec_filings?ticker=DWGT&per_page=5",
  "/securities/DWGT/valuation",
];
const COST_2 = ["/securities/DWGT/valuation/history", "/stocks/DWGT/valuation-history"];

interface Outcome {
  path: string;
  cost: number;
  res: Response;
}

/** Fires all calls at once and waits for every answer. */
async function race(key: string, paths: readonly string[]): Promise<Outcome[]> {
  return Promise.all(
    paths.map(async (path) => {
      const res = await server.get(path, key);
      const cost = COST_2.includes(path) ? 2 : 1;
      return { path, cost, res };
    }),
  );
}

/**
 * Every outcome is a charged 2xx or an uncharged 402; the ledger holds exactly the 2xx calls
 * (matched by request id); nothing stays held. Returns the credits charged.
 */
async function checkOutcomes(userId: string, key: string, start: number, outcomes: Outcome[]) {
  let charged = 0;
  const okIds: string[] = [];
  for (const { path, cost, res } of outcomes) {
    if (res.status === 200) {
      expect(chargedBy(res), path).toBe(cost);
      charged += cost;
      okIds.push(res.headers.get("x-request-id") as string);
      await res.arrayBuffer();
    } else {
      expect(res.status, path).toBe(402);
      await expectProblem(res, 402, { code: "insufficient_credits" });
    }
  }
  expect(charged).toBeLessThanOrEqual(start);
  const usage = usageRows(server, userId);
  expect(usage.rows).toBe(okIds.length);
  expect(usage.credits).toBe(charged);
  expect(new Set(usage.requestIds)).toEqual(new Set(okIds));
  expectLedgerConsistent(server, userId, start - charged);
  await expectNothingHeld(server, key);
  return charged;
}

describe("exact credit cap", () => {
  test("balance 10 and 200 concurrent cost-1 calls: exactly 10 succeed, 190 get 402, balance 0", async () => {
    const { key, userId } = server.newKey(10);
    const outcomes = await race(key, Array(200).fill("/stocks/DWGT/profile"));
    expect(outcomes.filter((o) => o.res.status === 200).length).toBe(10);
    expect(outcomes.filter((o) => o.res.status === 402).length).toBe(190);
    expect(await checkOutcomes(userId, key, 10, outcomes)).toBe(10);
  });

  test("the cost-2 endpoints are priced 2 (pricing.ts)", () => {
    expect(PRICING.valuation_history).toBe(2);
    expect(PRICING.valuation_points).toBe(2);
  });

  for (const path of COST_2) {
    test(`balance 10 and 200 concurrent cost-2 calls of ${path}: exactly 5 succeed`, async () => {
      const { key, userId } = server.newKey(10);
      const outcomes = await race(key, Array(200).fill(path));
      expect(outcomes.filter((o) => o.res.status === 200).length).toBe(5);
      expect(await checkOutcomes(userId, key, 10, outcomes)).toBe(10);
    });
  }

  test("balance 11 and 200 concurrent cost-2 calls: 5 succeed and the odd credit stays", async () => {
    const { key, userId } = server.newKey(11);
    const outcomes = await race(key, Array(200).fill(COST_2[0]));
    expect(outcomes.filter((o) => o.res.status === 200).length).toBe(5);
    expect(await checkOutcomes(userId, key, 11, outcomes)).toBe(10);
  });

  test("mixed routes and balances (seeded): never more than the balance, one ledger row per 2xx", async () => {
    const seed = testSeed("credit-cap mixed");
    const random = rng(seed);
    for (let round = 0; round < 6; round++) {
      const balance = random.int(0, 40);
      const calls = random.int(50, 200);
      const share2 = random.next();
      const paths = Array.from({ length: calls }, () =>
        random.next() < share2 ? random.pick(COST_2) : random.pick(COST_1),
      );
      const { key, userId } = server.newKey(balance);
      const outcomes = await race(key, paths);
      const charged = await checkOutcomes(userId, key, balance, outcomes);
      const left = balance - charged;
      // Every call here succeeds when it can be paid for, and holds always turn into debits:
      // so a refused cost-1 call proves nothing was left, a refused cost-2 call at most 1.
      const refused = outcomes.filter((o) => o.res.status === 402);
      if (refused.some((o) => o.cost === 1)) expect(left, `seed ${seed} round ${round}`).toBe(0);
      if (refused.some((o) => o.cost === 2))
        expect(left, `seed ${seed} round ${round}`).toBeLessThanOrEqual(1);
      // Enough demand to exhaust the balance: the cap is reached exactly (up to an odd credit).
      const demand = paths.reduce((n, p) => n + (COST_2.includes(p) ? 2 : 1), 0);
      if (demand <= balance) expect(charged).toBe(demand);
    }
  });
});
