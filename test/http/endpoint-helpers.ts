// Moved to test/helpers/ (raw-sources.ts, demo-sources.ts, server.ts); re-exported while other work still imports them from here.
export { type DemoSources, demoCik, demoSources } from "../helpers/demo-sources.ts";
export {
  type CsvPrice,
  type FilingColumns,
  filingRows,
  type Json,
  newestFirst,
  type RawFiling,
  readJson,
  readPriceCsv,
  type Submissions,
  secUrl,
} from "../helpers/raw-sources.ts";
export { serverOverImport } from "../helpers/server.ts";
