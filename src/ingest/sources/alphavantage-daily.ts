/**
 * Alpha Vantage `TIME_SERIES_DAILY_ADJUSTED` responses as price files (`prices/<TICKER>.json`):
 * `{"Meta Data": {"2. Symbol": "HD", ...}, "Time Series (Daily)": {"2023-07-19": {"1. open",
 * "2. high", "3. low", "4. close", "5. adjusted close", "6. volume", "7. dividend amount",
 * "8. split coefficient"}, ...}}`, numbers as strings.
 *
 * Its open, high, low and close are as traded; the snapshot's are split-adjusted (as Yahoo
 * serves them). So every price before a split is divided by the split coefficients of the
 * days after it (a coefficient on a day applies to the days before it: that day's prices are
 * already post-split), and every volume multiplied by them. "5. adjusted close" (splits and
 * dividends) is kept as the adjusted close. The dividend amounts of the same file, divided
 * the same way, are the ticker's dividend history when no dividends file of its own is
 * imported (`parseAlphaVantageDividends`).
 *
 * A plain `TIME_SERIES_DAILY` response has no split coefficients, so its prices cannot be
 * put on the split-adjusted basis: it fails as a whole, as does an Alpha Vantage error or
 * rate-limit answer saved in place of the series. When lenient, a bad day is skipped, except
 * a day with a split or a dividend: every earlier price depends on it, so it fails the file.
 */
import { normalizeTicker } from "../../domain/tickers.ts";
import { ImportError } from "../errors.ts";
import { type DividendRow, priceFileDividend } from "./dividends.ts";
import { checkAdjustedPrices, type PriceFile, type PriceRow } from "./price-rows.ts";
import {
  checkVolume,
  FieldError,
  isObject,
  type ParseOptions,
  type ParseResult,
  parseJson,
  RecordCollector,
  readDate,
  readNumber,
  readPrice,
  roundDecimal,
  shown,
  textProp,
} from "./value-readers.ts";

const SERIES = "Time Series (Daily)";
const SPLIT = "8. split coefficient";
const DIVIDEND = "7. dividend amount";
/** Where the symbol sits near the top of the file (read without parsing the whole file). */
const SYMBOL = /"2\. Symbol"\s*:\s*"([^"]{1,40})"/;

/** The keys an Alpha Vantage response starts with: a series, or an error or rate-limit answer. */
const RESPONSE_KEY = /"(Meta Data|Time Series \(Daily\)|Error Message|Note|Information)"\s*:/;

/**
 * Whether a file's first bytes are JSON of another kind than an Alpha Vantage response (a
 * download log next to the price files): such a file is left, not read. An empty file, an
 * HTML error page or an Alpha Vantage error answer is read, and fails.
 */
export function isOtherJson(head: string): boolean {
  return /^\s*[[{]/.test(head) && !RESPONSE_KEY.test(head);
}

/**
 * The symbol an Alpha Vantage file names in its "Meta Data", from the file's first bytes; null
 * if none, or none that is a ticker (then the file is read under its name, and reading it
 * refuses the symbol: `readSeries`).
 */
export function alphaVantageSymbol(head: string): string | null {
  const symbol = SYMBOL.exec(head)?.[1];
  return symbol === undefined ? null : normalizeTicker(symbol);
}

/** One day as the file gives it (prices as traded). */
interface RawDay {
  price: PriceRow;
  split: number;
  dividend: number;
}

/**
 * The daily prices, split-adjusted (see the module comment), ascending by date; the splits are
 * each day whose split coefficient is not 1, as new shares per old share.
 */
export function parseAlphaVantagePrices(text: string, file: string, opts: ParseOptions = {}): PriceFile {
  const { days, skipped } = readSeries(text, file, opts);
  const splits = days
    .filter((d) => d.split > 0 && d.split !== 1)
    .map((d) => ({ date: d.price.date, ratio: d.split }))
    .sort((a, b) => (a.date < b.date ? -1 : 1));
  return { rows: onSplitBasis(days, file).map((d) => d.price), skipped, splits };
}

/** The file's cash dividends on the split-adjusted basis of its prices, ascending by ex-date. */
export function parseAlphaVantageDividends(
  text: string,
  file: string,
  opts: ParseOptions & { ticker: string },
): ParseResult<DividendRow> {
  const { days, skipped } = readSeries(text, file, opts);
  const rows = onSplitBasis(days, file)
    .filter((d) => d.dividend > 0)
    .map((d) => priceFileDividend(opts.ticker, d.price.date, d.dividend));
  return { rows, skipped };
}

function readSeries(
  text: string,
  file: string,
  opts: ParseOptions,
): { days: RawDay[]; skipped: ParseResult<RawDay>["skipped"] } {
  const json = parseJson(text, file);
  if (!isObject(json)) throw new ImportError(file, null, "expected a JSON object");
  checkSymbol(json, file);
  const series = json[SERIES];
  if (!isObject(series)) {
    const answer = ["Error Message", "Note", "Information"]
      .map((k) => json[k])
      .find((v) => typeof v === "string");
    throw new ImportError(
      file,
      null,
      answer === undefined
        ? `"${SERIES}" is missing: not an Alpha Vantage daily series`
        : `Alpha Vantage answered instead of a series: ${String(answer).slice(0, 200)}`,
    );
  }
  const entries = Object.entries(series);
  if (entries.length > 0 && !entries.some(([, day]) => isObject(day) && SPLIT in day)) {
    throw new ImportError(
      file,
      null,
      `no "${SPLIT}": prices as traded cannot be split-adjusted; use TIME_SERIES_DAILY_ADJUSTED`,
    );
  }
  const out = new RecordCollector<RawDay>(file, opts.lenient === true);
  for (const [date, day] of entries) {
    const where = `${SERIES}.${date}`;
    out.add(
      null,
      () => {
        try {
          return rawDay(date, day);
        } catch (error) {
          // A split or a dividend adjusts every earlier price: its day cannot be skipped.
          if (opts.lenient && error instanceof FieldError && carriesEvent(day))
            throw new ImportError(
              file,
              null,
              `${where}: ${error.message} (a day with a split or a dividend cannot be skipped)`,
            );
          throw error;
        }
      },
      where,
    );
  }
  const { rows, skipped } = out.result();
  rows.sort((a, b) => (a.price.date < b.price.date ? -1 : 1));
  return { days: rows, skipped };
}

/** A "2. Symbol" in the "Meta Data" must be a ticker (see `alphaVantageSymbol`). */
function checkSymbol(json: Record<string, unknown>, file: string): void {
  const meta = json["Meta Data"];
  const symbol = isObject(meta) ? meta["2. Symbol"] : undefined;
  if (symbol === undefined || (typeof symbol === "string" && normalizeTicker(symbol) !== null)) return;
  throw new ImportError(file, null, `"Meta Data"."2. Symbol" ${shown(symbol)} is not a ticker symbol`);
}

/** Whether a day's raw fields hold a split or a dividend (or cannot tell: a field that is not a number). */
function carriesEvent(day: unknown): boolean {
  if (!isObject(day)) return false;
  const split = day[SPLIT];
  const dividend = day[DIVIDEND];
  return (split !== undefined && Number(split) !== 1) || (dividend !== undefined && Number(dividend) !== 0);
}

function rawDay(date: string, day: unknown): RawDay {
  if (!isObject(day)) throw new FieldError("expected an object of prices");
  const price = (key: string) => readPrice(textProp(day, key), `"${key}"`);
  const close = price("4. close");
  if (close === null) throw new FieldError(`"4. close" is missing`);
  if (close === 0) throw new FieldError(`"4. close" must be a positive price`);
  const split = readNumber(textProp(day, SPLIT), `"${SPLIT}"`);
  if (split === null) throw new FieldError(`"${SPLIT}" is missing`);
  if (!(split > 0)) throw new FieldError(`"${SPLIT}" ${split} must be positive`);
  const volume = readNumber(textProp(day, "6. volume"), `"6. volume"`);
  return {
    price: {
      date: readDate(date, "date"),
      open: price("1. open"),
      high: price("2. high"),
      low: price("3. low"),
      close,
      adj_close: price("5. adjusted close"),
      volume: volume === null ? null : checkVolume(volume, `"6. volume"`),
    },
    split,
    dividend: price(DIVIDEND) ?? 0,
  };
}

/**
 * The days with prices, volumes and dividends divided by the splits after each (ascending
 * input); a file whose coefficients make a price no price fails (`checkAdjustedPrices`).
 */
function onSplitBasis(days: readonly RawDay[], file: string): RawDay[] {
  const out: RawDay[] = new Array(days.length);
  let factor = 1;
  for (let i = days.length - 1; i >= 0; i--) {
    const day = days[i] as RawDay;
    const per = (v: number | null) => (v === null ? null : roundDecimal(v / factor));
    const p = day.price;
    out[i] = {
      ...day,
      price: {
        ...p,
        open: per(p.open),
        high: per(p.high),
        low: per(p.low),
        close: roundDecimal(p.close / factor),
        volume: p.volume === null ? null : Math.round(p.volume * factor),
      },
      dividend: roundDecimal(day.dividend / factor),
    };
    factor *= day.split;
  }
  checkAdjustedPrices(
    out.map((d) => d.price),
    file,
  );
  return out;
}
