/**
 * The market side of the valuation tests on real data (derived-fixtures-valuation*.test.ts):
 * a ticker's closes, splits and companyfacts, and what they give at a date (the share count
 * filed by then on the closes' basis, the TTM net income known then, its diluted EPS).
 */
import { expect } from "bun:test";
import { join } from "node:path";
import { daysBetween } from "../../src/domain/dates.ts";
import { FIXTURES } from "../helpers/env.ts";
import type { SecFact } from "../helpers/raw-companyfacts.ts";
import { type CsvPrice, readPriceCsv, type Split, splitsFromActions } from "../helpers/raw-sources.ts";
import { NET_INCOME, type RawFacts, rawFactsOf, relDiff, splitFactorAfter } from "./derived-facts.ts";
import { ttmDilutedEps as rawTtmDilutedEps } from "./per-share-facts.ts";

export const root = FIXTURES ?? "";

export function expectRel(actual: unknown, expected: number, label: string, tolerance = 1e-9): void {
  expect(typeof actual, label).toBe("number");
  const diff = relDiff(actual as number, expected);
  if (diff > tolerance) throw new Error(`${label}: ${actual} vs expected ${expected} (rel ${diff})`);
}

export interface Market {
  raw: RawFacts;
  prices: CsvPrice[];
  last: CsvPrice;
  /** Splits up to the last price date: the ones the split-adjusted closes reflect. */
  splits: Split[];
  /** Every split of the actions file, including those after the last price. */
  allSplits: Split[];
}

export function market(ticker: string): Market {
  const prices = readPriceCsv(join(root, "prices", `${ticker}.csv`));
  const last = prices.at(-1) as CsvPrice;
  const allSplits = splitsFromActions(root, ticker);
  const splits = allSplits.filter((s) => s.date <= last.date);
  return { raw: rawFactsOf(root, ticker), prices, last, splits, allSplits };
}

/**
 * Shares outstanding on `date` on the closes' basis: the cover-page count with the latest
 * as-of date among those filed on or before `date`, times the splits after its as-of date.
 */
export function sharesAt(m: Market, date: string): { shares: number; asOf: string; filed: string } | null {
  const fact = m.raw.sharesKnownAt(date);
  if (fact === null) return null;
  return { shares: fact.val * splitFactorAfter(m.splits, fact.end), asOf: fact.end, filed: fact.filed };
}

/**
 * Shares on the closes' basis of a count reported on the basis of `from`: × the splits in
 * (from, last price], ÷ the splits in (last price, from].
 */
export function onPriceBasis(m: Market, shares: number, from: string): number {
  return from <= m.last.date
    ? shares * splitFactorAfter(m.allSplits, from, m.last.date)
    : shares / splitFactorAfter(m.allSplits, m.last.date, from);
}

/**
 * GOOGL's balance-sheet count (us-gaap:CommonStockSharesOutstanding, all classes) known on
 * `date`: the latest balance-sheet date among the facts filed on or before it, as last filed
 * by then. A balance sheet issued after a split states its counts on the new basis, so the
 * count is on the basis of its filing date.
 */
export function balanceSheetSharesAt(m: Market, date: string): { shares: number; fact: SecFact } | null {
  const known = m.raw.all("CommonStockSharesOutstanding", "shares").filter((f) => f.filed <= date);
  const lastEnd = known
    .map((f) => f.end)
    .sort()
    .at(-1);
  const fact = known
    .filter((f) => f.end === lastEnd)
    .sort((a, b) => a.filed.localeCompare(b.filed))
    .at(-1);
  return fact === undefined ? null : { shares: onPriceBasis(m, fact.val, fact.filed), fact };
}

/**
 * TTM net income known on `date` (docs/methodology.md, "Point in time"): the latest period
 * end whose TTM (or fiscal-year) NetIncomeLoss had all its figures published on or before
 * `date`. Periods are memoised per company.
 */
const ttmCache = new Map<RawFacts, { end: string; value: number; known: string }[]>();
export function netIncomeKnownAt(raw: RawFacts, date: string): { end: string; value: number } | null {
  let periods = ttmCache.get(raw);
  if (!periods) {
    const ends = [
      ...new Set(
        raw
          .all("NetIncomeLoss")
          .filter((f) => f.start !== undefined)
          .map((f) => f.end),
      ),
    ];
    periods = ends
      .map((end) => ({ end, ttm: raw.ttm(NET_INCOME, end) }))
      .filter((p) => p.ttm !== null)
      .map((p) => ({ end: p.end, value: p.ttm?.value as number, known: p.ttm?.known as string }))
      .sort((x, y) => y.end.localeCompare(x.end));
    ttmCache.set(raw, periods);
  }
  return periods.find((p) => p.known <= date) ?? null;
}

/**
 * docs/methodology.md, "Point in time": statements whose latest full-year period (a TTM for
 * these quarterly filers) ended more than 365 days before a date are not current there, and no
 * multiple combines them with that date's price.
 */
export const isCurrentAt = (ni: { end: string }, date: string) => daysBetween(ni.end, date) <= 365;

/** Diluted EPS of the TTM ending `end` on the closes' basis, from raw facts (per-share-facts.ts). */
export const ttmDilutedEps = (m: Market, end: string) =>
  rawTtmDilutedEps(m.raw, m.allSplits, m.last.date, end);
