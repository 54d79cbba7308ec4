import type { InsiderTradeRow } from "../snapshot/rows.ts";
import type { LoadedSnapshot } from "./snapshot.ts";

/** An insider purchase or sale as served (an insider_tradings row of /openapi.json, plus its accession number). */
export type InsiderTrade = Omit<InsiderTradeRow, "cik" | "ticker">;

const TRADES = `SELECT transaction_date, transaction_code, shares, price, value, owner_name, owner_title,
    acquired_disposed, shares_owned_after, security_title, accession_number
  FROM insider_trades
  WHERE cik = $cik
    AND ($start IS NULL OR transaction_date >= CAST($start AS DATE))
    AND ($end IS NULL OR transaction_date <= CAST($end AS DATE))
  ORDER BY seq
  LIMIT $limit`;

/** Purchases and sales (codes P and S, as imported) of a company's insiders, newest first. */
export function getInsiderTrades(
  snapshot: LoadedSnapshot,
  cik: string,
  start: string | null,
  end: string | null,
  limit: number,
) {
  if (!snapshot.has("insider_trades")) return Promise.resolve([] as InsiderTrade[]);
  return snapshot.all<InsiderTrade>(TRADES, { cik, start, end, limit });
}
