/**
 * The small per-ticker sources, read whole before the per-company pass: dividends, the
 * earnings calendar, estimates (signals and earnings histories) and growth signals.
 */
import { join } from "node:path";
import { tickerKey } from "../../domain/tickers.ts";
import type { CalendarRow } from "../../snapshot/documents.ts";
import type { ImportContext } from "../context.ts";
import { latestCalendarRows } from "../rules/calendar-securities.ts";
import { nextQuarterGap } from "../rules/earnings.ts";
import { parseCalendar } from "../sources/calendar.ts";
import { type DividendRow, parseDividends } from "../sources/dividends.ts";
import { type EarningsHistory, type EstimateSignalsRow, parseEstimatesFile } from "../sources/estimates.ts";
import { type GrowthSignalsRow, parseGrowthSignalsCsv } from "../sources/growth-signals.ts";
import { carriesDividends, parsePriceFileDividends } from "../sources/price-files.ts";
import { tickerFromFileName } from "../sources/value-readers.ts";

export interface MarketSources {
  /** By ticker key; an entry (possibly empty) means the ticker's dividend history was imported. */
  dividends: Map<string, DividendRow[]>;
  calendar: CalendarRow[];
  estimates: Map<string, EstimateSignalsRow>;
  histories: Map<string, EarningsHistory>;
  growth: Map<string, GrowthSignalsRow>;
}

/**
 * Reads them all. A price file that carries dividend events (an Alpha Vantage series, a
 * yfinance CSV with actions; `priceFiles` is by ticker key) gives them to a ticker that has
 * no dividends file of its own.
 */
export function readMarketSources(
  ctx: ImportContext,
  priceFiles: ReadonlyMap<string, string>,
): MarketSources {
  const dividends = new Map<string, DividendRow[]>();
  for (const file of ctx.files(join(ctx.root, "dividends"), ".csv", ".json")) {
    // A file name that is no ticker fails the import, or when lenient skips the file.
    const ticker = ctx.guard(file, "dividends", () => tickerFromFileName(ctx.name(file)));
    if (ticker === null) continue;
    const rows = ctx.parse(file, "dividends", (text, name, opts) =>
      parseDividends(text, name, { ...opts, ticker }),
    );
    dividends.set(tickerKey(ticker), rows);
  }
  for (const [key, file] of priceFiles) {
    if (dividends.has(key) || !carriesDividends(file, ctx.head(file))) continue;
    const rows = ctx.parse(file, "dividends", (text, name, opts) =>
      parsePriceFileDividends(text, name, { ...opts, ticker: key }),
    );
    dividends.set(key, rows);
  }
  const calendar = ctx
    .files(join(ctx.root, "calendar"), ".csv", ".json")
    .flatMap((f) => ctx.parse(f, "calendar", parseCalendar));
  const estimates = new Map<string, EstimateSignalsRow>();
  const histories = new Map<string, EarningsHistory>();
  for (const file of ctx.files(join(ctx.root, "estimates"), ".csv", ".json")) {
    const parsed = ctx.guard(file, "estimates", () =>
      parseEstimatesFile(ctx.read(file), ctx.name(file), ctx.parseOptions),
    );
    if (parsed === null) continue;
    ctx.count("estimates", file, parsed.result.rows.length, parsed.result.skipped);
    if (parsed.kind === "signals") for (const row of parsed.result.rows) keepLatest(estimates, row);
    else for (const h of parsed.result.rows) histories.set(tickerKey(h.ticker), h);
  }
  noteUnservedHistories(ctx, histories, estimates);
  const growth = new Map<string, GrowthSignalsRow>();
  for (const file of ctx.files(join(ctx.root, "growth"), ".csv")) {
    for (const row of ctx.parse(file, "growth", parseGrowthSignalsCsv)) keepLatest(growth, row);
  }
  return { dividends, calendar: latestCalendarRows(calendar), estimates, histories, growth };
}

/**
 * Names in the import report the earnings histories that give no estimates document (no
 * signals row of their ticker and no next-quarter basis; compute/earnings.ts), and why, so
 * that an imported file is never silently unused.
 */
function noteUnservedHistories(
  ctx: ImportContext,
  histories: ReadonlyMap<string, EarningsHistory>,
  signals: ReadonlyMap<string, EstimateSignalsRow>,
): void {
  const unserved = [...histories]
    .filter(([key]) => !signals.has(key))
    .flatMap(([, history]) => {
      const gap = nextQuarterGap(history);
      return gap === null ? [] : [`${history.ticker} (${gap})`];
    });
  if (unserved.length === 0) return;
  ctx.note(
    `estimates: no /estimates document from the earnings histories of ${unserved.join("; ")}: without a signals row, eps_growth_yoy_est_next_q needs an estimate for a quarter not yet reported and the reported EPS (above 0) of that quarter a year earlier; the reported quarters serve /earnings`,
  );
}

/** The newest signals row (by as_of_date) per ticker. */
function keepLatest<T extends { ticker: string; as_of_date: string }>(map: Map<string, T>, row: T): void {
  const key = tickerKey(row.ticker);
  const seen = map.get(key);
  if (!seen || row.as_of_date >= seen.as_of_date) map.set(key, row);
}
