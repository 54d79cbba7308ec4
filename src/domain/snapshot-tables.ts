/**
 * The tables of a snapshot: one Parquet file each, with these columns in this order. The
 * importer writes exactly these; the read side selects from them by name.
 */

export type ColumnType = "VARCHAR" | "DATE" | "TIMESTAMP" | "DOUBLE" | "BIGINT" | "INTEGER" | "BOOLEAN";
export type Columns = readonly (readonly [name: string, type: ColumnType])[];

export const SNAPSHOT_TABLES = {
  securities: [
    ["security_id", "VARCHAR"],
    ["ticker", "VARCHAR"],
    ["ticker_key", "VARCHAR"],
    ["cik", "VARCHAR"],
    ["name", "VARCHAR"],
    ["exchange", "VARCHAR"],
    ["security_type", "VARCHAR"],
    ["currency_code", "VARCHAR"],
    ["composite_figi", "VARCHAR"],
    ["share_class_figi", "VARCHAR"],
    ["active", "BOOLEAN"],
  ],
  companies: [
    ["cik", "VARCHAR"],
    ["name", "VARCHAR"],
    ["entity_type", "VARCHAR"],
    ["sic", "VARCHAR"],
    ["sic_description", "VARCHAR"],
    ["category", "VARCHAR"],
    ["fiscal_year_end", "VARCHAR"],
    ["state_of_incorporation", "VARCHAR"],
    ["country_iso", "VARCHAR"],
    ["country", "VARCHAR"],
    ["website", "VARCHAR"],
    ["investor_website", "VARCHAR"],
    ["description", "VARCHAR"],
    ["phone", "VARCHAR"],
    ["ein", "VARCHAR"],
    ["first_filing_date", "DATE"],
  ],
  filings: [
    ["cik", "VARCHAR"],
    ["accession_number", "VARCHAR"],
    ["form", "VARCHAR"],
    ["filing_date", "DATE"],
    ["report_date", "DATE"],
    ["acceptance_date_time", "TIMESTAMP"],
    ["primary_document", "VARCHAR"],
    ["primary_doc_description", "VARCHAR"],
    ["fy", "INTEGER"],
    ["fp", "VARCHAR"],
    ["period", "DATE"],
    ["amendment_flag", "BOOLEAN"],
  ],
  prices: [
    ["security_id", "VARCHAR"],
    ["date", "DATE"],
    ["open", "DOUBLE"],
    ["high", "DOUBLE"],
    ["low", "DOUBLE"],
    ["close", "DOUBLE"],
    ["adj_close", "DOUBLE"],
    ["volume", "BIGINT"],
  ],
  quotes: [
    ["security_id", "VARCHAR"],
    ["date", "DATE"],
    ["open", "DOUBLE"],
    ["high", "DOUBLE"],
    ["low", "DOUBLE"],
    ["close", "DOUBLE"],
    ["volume", "BIGINT"],
    ["previous_close", "DOUBLE"],
    ["change", "DOUBLE"],
    ["change_percent", "DOUBLE"],
    ["fifty_two_week_high", "DOUBLE"],
    ["fifty_two_week_low", "DOUBLE"],
  ],
} as const satisfies Record<string, Columns>;

export type TableName = keyof typeof SNAPSHOT_TABLES;

/** Sort order each table is written in (DuckDB zone maps then prune by it). */
export const TABLE_ORDER: Record<TableName, string> = {
  securities: "ticker_key",
  companies: "cik",
  filings: "cik, filing_date DESC, accession_number",
  prices: "security_id, date",
  quotes: "security_id",
};
