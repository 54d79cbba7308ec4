/**
 * Alpha Vantage (official API, the user's own key): `function=TIME_SERIES_DAILY_ADJUSTED`,
 * whose days are as traded with each day's dividend and split coefficient. `outputsize=compact`
 * (the last 100 trading days) serves an update, `full` a first fetch or a long gap. A `Note` or
 * `Information` answer (rate limit, daily budget, a plan without the endpoint) stops the price
 * stage; an `Error Message` means the symbol is unknown. The key is sent only in the query
 * and blanked in every log line (http.ts safeUrl).
 */
import { addDays } from "../../domain/dates.ts";
import type { Logger } from "../../log.ts";
import { HttpSource, Limiter, type Verdict } from "../http.ts";
import { MAX_DOCUMENT_BYTES } from "../sec.ts";
import { type DailyBar, NoSuchTickerError, type PriceHistory, type PriceProvider } from "./provider.ts";

/** Compact answers hold 100 trading days: about 140 calendar days, less a margin. */
const COMPACT_DAYS = 130;

export interface AlphaVantageOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  /** The wait before the first retry (doubled for each further one); 500 ms by default. */
  backoffMs?: number;
  /** Requests per second (the free plan allows 5 a minute and 25 a day). */
  perSecond?: number;
  log: Logger;
}

export class AlphaVantageProvider implements PriceProvider {
  readonly name = "alphavantage";
  readonly http: HttpSource;

  constructor(private readonly opts: AlphaVantageOptions) {
    this.http = new HttpSource({
      name: "alphavantage",
      limiter: new Limiter(opts.perSecond ?? 5 / 60),
      headers: {},
      timeoutMs: opts.timeoutMs,
      backoffMs: opts.backoffMs,
      classify: classifyAlphaVantage,
      log: opts.log,
    });
  }

  async history(ticker: string, since: string | null): Promise<PriceHistory> {
    const today = new Date().toISOString().slice(0, 10);
    const compact = since !== null && since >= addDays(today, -COMPACT_DAYS);
    const query = new URLSearchParams({
      function: "TIME_SERIES_DAILY_ADJUSTED",
      symbol: ticker,
      outputsize: compact ? "compact" : "full",
      apikey: this.opts.apiKey,
    });
    const fetched = await this.http.get(`${this.opts.baseUrl}/query?${query}`, {
      maxBytes: MAX_DOCUMENT_BYTES,
    });
    return parseDailyAdjusted(new TextDecoder().decode(fetched.body), ticker, since);
  }
}

/** Alpha Vantage answers its limits with HTTP 200 and a `Note` or `Information` object. */
function classifyAlphaVantage(status: number, body: string): Verdict {
  if (status === 429 || /^\s*\{\s*"(Note|Information)"/.test(body))
    return { kind: "fatal", reason: "rate limit or plan limit reached (Note/Information answer)" };
  if (status === 401 || status === 403) return { kind: "fatal", reason: `HTTP ${status}: check the API key` };
  return { kind: "ok" };
}

type Day = Record<string, string>;

/** The days of a TIME_SERIES_DAILY_ADJUSTED answer from `since` on. */
export function parseDailyAdjusted(text: string, ticker: string, since: string | null): PriceHistory {
  let json: { "Time Series (Daily)"?: Record<string, Day>; "Error Message"?: string };
  try {
    json = JSON.parse(text);
  } catch {
    throw new SyntaxError(`alphavantage ${ticker}: not JSON`);
  }
  if (json["Error Message"] !== undefined)
    throw new NoSuchTickerError(`alphavantage ${ticker}: ${json["Error Message"]}`);
  const series = json["Time Series (Daily)"];
  if (typeof series !== "object" || series === null)
    throw new SyntaxError(
      `alphavantage ${ticker}: no "Time Series (Daily)" (a plain TIME_SERIES_DAILY answer?)`,
    );
  const history: PriceHistory = { bars: [], dividends: [], splits: [] };
  for (const date of Object.keys(series).sort()) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || (since !== null && date < since)) continue;
    const day = series[date] as Day;
    const close = Number(day["4. close"]);
    if (!(close > 0)) throw new SyntaxError(`alphavantage ${ticker} ${date}: close ${day["4. close"]}`);
    const bar: DailyBar = {
      date,
      open: numberOrNull(day["1. open"]),
      high: numberOrNull(day["2. high"]),
      low: numberOrNull(day["3. low"]),
      close,
      volume: numberOrNull(day["6. volume"]),
    };
    history.bars.push(bar);
    const dividend = Number(day["7. dividend amount"] ?? 0);
    if (dividend > 0) history.dividends.push({ exDate: date, amount: dividend });
    const split = Number(day["8. split coefficient"] ?? 1);
    if (split > 0 && split !== 1) history.splits.push({ date, ratio: split });
  }
  return history;
}

function numberOrNull(text: string | undefined): number | null {
  const value = Number(text);
  return text === undefined || text === "" || !Number.isFinite(value) ? null : value;
}
