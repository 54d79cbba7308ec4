import { addYears, yearOf } from "../domain/dates.ts";
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

/** One end of a fiscal-year range: a fiscal year's label, or a date (YYYY-MM-DD). */
export type FiscalBound = { year: number } | { date: string };

/** Which periods of a statement a call asks for. */
export interface PeriodFilter {
  periodType: PeriodType;
  /** The first and last fiscal years, inclusive (see `fiscalYearRange`); null: no bound. */
  start: FiscalBound | null;
  end: FiscalBound | null;
  limit: number;
}

/** The end of each fiscal year that has an annual period: its period end. */
function yearEndsSql(kind: StatementKind): string {
  return `SELECT fiscal_year, max(period_end) AS year_end FROM ${kind}
    WHERE cik = $cik AND period_type = 'annual' GROUP BY fiscal_year`;
}

const YEAR_ENDS_SQL = {
  balance_sheet: yearEndsSql("balance_sheet"),
  cash_flow_statement: yearEndsSql("cash_flow_statement"),
  income_statement: yearEndsSql("income_statement"),
} as const;

/**
 * The fiscal years (labels, inclusive) that a range's bounds select, given the end of each
 * fiscal year the company reported a full year for. A year bound is that fiscal year; a date
 * as `start` selects the fiscal years that end on or after it, as `end` those that end on or
 * before it. A fiscal year without an annual period (the one in progress, or one before the
 * first filed) ends a whole number of years from the nearest one that has one; a company
 * without any annual period has calendar fiscal years.
 */
export function fiscalYearRange(
  yearEnds: ReadonlyMap<number, string>,
  start: FiscalBound | null,
  end: FiscalBound | null,
): { fromYear: number; toYear: number } {
  const known = [...yearEnds].sort(([a], [b]) => a - b);
  const endOf = (label: number): string => {
    const exact = yearEnds.get(label);
    if (exact !== undefined) return exact;
    const before = known.filter(([k]) => k < label).at(-1);
    const nearest = before ?? known[0];
    return nearest ? addYears(nearest[1], label - nearest[0]) : `${label}-12-31`;
  };
  // A fiscal year ends within a year and a bit of its label's calendar year, either side.
  const around = (date: string) => [
    yearOf(date) - 2,
    yearOf(date) - 1,
    yearOf(date),
    yearOf(date) + 1,
    yearOf(date) + 2,
  ];
  const fromYear =
    start === null
      ? 0
      : "year" in start
        ? start.year
        : (around(start.date).find((label) => endOf(label) >= start.date) ?? yearOf(start.date) + 3);
  const toYear =
    end === null
      ? 9999
      : "year" in end
        ? end.year
        : (around(end.date)
            .reverse()
            .find((label) => endOf(label) <= end.date) ?? yearOf(end.date) - 3);
  return { fromYear, toYear };
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
  const byDate = (bound: FiscalBound | null) => bound !== null && "date" in bound;
  const yearEnds =
    byDate(filter.start) || byDate(filter.end)
      ? await snapshot.all<{ fiscal_year: number; year_end: string }>(YEAR_ENDS_SQL[kind], { cik })
      : [];
  const { fromYear, toYear } = fiscalYearRange(
    new Map(yearEnds.map((r) => [r.fiscal_year, r.year_end])),
    filter.start,
    filter.end,
  );
  const rows = await snapshot.all(SQL[kind], {
    cik,
    period_type: filter.periodType,
    from_year: fromYear,
    to_year: toYear,
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
