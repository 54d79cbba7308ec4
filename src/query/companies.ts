import type { Company } from "../domain/company.ts";
import type { Row } from "../snapshot/duckdb.ts";

/** A row of the `companies` table. */
export type CompanyRow = Company;

export function loadCompanies(rows: Row[]): Map<string, CompanyRow> {
  return new Map(rows.map((r) => [r.cik as string, r as unknown as CompanyRow]));
}
