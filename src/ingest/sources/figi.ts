/**
 * OpenFIGI v3 `/mapping` responses saved as `figi/*.json`: an array with one element per
 * mapping job, each `{"data":[{figi, ticker, exchCode, compositeFIGI, shareClassFIGI,
 * securityType, securityType2, marketSector, name}, ...]}` or `{"warning"|"error": "..."}`
 * (a job with no match, counted and skipped). The first US composite listing per ticker is
 * kept: its `compositeFIGI` identifies the security across US exchanges. A listing whose
 * `ticker` is no ticker (`normalizeTicker`: a listing abroad, Mexico's `AAPL*`) can identify no
 * security: it is left out and listed, not an error.
 */
import { normalizeTicker } from "../../domain/tickers.ts";
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

export interface FigiRow {
  ticker: string;
  composite_figi: string | null;
  share_class_figi: string | null;
  security_type: string | null;
  exch_code: string | null;
  name: string | null;
}

const FIGI = /^[A-Z0-9]{12}$/;

export function parseFigiMapping(text: string, file: string, opts: ParseOptions = {}): ParseResult<FigiRow> {
  const json = parseJson(text, file);
  if (!Array.isArray(json))
    throw new ImportError(file, null, "expected an array of OpenFIGI mapping results");
  const out = new RecordCollector<FigiRow>(file, opts.lenient ?? false);
  for (const [i, job] of json.entries()) {
    if (!isObject(job)) throw new ImportError(file, null, `[${i}] is not an object`);
    if (!Array.isArray(job.data)) continue;
    for (const [j, item] of job.data.entries()) {
      const where = `[${i}].data[${j}]`;
      if (isObject(item) && typeof item.ticker === "string" && normalizeTicker(item.ticker) === null)
        out.drop(null, `${where}: ticker ${shown(item.ticker)} is no ticker symbol`);
      else out.add(null, () => figiRow(item), where);
    }
  }
  return out.result();
}

function figiRow(item: unknown): FigiRow {
  if (!isObject(item)) throw new FieldError("not an object");
  if (typeof item.ticker !== "string") throw new FieldError("ticker is missing");
  return {
    ticker: readTicker(item.ticker, "ticker"),
    composite_figi: figi(item.compositeFIGI, "compositeFIGI"),
    share_class_figi: figi(item.shareClassFIGI, "shareClassFIGI"),
    security_type: str(item.securityType2) ?? str(item.securityType),
    exch_code: str(item.exchCode),
    name: str(item.name),
  };
}

function str(value: unknown): string | null {
  return typeof value === "string" && value.trim() ? value.trim() : null;
}

function figi(value: unknown, name: string): string | null {
  const v = str(value);
  if (v === null) return null;
  if (!FIGI.test(v)) throw new FieldError(`${name} ${shown(v)} is not a FIGI`);
  return v;
}
