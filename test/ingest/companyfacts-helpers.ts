// Moved to test/helpers/ (synthetic-companyfacts.ts, statement-rows.ts, env.ts); re-exported while files written by others meanwhile (filer-rules.test.ts) import them from here.
export { FIXTURES } from "../helpers/env.ts";
export { periodAt } from "../helpers/statement-rows.ts";
export {
  filing,
  type SyntheticFact,
  syntheticCompany,
  syntheticFactsJson,
} from "../helpers/synthetic-companyfacts.ts";
