/**
 * Price providers of `stockd sync` and the one file they are written to. A provider answers
 * one question: a ticker's daily bars as traded, its cash dividends and its splits since a
 * day. The bars are kept as traded in the sync state (a later split or dividend changes no
 * stored value), and each run renders the whole series into `prices/<TICKER>.csv` in the
 * yfinance layout with actions (`Date,Open,High,Low,Close,Adj Close,Volume,Dividends,Stock
 * Splits`, docs/sources.md): prices and dividends split-adjusted to the last day, as Yahoo
 * serves them, and the close adjusted for dividends too.
 */
import type { HttpSource } from "../http.ts";
import type { StoredBar } from "../state.ts";

/** One trading day as traded. */
export type DailyBar = Omit<StoredBar, "dividend" | "split">;

/** What a provider knows of a ticker from a day on. */
export interface PriceHistory {
  bars: DailyBar[];
  /** Cash dividends per share as declared (not split-adjusted), by ex-date. */
  dividends: { exDate: string; amount: number }[];
  /** Splits as new shares per old share, effective at the open of `date`. */
  splits: { date: string; ratio: number }[];
}

/** A source of daily prices. */
export interface PriceProvider {
  /** Its name in the configuration, the state and the summary. */
  readonly name: string;
  /** Its client (paced by its own limiter). */
  readonly http: HttpSource;
  /** Bars, dividends and splits of `ticker` from `since` (YYYY-MM-DD), or its whole history for null. */
  history(ticker: string, since: string | null): Promise<PriceHistory>;
}

/** A ticker the provider does not know (no series): counted, not a failure of the run. */
export class NoSuchTickerError extends Error {
  override name = "NoSuchTickerError";
}

/** Merges a provider's answer into stored bars: each day's dividend and split joined to its bar. */
export function toStoredBars(history: PriceHistory): StoredBar[] {
  const dividends = new Map<string, number>();
  for (const d of history.dividends) dividends.set(d.exDate, (dividends.get(d.exDate) ?? 0) + d.amount);
  const splits = new Map(history.splits.map((s) => [s.date, s.ratio]));
  return history.bars.map((bar) => ({
    ...bar,
    dividend: dividends.get(bar.date) ?? 0,
    split: splits.get(bar.date) ?? 1,
  }));
}

const HEADER = "Date,Open,High,Low,Close,Adj Close,Volume,Dividends,Stock Splits";

/**
 * The CSV of a whole series (ascending bars as traded). A price before a split is divided by
 * the split's ratio (its volume multiplied); the adjusted close multiplies in, for each later
 * ex-date, 1 − dividend / the close of the day before it (Yahoo's method).
 */
export function renderPriceCsv(bars: readonly StoredBar[]): string {
  const n = bars.length;
  const splitAfter = new Array<number>(n);
  const dividendAfter = new Array<number>(n);
  let split = 1;
  let dividend = 1;
  for (let i = n - 1; i >= 0; i--) {
    splitAfter[i] = split;
    dividendAfter[i] = dividend;
    const bar = bars[i] as StoredBar;
    if (bar.split > 0 && bar.split !== 1) split *= bar.split;
    const previous = bars[i - 1];
    if (bar.dividend > 0 && previous) {
      const previousClose = previous.close / (splitAfter[i] as number) / (bar.split > 0 ? bar.split : 1);
      const factor = 1 - bar.dividend / (splitAfter[i] as number) / previousClose;
      if (factor > 0) dividend *= factor;
    }
  }
  const lines = [HEADER];
  for (const [i, bar] of bars.entries()) {
    const s = splitAfter[i] as number;
    const close = bar.close / s;
    lines.push(
      [
        bar.date,
        price(bar.open, s),
        price(bar.high, s),
        price(bar.low, s),
        num(close),
        num(close * (dividendAfter[i] as number)),
        bar.volume === null ? "" : String(Math.round(bar.volume * s)),
        num(bar.dividend / s),
        bar.split === 1 ? "0" : num(bar.split),
      ].join(","),
    );
  }
  return `${lines.join("\n")}\n`;
}

function price(value: number | null, split: number): string {
  return value === null ? "" : num(value / split);
}

/** A decimal with at most 6 places, without trailing zeros. */
function num(value: number): string {
  return String(Number(value.toFixed(6)));
}
