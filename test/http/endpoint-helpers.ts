// Moved to test/helpers/ (raw-sources.ts, demo-sources.ts, server.ts); re-exported while files written by others meanwhile (valuation-per-share-fixtures.test.ts) import them from here.
export type { CsvPrice, Json } from "../helpers/raw-sources.ts";
export { serverOverImport } from "../helpers/server.ts";
