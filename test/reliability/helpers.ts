// Moved to test/helpers/ (seed.ts, ledger.ts, gate.ts, edge.ts, server.ts, wait.ts); re-exported while other work still imports them from here.
export { type EdgeUnderTest, startEdge } from "../helpers/edge.ts";
export { GATED, GATED_OTHER, gateHandlers, type HandlerGate, SLOW, withGate } from "../helpers/gate.ts";
export {
  account,
  expectLedgerConsistent,
  expectNothingHeld,
  type UsageRows,
  usageRows,
} from "../helpers/ledger.ts";
export { rng, testSeed } from "../helpers/seed.ts";
export { limits } from "../helpers/server.ts";
export { waitUntil } from "../helpers/wait.ts";
