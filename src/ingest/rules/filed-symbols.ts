/** Which trading symbols named in insiders' ownership filings stand for a security of their issuer. */
import { normalizeTicker } from "../../domain/tickers.ts";
import type { OwnershipFiling } from "../sources/form4.ts";

/** A trading symbol an issuer's ownership filings name (`symbolsFiledByIssuers`). */
export interface FiledSymbol {
  ticker: string;
  cik: string;
  name: string;
}

/** Symbols that stand for no security: what filers write when the issuer has none. */
const NO_SYMBOL = new Set(["NONE", "N/A", "NA"]);

/**
 * The trading symbols issuers filed under, with the issuer's CIK and name (its symbol when the
 * filing names none), newest period of report first: a delisted company (LNKD, YHOO) or an old
 * symbol (FB for Meta) is reachable by the symbol its insiders' filings name. A missing symbol,
 * one that is no ticker, and NONE, N/A or NA are left out; repeats are kept (the securities
 * merge takes the first of a ticker).
 */
export function symbolsFiledByIssuers(documents: readonly OwnershipFiling[]): FiledSymbol[] {
  return documents
    .filter((d) => d.issuer.tradingSymbol !== null)
    .toSorted((a, b) => b.periodOfReport.localeCompare(a.periodOfReport))
    .flatMap((d) => {
      const ticker = normalizeTicker(d.issuer.tradingSymbol as string);
      return ticker === null || NO_SYMBOL.has(ticker)
        ? []
        : [{ ticker, cik: d.issuer.cik, name: d.issuer.name ?? (d.issuer.tradingSymbol as string) }];
    });
}
