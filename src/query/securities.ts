import { tickerKey } from "../domain/tickers.ts";
import type { Row } from "../snapshot/duckdb.ts";
import type { SecurityRow } from "../snapshot/rows.ts";

/** A security as served (the security record of /openapi.json) plus what the read side needs to find its data. */
export type Security = SecurityRow;

export interface SearchPage {
  rows: Security[];
  total: number;
}

/**
 * All securities of a snapshot in memory (tens of thousands at most): ticker resolution in
 * O(1) and search by a scan that ranks exact ticker, then ticker prefix, then name match.
 */
export class SecurityIndex {
  private readonly byKey = new Map<string, Security>();
  private readonly names: {
    security: Security;
    name: string;
    words: string[];
    /** The words joined by one space: "coca cola co" for COCA COLA CO and Coca-Cola Co. */
    spaced: string;
    base: string;
  }[] = [];

  constructor(rows: Row[]) {
    for (const row of rows) {
      const security = row as unknown as Security;
      this.byKey.set(security.ticker_key, security);
      const name = security.name.toLowerCase();
      // The ticker without its share class: BRK for BRK.A and BRK.B.
      const base = security.ticker_key.split(".")[0] ?? security.ticker_key;
      const words = wordsOf(name);
      this.names.push({ security, name, words, spaced: words.join(" "), base });
    }
  }

  get size(): number {
    return this.byKey.size;
  }

  /** The security for a ticker in any case and share-class spelling, or null. */
  resolve(ticker: string): Security | null {
    return this.byKey.get(tickerKey(ticker)) ?? null;
  }

  /**
   * Ranked search. Rank: exact ticker (or the ticker of every share class: BRK for BRK.A and
   * BRK.B), ticker prefix, name starting with the query (word by word, whatever stands between
   * the words: "coca-cola" starts COCA COLA CO), every query word starting a word of the name ("apple" finds Apple Inc., not Pineapple); within a rank, active listings first,
   * then the larger company (the SEC lists tickers by market value: "meta" finds Meta
   * Platforms before Meta Materials), then the shorter name (the closer match), then the
   * shorter ticker, then alphabetical.
   */
  search(query: string, page: number, perPage: number): SearchPage {
    const key = tickerKey(query);
    const text = query.trim().toLowerCase();
    const queryWords = wordsOf(text);
    const spacedQuery = queryWords.join(" ");
    const hits: { security: Security; rank: number; name: string }[] = [];
    for (const { security, name, words, spaced, base } of this.names) {
      const rank =
        security.ticker_key === key || base === key
          ? 0
          : security.ticker_key.startsWith(key)
            ? 1
            : spacedQuery !== "" && spaced.startsWith(spacedQuery)
              ? 2
              : queryWords.length > 0 && queryWords.every((q) => words.some((w) => w.startsWith(q)))
                ? 3
                : -1;
      if (rank >= 0) hits.push({ security, rank, name });
    }
    hits.sort(
      (a, b) =>
        a.rank - b.rank ||
        Number(b.security.active) - Number(a.security.active) ||
        (a.security.list_rank ?? UNRANKED) - (b.security.list_rank ?? UNRANKED) ||
        (a.rank >= 2 ? a.name.length - b.name.length : 0) ||
        a.security.ticker.length - b.security.ticker.length ||
        a.security.ticker.localeCompare(b.security.ticker),
    );
    const start = (page - 1) * perPage;
    return { rows: hits.slice(start, start + perPage).map((h) => h.security), total: hits.length };
  }
}

/** Where a security no SEC list ranks sorts among ranked ones: after them. */
const UNRANKED = Number.MAX_SAFE_INTEGER;

/** The words of a text: its runs of letters and digits. */
function wordsOf(text: string): string[] {
  return text.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}
