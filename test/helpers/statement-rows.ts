/** Rows of computed statements (computeStatements), found by period type and end. */
import type { StatementPeriod } from "../../src/domain/statements.ts";

/** The statement row of a type ending on `end`; throws (naming it) when absent. */
export function periodAt<P extends StatementPeriod>(rows: readonly P[], type: string, end: string): P {
  const row = rows.find((r) => r.period_type === type && r.period_end === end);
  if (row === undefined) throw new Error(`expected a ${type} period ending ${end}`);
  return row;
}

/** The ends of the rows of a type, ascending. */
export const ends = (rows: { period_type: string; period_end: string }[], type: string) =>
  rows
    .filter((r) => r.period_type === type)
    .map((r) => r.period_end)
    .sort();
