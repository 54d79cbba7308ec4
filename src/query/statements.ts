import { type PeriodType, STATEMENT_FIELDS, type StatementKind } from "../domain/statements.ts";
import type { Row } from "../snapshot/duckdb.ts";
import type { LoadedSnapshot } from "./snapshot.ts";

/** One statement period as served (the statement period of /openapi.json; the statement object under its kind's name). */
export interface ServedPeriod {
  period_type: PeriodType;
  fiscal_year: number;
  fiscal_quarter: number | null;
  snapshot_date: string;
  period_start: string | null;
  currency: string | null;
  filing_date: string;
  accession_number: string;
  latest_filing_date: string;
  latest_accession_number: string;
  notes: string[];
  [statement: string]: unknown;
}

function periodsSql(kind: StatementKind): string {
  const fields = STATEMENT_FIELDS[kind].map((f) => `"${f}"`).join(", ");
  return `SELECT period_type, fiscal_year, fiscal_quarter, period_start, period_end, first_filed, first_accession,
    last_filed, last_accession, currency, notes, ${fields}
    FROM ${kind} WHERE cik = $cik AND period_type = $period_type
      AND fiscal_year BETWEEN $from_year AND $to_year
    ORDER BY period_end DESC LIMIT $limit`;
}

const SQL = {
  balance_sheet: periodsSql("balance_sheet"),
  cash_flow_statement: periodsSql("cash_flow_statement"),
  income_statement: periodsSql("income_statement"),
} as const;

const ANY_SQL = {
  balance_sheet: "SELECT 1 AS x FROM balance_sheet WHERE cik = $cik LIMIT 1",
  cash_flow_statement: "SELECT 1 AS x FROM cash_flow_statement WHERE cik = $cik LIMIT 1",
  income_statement: "SELECT 1 AS x FROM income_statement WHERE cik = $cik LIMIT 1",
} as const;

/** Which periods of a statement a call asks for. */
export interface PeriodFilter {
  periodType: PeriodType;
  /** Fiscal years (the company's own labels), inclusive. */
  fromYear: number;
  toYear: number;
  limit: number;
}

/**
 * The newest `limit` periods of one statement for a company that pass the filter, or null
 * when the snapshot has no periods of that statement for it at all (an empty list means none
 * passes).
 */
export async function getStatementPeriods(
  snapshot: LoadedSnapshot,
  kind: StatementKind,
  cik: string,
  filter: PeriodFilter,
): Promise<ServedPeriod[] | null> {
  if (!snapshot.has(kind)) return null;
  const rows = await snapshot.all(SQL[kind], {
    cik,
    period_type: filter.periodType,
    from_year: filter.fromYear,
    to_year: filter.toYear,
    limit: filter.limit,
  });
  if (rows.length === 0) {
    const any = await snapshot.all(ANY_SQL[kind], { cik });
    return any.length === 0 ? null : [];
  }
  return rows.map((row) => served(kind, row));
}

function served(kind: StatementKind, row: Row): ServedPeriod {
  const statement: Record<string, number | null> = {};
  for (const field of STATEMENT_FIELDS[kind]) statement[field] = (row[field] as number | null) ?? null;
  return {
    period_type: row.period_type as PeriodType,
    fiscal_year: row.fiscal_year as number,
    fiscal_quarter: (row.fiscal_quarter as number | null) ?? null,
    snapshot_date: row.period_end as string,
    period_start: (row.period_start as string | null) ?? null,
    currency: (row.currency as string | null) ?? null,
    filing_date: row.first_filed as string,
    accession_number: row.first_accession as string,
    latest_filing_date: row.last_filed as string,
    latest_accession_number: row.last_accession as string,
    notes: row.notes === null || row.notes === undefined ? [] : (JSON.parse(row.notes as string) as string[]),
    [kind]: statement,
  };
}
