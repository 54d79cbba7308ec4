/** Which file holds a ticker's prices when the prices folder has more than one for it. */
import { tickerKey } from "../../domain/tickers.ts";

/** A price file and the ticker it holds (a CSV's by its name, an Alpha Vantage JSON's by its "Meta Data"). */
export interface PriceFileCandidate {
  file: string;
  ticker: string;
}

/** A price file left unread because another holds the prices of the same ticker. */
export interface PriceFileNotRead {
  file: string;
  ticker: string;
  /** The file that holds them. */
  heldBy: string;
}

/** A file the price rules read as an Alpha Vantage series (by its extension, any case). */
export const isJsonPriceFile = (file: string): boolean => file.toLowerCase().endsWith(".json");

/**
 * The price files in the order they claim tickers: every CSV before every JSON (a CSV wins
 * over a JSON of the same ticker), otherwise the given order.
 */
export function csvPriceFilesFirst<T extends string | { file: string }>(files: readonly T[]): T[] {
  const isJson = (f: T) => isJsonPriceFile(typeof f === "string" ? f : f.file);
  return [...files.filter((f) => !isJson(f)), ...files.filter(isJson)];
}

/**
 * One price file per ticker key, the first to claim it in `csvPriceFilesFirst` order (so
 * `AAPL.csv` wins over an Alpha Vantage `AAPL.json`, and `BRK-B.csv` and `BRK.B.csv` are one
 * ticker: the earlier in the given order wins). The files passed over are listed, with the
 * file that holds their ticker, in the order they were met.
 */
export function choosePriceFiles(candidates: readonly PriceFileCandidate[]): {
  byTickerKey: Map<string, string>;
  notRead: PriceFileNotRead[];
} {
  const byTickerKey = new Map<string, string>();
  const notRead: PriceFileNotRead[] = [];
  for (const { file, ticker } of csvPriceFilesFirst(candidates)) {
    const key = tickerKey(ticker);
    const heldBy = byTickerKey.get(key);
    if (heldBy) notRead.push({ file, ticker, heldBy });
    else byTickerKey.set(key, file);
  }
  return { byTickerKey, notRead };
}
