/** Seeds of randomised tests (replayable) and the demo's seeded PRNG with the draws they need. */
import { rng as mulberry32 } from "../../src/demo/universe.ts";

/**
 * The seed of a randomised test: `STOCKD_TEST_SEED` when set (to replay a failing run), else a
 * fresh one. Always printed, so a failing run names the seed that replays it.
 */
export function testSeed(label: string): number {
  const raw = process.env.STOCKD_TEST_SEED;
  let seed: number;
  if (raw !== undefined && raw !== "") {
    seed = Number(raw);
    if (!Number.isSafeInteger(seed)) throw new Error(`STOCKD_TEST_SEED must be an integer, got "${raw}"`);
    seed |= 0;
  } else {
    seed = (Math.random() * 2 ** 32) | 0;
  }
  console.log(`[${label}] seed=${seed} (replay: STOCKD_TEST_SEED=${seed})`);
  return seed;
}

/** The demo's seeded PRNG with integer, pick and shuffle draws: the same seed gives the same sequence. */
export function rng(seed: number) {
  const next = mulberry32(seed);
  return {
    next,
    /** An integer in [min, max]. */
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    shuffle: <T>(items: readonly T[]): T[] => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j] as T, out[i] as T];
      }
      return out;
    },
  };
}
