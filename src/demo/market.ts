/**
 * Dividend histories and the earnings calendar of the demo universe, written from the
 * financial model so that they agree with the filings: a dividend's cash is in the
 * PaymentsOfDividends of the quarter it is paid in, and a reported EPS is the quarter's
 * diluted EPS of the model (the 3-month XBRL fact, where the company reports one).
 */
import { join } from "node:path";
import { addDays } from "../domain/dates.ts";
import { type CompanyModel, perShare } from "./financials.ts";
import type { ModelQuarter } from "./model.ts";
import { FIRST_YEAR, monthEnd, weekdayOnOrAfter } from "./periods.ts";
import { write } from "./sources.ts";
import { rng } from "./universe.ts";

const csv = (header: string, rows: readonly string[]) => `${[header, ...rows].join("\n")}\n`;

/**
 * `dividends/<TICKER>.csv` (`ex_date,pay_date,amount`, split-adjusted) for every payer: the
 * dividends that went ex during the price history, plus a declared one going ex later.
 */
export function writeDividends(dir: string, model: CompanyModel): void {
  if (model.dividends.length === 0) return;
  const rows = model.dividends
    .filter((d) => d.exDate >= `${FIRST_YEAR}-01-01`)
    .map((d) => `${d.exDate},${d.payDate},${d.amount}`);
  for (const ticker of model.company.tickers) {
    write(join(dir, "dividends", `${ticker}.csv`), csv("ex_date,pay_date,amount", rows));
  }
}

/** A quarter's earnings release: 25 days after its end, 35 for the fourth (the year's close). */
const releaseDate = (q: { q: number; end: string }) => weekdayOnOrAfter(addDays(q.end, q.q === 4 ? 35 : 25));

/** The model's diluted EPS of a quarter. */
const quarterEps = (q: ModelQuarter): number => perShare(q.flows.netIncome, q.dilutedShares);

const CALENDAR_HEADER =
  "ticker,cik,earning_date,earning_time,fiscal_quarter_ending,eps_forecast,eps_actual,no_of_estimates,currency";

/** Analysts covering a company: more for larger ones. */
function coverage(model: CompanyModel, date: string, random: () => number): number {
  const cap = model.prices.closeOn(date) * model.sharesAt(date);
  return Math.max(1, Math.min(30, Math.round(Math.log10(cap / 1e8) * 5 + random() * 4)));
}

/**
 * One company's calendar rows: every quarter of the history released by `until` (forecast,
 * actual, surprise), then the next expected release with its forecast only.
 */
function calendarRows(model: CompanyModel, index: number, until: string): string[] {
  const random = rng(model.company.seed * 13 + 5);
  const ticker = model.company.tickers[0] ?? "";
  const time = index % 2 === 0 ? "after-hours" : "pre-market";
  const row = (q: { q: number; end: string }, forecast: number, actual: string) =>
    [
      ticker,
      model.company.cik,
      releaseDate(q),
      time,
      q.end.slice(0, 7),
      forecast.toFixed(2),
      actual,
      coverage(model, q.end, random),
      "USD",
    ].join(",");
  const rows: string[] = [];
  const history = model.quarters.filter((q) => q.fy >= FIRST_YEAR);
  for (const q of history) {
    const surprise = -0.06 + 0.14 * random();
    if (releaseDate(q) > until) break;
    const actual = quarterEps(q);
    rows.push(row(q, Math.round(actual * (1 - surprise) * 100) / 100, actual.toFixed(2)));
  }
  const last = model.quarters[model.quarters.length - 1];
  if (last === undefined) return rows;
  const next = releaseDate(last) > until ? last : { q: (last.q % 4) + 1, end: monthEnd(last.end, 3) };
  const yearAgo = model.quarters[model.quarters.length - (next === last ? 4 : 3) - 1];
  const base = yearAgo ? quarterEps(yearAgo) : quarterEps(last);
  rows.push(row(next, Math.round(base * (1 + model.company.drift) * 100) / 100, ""));
  return rows;
}

/** `calendar/demo-calendar.csv`: the plain CSV calendar layout, all companies in one file. */
export function writeCalendar(dir: string, models: readonly CompanyModel[], until: string): void {
  const rows = models.flatMap((model, index) => calendarRows(model, index, until));
  write(join(dir, "calendar", "demo-calendar.csv"), csv(CALENDAR_HEADER, rows));
}
