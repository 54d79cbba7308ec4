/** The two sizes of the benchmark: `full` (issue #5's scale) and `quick` (a CI smoke run). */
import type { UniverseSpec } from "./universe.ts";

export interface Mode {
  name: "full" | "quick";
  universe: UniverseSpec;
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** Alternating repetitions of each (reference, endpoint) pair; figures are their medians. */
  reps: number;
  /** Server starts measured (median); the last one stays up for the load runs. */
  coldStarts: number;
  /** Users (one key each) that requests are spread over at random. */
  keys: number;
}

/** The last price day: a fixed date (stable cache), or yesterday if the clock is before it. */
function lastDay(): string {
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  return yesterday < "2025-12-31" ? yesterday : "2025-12-31";
}

export function modeOf(name: string): Mode {
  if (name === "quick") {
    return {
      name,
      universe: { companies: 200, years: 5, lastDay: lastDay() },
      connections: 64,
      warmupMs: 500,
      durationMs: 2_000,
      reps: 3,
      coldStarts: 1,
      keys: 4,
    };
  }
  if (name === "full") {
    return {
      name,
      universe: { companies: 5_000, years: 20, lastDay: lastDay() },
      connections: 64,
      warmupMs: 2_000,
      durationMs: 10_000,
      reps: 3,
      coldStarts: 3,
      keys: 8,
    };
  }
  throw new Error(`unknown mode ${name} (full or quick)`);
}
