/**
 * The price stage of a sync: for each ticker, the provider's days from ten days before the
 * last stored day (so late corrections replace what was stored), or the whole history the
 * first time; then the whole series rendered into `prices/<TICKER>.csv`. A file that the
 * importer would refuse is not written and its days are not stored.
 */
import { addDays } from "../../domain/dates.ts";
import type { Logger } from "../../log.ts";
import { FetchFailedError, SourceStoppedError } from "../http.ts";
import { BadBodyError, type Mirror } from "../mirror.ts";
import type { SyncProgress } from "../progress.ts";
import type { StoredBar, SyncState } from "../state.ts";
import { NoSuchTickerError, type PriceProvider, renderPriceCsv, toStoredBars } from "./provider.ts";

/** Days fetched again before the last stored one. */
const OVERLAP_DAYS = 10;

export interface PriceResult {
  provider: string;
  tickers: number;
  updated: number;
  unknown: string[];
  failures: string[];
  /** Why the stage stopped early (a rate limit, a refused key), or null. */
  stopped: string | null;
}

/** The mirror file of a ticker's prices (`/` is a class separator like `-`; it cannot be in a name). */
export function priceFile(ticker: string): string {
  return `prices/${ticker.replaceAll("/", "-")}.csv`;
}

export async function syncPrices(
  provider: PriceProvider,
  tickers: readonly string[],
  state: SyncState,
  mirror: Mirror,
  progress: SyncProgress,
  log: Logger,
): Promise<PriceResult> {
  const result: PriceResult = {
    provider: provider.name,
    tickers: tickers.length,
    updated: 0,
    unknown: [],
    failures: [],
    stopped: null,
  };
  progress.start(`prices (${provider.name})`, tickers.length);
  for (const ticker of tickers) {
    try {
      await updateTicker(provider, ticker, state, mirror);
      result.updated++;
    } catch (error) {
      if (error instanceof SourceStoppedError) {
        result.stopped = error.message;
        log.warn("sync price stage stopped", { provider: provider.name, reason: error.message });
        break;
      }
      if (error instanceof NoSuchTickerError) result.unknown.push(ticker);
      else if (
        error instanceof FetchFailedError ||
        error instanceof BadBodyError ||
        error instanceof SyntaxError
      ) {
        result.failures.push(`${ticker}: ${error.message}`);
        log.warn("sync price item failed", { provider: provider.name, ticker, error: error.message });
      } else throw error;
    }
    progress.step();
  }
  return result;
}

async function updateTicker(provider: PriceProvider, ticker: string, state: SyncState, mirror: Mirror) {
  const series = state.series(ticker, provider.name);
  const since = series?.lastDate ? addDays(series.lastDate, -OVERLAP_DAYS) : null;
  const fresh = toStoredBars(await provider.history(ticker, since));
  const kept = since === null ? [] : state.bars(ticker, provider.name).filter((b) => b.date < since);
  const merged: StoredBar[] = [...kept, ...fresh];
  if (merged.length === 0) throw new NoSuchTickerError(`${provider.name} ${ticker}: no bars`);
  const csv = renderPriceCsv(merged);
  const file = priceFile(ticker);
  // The same days again write nothing (and call for no import).
  if (!mirror.has(file) || mirror.read(file) !== csv)
    mirror.write(file, "price-csv", new TextEncoder().encode(csv));
  state.saveBars(ticker, provider.name, fresh, since);
}
