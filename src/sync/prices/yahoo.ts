/**
 * Yahoo Finance's chart API (unofficial, keyless, opt-in only; see docs/sync.md for its
 * caveats): `/v8/finance/chart/<SYMBOL>?period1&period2&interval=1d&events=div,splits`.
 * Its prices and dividends are split-adjusted to the day asked; within the window asked, every
 * split after a bar is in the answer's events, so the bars are put back as traded exactly.
 * Paced at 40 requests a minute, as peers found Yahoo tolerates; a 429 pauses it a minute.
 */
import type { Logger } from "../../log.ts";
import { HttpSource, Limiter, type Verdict } from "../http.ts";
import { MAX_DOCUMENT_BYTES } from "../sec.ts";
import { type DailyBar, NoSuchTickerError, type PriceHistory, type PriceProvider } from "./provider.ts";

export interface YahooOptions {
  baseUrl: string;
  timeoutMs: number;
  /** The wait before the first retry (doubled for each further one); 500 ms by default. */
  backoffMs?: number;
  perSecond?: number;
  /** How long a 429 pauses every Yahoo request. */
  pauseMs?: number;
  log: Logger;
}

/** Yahoo's first daily bars are from 1962; a whole history starts here. */
const EPOCH_START = -252_460_800; // 1962-01-01

export class YahooProvider implements PriceProvider {
  readonly name = "yahoo";
  readonly http: HttpSource;

  constructor(private readonly opts: YahooOptions) {
    const pauseMs = opts.pauseMs ?? 60_000;
    this.http = new HttpSource({
      name: "yahoo",
      limiter: new Limiter(opts.perSecond ?? 40 / 60),
      headers: { "user-agent": "Mozilla/5.0 (compatible; stockd)" },
      timeoutMs: opts.timeoutMs,
      backoffMs: opts.backoffMs,
      classify: (status): Verdict =>
        status === 429 ? { kind: "throttled", pauseMs, reason: "429 Too Many Requests" } : { kind: "ok" },
      log: opts.log,
    });
  }

  async history(ticker: string, since: string | null): Promise<PriceHistory> {
    const period1 = since === null ? EPOCH_START : Math.floor(Date.parse(`${since}T00:00:00Z`) / 1000);
    const query = new URLSearchParams({
      period1: String(period1),
      period2: String(Math.floor(Date.now() / 1000)),
      interval: "1d",
      events: "div,splits",
    });
    const url = `${this.opts.baseUrl}/v8/finance/chart/${encodeURIComponent(ticker)}?${query}`;
    const fetched = await this.http.get(url, { maxBytes: MAX_DOCUMENT_BYTES, accept: [404] });
    if (fetched.status === 404) throw new NoSuchTickerError(`yahoo ${ticker}: no such symbol`);
    return parseChart(new TextDecoder().decode(fetched.body), ticker, since);
  }
}

interface Chart {
  chart?: {
    result?: {
      meta?: { gmtoffset?: number };
      timestamp?: number[];
      indicators?: { quote?: { open?: Num[]; high?: Num[]; low?: Num[]; close?: Num[]; volume?: Num[] }[] };
      events?: {
        dividends?: Record<string, { amount?: number; date?: number }>;
        splits?: Record<string, { date?: number; numerator?: number; denominator?: number }>;
      };
    }[];
    error?: { code?: string; description?: string } | null;
  };
}
type Num = number | null;

/** The bars as traded, dividends as declared and splits of a chart answer, from `since` on. */
export function parseChart(text: string, ticker: string, since: string | null): PriceHistory {
  let json: Chart;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SyntaxError(`yahoo ${ticker}: not JSON`);
  }
  const result = json.chart?.result?.[0];
  if (!result)
    throw new SyntaxError(`yahoo ${ticker}: ${json.chart?.error?.description ?? "no chart.result"}`);
  const offset = result.meta?.gmtoffset ?? 0;
  const day = (ts: number) => new Date((ts + offset) * 1000).toISOString().slice(0, 10);
  const splits = Object.values(result.events?.splits ?? {})
    .filter((s) => typeof s.date === "number" && (s.numerator ?? 0) > 0 && (s.denominator ?? 0) > 0)
    .map((s) => ({ date: day(s.date as number), ratio: (s.numerator as number) / (s.denominator as number) }))
    .sort((a, b) => (a.date < b.date ? -1 : 1));
  // The factor that undoes Yahoo's split adjustment of a day: the splits after it.
  const asTraded = (date: string) => splits.filter((s) => s.date > date).reduce((f, s) => f * s.ratio, 1);
  const quote = result.indicators?.quote?.[0] ?? {};
  const bars: DailyBar[] = [];
  for (const [i, ts] of (result.timestamp ?? []).entries()) {
    const date = day(ts);
    const close = quote.close?.[i];
    // Ragged or null rows (a halted day, today's partial bar) carry no trade.
    if (typeof close !== "number" || !(close > 0) || (since !== null && date < since)) continue;
    const f = asTraded(date);
    const at = (column: Num[] | undefined) => {
      const value = column?.[i];
      return typeof value === "number" ? value * f : null;
    };
    const volume = quote.volume?.[i];
    bars.push({
      date,
      open: at(quote.open),
      high: at(quote.high),
      low: at(quote.low),
      close: close * f,
      volume: typeof volume === "number" ? Math.round(volume / f) : null,
    });
  }
  if (bars.length === 0 && since === null) throw new NoSuchTickerError(`yahoo ${ticker}: no bars`);
  const dividends = Object.values(result.events?.dividends ?? {})
    .filter((d) => typeof d.date === "number" && (d.amount ?? 0) > 0)
    .map((d) => {
      const exDate = day(d.date as number);
      return { exDate, amount: (d.amount as number) * asTraded(exDate) };
    })
    .filter((d) => since === null || d.exDate >= since);
  return { bars, dividends, splits: splits.filter((s) => since === null || s.date >= since) };
}
