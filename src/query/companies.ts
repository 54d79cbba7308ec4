import type { Row } from "./duckdb.ts";

/** A filer's company record from its submissions file. */
export interface CompanyRow {
  cik: string;
  name: string;
  entity_type: string | null;
  sic: string | null;
  sic_description: string | null;
  category: string | null;
  fiscal_year_end: string | null;
  state_of_incorporation: string | null;
  country_iso: string | null;
  country: string | null;
  website: string | null;
  investor_website: string | null;
  description: string | null;
  phone: string | null;
  ein: string | null;
  first_filing_date: string | null;
}

export function loadCompanies(rows: Row[]): Map<string, CompanyRow> {
  return new Map(rows.map((r) => [r.cik as string, r as unknown as CompanyRow]));
}
