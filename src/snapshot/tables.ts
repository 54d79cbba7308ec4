/**
 * The tables of a snapshot: one Parquet file each, with these columns in this order. The
 * importer writes exactly these; the read side selects from them by name.
 */

import { STATEMENT_FIELDS, type StatementKind } from "../domain/statements.ts";
import { historyColumns, securityFiguresColumns } from "./typed-tables.ts";

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
    ["list_rank", "INTEGER"],
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
  shares_outstanding: [
    ["cik", "VARCHAR"],
    ["date", "DATE"],
    ["filed", "DATE"],
    ["value", "DOUBLE"],
  ],
  insider_trades: [
    ["cik", "VARCHAR"],
    ["ticker", "VARCHAR"],
    ["accession_number", "VARCHAR"],
    ["transaction_date", "DATE"],
    ["transaction_code", "VARCHAR"],
    ["shares", "DOUBLE"],
    ["price", "DOUBLE"],
    ["value", "DOUBLE"],
    ["owner_name", "VARCHAR"],
    ["owner_title", "VARCHAR"],
    ["acquired_disposed", "VARCHAR"],
    ["shares_owned_after", "DOUBLE"],
    ["security_title", "VARCHAR"],
    ["seq", "INTEGER"],
  ],
  dividends: [
    ["security_id", "VARCHAR"],
    ["ex_date", "DATE"],
    ["pay_date", "DATE"],
    ["record_date", "DATE"],
    ["declaration_date", "DATE"],
    ["amount", "DOUBLE"],
  ],
  earnings_calendar: [
    ["security_id", "VARCHAR"],
    ["ticker", "VARCHAR"],
    ["cik", "VARCHAR"],
    ["earning_date", "DATE"],
    ["earning_time", "VARCHAR"],
    ["eps_forecast", "DOUBLE"],
    ["eps_actual", "DOUBLE"],
    ["eps_surprise", "DOUBLE"],
    ["no_of_estimates", "INTEGER"],
    ["fiscal_quarter_ending", "VARCHAR"],
    ["currency", "VARCHAR"],
  ],
  derived: [
    ["security_id", "VARCHAR"],
    ["kind", "VARCHAR"],
    ["as_of", "DATE"],
    ["body", "VARCHAR"],
  ],
  balance_sheet: statementColumns("balance_sheet"),
  cash_flow_statement: statementColumns("cash_flow_statement"),
  income_statement: statementColumns("income_statement"),
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
  // The typed analytic tables (typed-tables.ts): the derived documents' fields as columns.
  security_figures: securityFiguresColumns(),
  valuation_history: historyColumns("valuation_history"),
  valuation_points: historyColumns("valuation_points"),
} as const satisfies Record<string, Columns>;

export type TableName = keyof typeof SNAPSHOT_TABLES;

/**
 * A table's rows as their values in the table's column order: what the writer stages, and
 * cheaper to send between threads than objects with many keys.
 */
export type TableValues = unknown[][];

/** Rows (objects keyed by column name) as a table's values; missing keys are nulls. */
export function tableValues(table: TableName, rows: Iterable<object>): TableValues {
  const names = (SNAPSHOT_TABLES[table] as Columns).map(([name]) => name);
  return Array.from(rows, (row) => names.map((name) => (row as Record<string, unknown>)[name]));
}

/** A statement table: period keys, then one DOUBLE column per field of that statement. */
function statementColumns(kind: StatementKind): Columns {
  return [
    ["cik", "VARCHAR"],
    ["period_type", "VARCHAR"],
    ["fiscal_year", "INTEGER"],
    ["fiscal_quarter", "INTEGER"],
    ["period_start", "DATE"],
    ["period_end", "DATE"],
    ["first_filed", "DATE"],
    ["first_accession", "VARCHAR"],
    ["last_filed", "DATE"],
    ["last_accession", "VARCHAR"],
    ["currency", "VARCHAR"],
    // A JSON array of strings: how a value of the period was obtained, where that is not the usual way.
    ["notes", "VARCHAR"],
    ...STATEMENT_FIELDS[kind].map((field) => [field, "DOUBLE"] as const),
  ];
}

/** Sort order each table is written in (DuckDB zone maps then prune by it). */
export const TABLE_ORDER: Record<TableName, string> = {
  securities: "ticker_key",
  companies: "cik",
  filings: "cik, filing_date DESC, accession_number",
  prices: "security_id, date",
  quotes: "security_id",
  dividends: "security_id, ex_date",
  earnings_calendar: "earning_date, ticker",
  derived: "kind, security_id",
  shares_outstanding: "cik, date",
  insider_trades: "cik, seq",
  balance_sheet: "cik, period_type, period_end DESC",
  cash_flow_statement: "cik, period_type, period_end DESC",
  income_statement: "cik, period_type, period_end DESC",
  security_figures: "symbol",
  valuation_history: "symbol, date",
  valuation_points: "symbol, date",
};
