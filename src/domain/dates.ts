/**
 * Calendar arithmetic on ISO dates (`YYYY-MM-DD`), always in UTC so results never depend
 * on the machine's time zone. ISO date strings compare correctly as strings.
 */

export const MS_PER_DAY = 86_400_000;

/** Days since 1970-01-01 of an ISO date. */
export function toDayNumber(date: string): number {
  return Math.round(Date.parse(`${date.slice(0, 10)}T00:00:00Z`) / MS_PER_DAY);
}

/** ISO date of a day number (inverse of toDayNumber). */
export function fromDayNumber(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

/** The ISO date `days` days after `date` (negative goes back). */
export function addDays(date: string, days: number): string {
  return fromDayNumber(toDayNumber(date) + days);
}

/** Whole days from `from` to `to` (positive when `to` is later). */
export function daysBetween(from: string, to: string): number {
  return toDayNumber(to) - toDayNumber(from);
}

/** The same calendar day `years` years earlier or later (Feb 29 becomes Mar 1). */
export function addYears(date: string, years: number): string {
  const d = new Date(`${date.slice(0, 10)}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().slice(0, 10);
}

/** Months since year 0 (year × 12 + month − 1): consecutive months differ by 1. */
export function monthIndex(date: string): number {
  return Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1;
}

/** Calendar year of an ISO date. */
export function yearOf(date: string): number {
  return Number(date.slice(0, 4));
}
