/**
 * SEC ticker lists.
 * - `company_tickers_exchange.json`: `{"fields":["cik","name","ticker","exchange"],"data":[[320193,"Apple Inc.","AAPL","Nasdaq"],...]}`
 * - `company_tickers.json`: `{"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."},...}` (no exchange)
 * A ticker listed in either is active; the exchange list wins where both name a ticker. A
 * ticker must be one (`readTicker`); a row that names no ticker is a bad record.
 */
import { normalizeCik } from "../../domain/tickers.ts";
import { ImportError } from "../errors.ts";
import {
  FieldError,
  isObject,
  type ParseOptions,
  type ParseResult,
  parseJson,
  RecordCollector,
  readTicker,
  shown,
} from "./value-readers.ts";

export interface TickerRow {
  cik: string;
  name: string;
  ticker: string;
  exchange: string | null;
}

/** Parses `company_tickers_exchange.json`. */
export function parseTickersExchange(
  text: string,
  file: string,
  opts: ParseOptions = {},
): ParseResult<TickerRow> {
  const json = parseJson(text, file);
  if (!isObject(json) || !Array.isArray(json.fields) || !Array.isArray(json.data)) {
    throw new ImportError(file, null, 'expected {"fields":[...],"data":[[...]]}');
  }
  const fields = json.fields as unknown[];
  const at = (name: string) => {
    const i = fields.indexOf(name);
    if (i < 0) throw new ImportError(file, null, `fields has no "${name}"`);
    return i;
  };
  const [cikAt, nameAt, tickerAt, exchangeAt] = [at("cik"), at("name"), at("ticker"), at("exchange")];
  const out = new RecordCollector<TickerRow>(file, opts.lenient ?? false);
  for (const [i, record] of (json.data as unknown[]).entries()) {
    out.add(
      null,
      () => {
        if (!Array.isArray(record)) throw new FieldError("not an array");
        return tickerRow(record[cikAt], record[nameAt], record[tickerAt], record[exchangeAt]);
      },
      `data[${i}]`,
    );
  }
  return out.result();
}

/** Parses `company_tickers.json`. */
export function parseCompanyTickers(
  text: string,
  file: string,
  opts: ParseOptions = {},
): ParseResult<TickerRow> {
  const json = parseJson(text, file);
  if (!isObject(json)) throw new ImportError(file, null, 'expected {"0":{"cik_str","ticker","title"},...}');
  const out = new RecordCollector<TickerRow>(file, opts.lenient ?? false);
  for (const [k, record] of Object.entries(json)) {
    out.add(
      null,
      () => {
        if (!isObject(record)) throw new FieldError("not an object");
        return tickerRow(record.cik_str, record.title, record.ticker, null);
      },
      `[${shown(k)}]`,
    );
  }
  return out.result();
}

function tickerRow(cikValue: unknown, name: unknown, ticker: unknown, exchange: unknown): TickerRow {
  const cik = normalizeCik(cikValue);
  if (!cik) throw new FieldError(`cik ${shown(cikValue)} is not a CIK`);
  if (typeof ticker !== "string") throw new FieldError(`ticker ${shown(ticker)} is not text`);
  if (typeof name !== "string") throw new FieldError(`name ${shown(name)} is not text`);
  const exch = typeof exchange === "string" && exchange.trim() ? exchange.trim() : null;
  return { cik, name: name.trim(), ticker: readTicker(ticker, "ticker"), exchange: exch };
}
