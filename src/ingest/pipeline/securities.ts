import { tickerKey } from "../../domain/tickers.ts";
import type { SecurityRow } from "../../snapshot/rows.ts";
import type { FiledSymbol } from "../rules/filed-symbols.ts";
import type { FigiRow } from "../sources/figi.ts";
import type { CompanyRecord } from "../sources/submissions.ts";
import type { TickerRow } from "../sources/tickers.ts";

/**
 * Merges the listings into one security per ticker. Precedence: the SEC exchange list, then
 * the plain ticker list, then tickers named in submissions files, then symbols named in
 * ownership filings (both listed as inactive: no current list names them), then price files
 * with no other listing. OpenFIGI rows add identifiers and the security type. All SEC-listed
 * tickers trade in USD.
 */
export function buildSecurities(input: {
  exchangeList: TickerRow[];
  tickerList: TickerRow[];
  companies: CompanyRecord[];
  filedSymbols: FiledSymbol[];
  figi: FigiRow[];
  priceTickers: string[];
}): Map<string, SecurityRow> {
  const out = new Map<string, SecurityRow>();
  const add = (
    ticker: string,
    cik: string | null,
    name: string,
    exchange: string | null,
    active: boolean,
    listRank: number | null = null,
  ) => {
    const key = tickerKey(ticker);
    if (out.has(key)) return;
    out.set(key, {
      security_id: key,
      ticker,
      ticker_key: key,
      cik,
      name,
      exchange,
      security_type: null,
      currency_code: "USD",
      composite_figi: null,
      share_class_figi: null,
      active,
      list_rank: listRank,
    });
  };
  // One order over both lists: the exchange list's, then the plain list's after it.
  const listed = [...input.exchangeList, ...input.tickerList];
  for (const [i, t] of listed.entries()) add(t.ticker, t.cik, t.name, t.exchange, true, i);
  for (const c of input.companies) {
    for (const [i, ticker] of c.tickers.entries())
      if (ticker) add(ticker, c.cik, c.name, c.exchanges[i] ?? null, false);
  }
  for (const s of input.filedSymbols) add(s.ticker, s.cik, s.name, null, false);
  for (const ticker of input.priceTickers) add(ticker, null, ticker, null, false);
  // The US composite listing (exchCode "US") identifies a security across US exchanges.
  const figi = [...input.figi].sort((a, b) => Number(b.exch_code === "US") - Number(a.exch_code === "US"));
  for (const f of figi) {
    const security = out.get(tickerKey(f.ticker));
    if (!security || security.composite_figi) continue;
    security.composite_figi = f.composite_figi;
    security.share_class_figi = f.share_class_figi;
    security.security_type = f.security_type;
  }
  return out;
}
