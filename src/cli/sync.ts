import type { Config } from "../config.ts";
import { addDays } from "../domain/dates.ts";
import { normalizeTicker } from "../domain/tickers.ts";
import { createLogger } from "../log.ts";
import { latestFinalDay } from "../sync/daily-index.ts";
import { INDEX_WATERMARK, UnknownTickerError } from "../sync/edgar.ts";
import { lockHolder, SyncLockedError } from "../sync/lock.ts";
import { SyncProgress } from "../sync/progress.ts";
import { LAST_SNAPSHOT, PENDING_IMPORT, runSync, type SyncSummary } from "../sync/run.ts";
import { SyncState } from "../sync/state.ts";
import { Flags, type Io, type ParsedArgs, printResult, UsageError } from "./args.ts";

/** Exit code of a run that imported what it could while some items failed (tried again next run). */
const EXIT_PARTIAL = 3;
/** Ownership documents of a company new to the universe are fetched back this many days. */
const FORM4_DAYS = 365;
/** A price series whose last day is older than this many days is listed as stale. */
const STALE_PRICE_DAYS = 5;

/** `sync [--user-agent UA] [--tickers A,B] [--all-listed] [--since DAY] [--form4-since DAY]` and `sync status` */
export async function syncCommand(args: ParsedArgs, config: Config, io: Io): Promise<number> {
  if (args.positional[1] === "status") return statusCommand(args, config, io);
  if (args.positional.length > 1) throw new UsageError(`unknown sync subcommand "${args.positional[1]}"`);
  const flags = new Flags(args, [
    "user-agent",
    "tickers",
    "all-listed",
    "since",
    "form4-since",
    "lenient",
    "no-import",
  ]);
  const userAgent = config.sync.secUserAgent;
  if (userAgent === null)
    throw new UsageError(
      'the SEC asks every client to declare itself: give --user-agent "Name email@example.com" (or sec_user_agent in the config file, or STOCKD_SEC_USER_AGENT)',
    );
  if (config.sync.priceProvider === "alphavantage" && config.sync.alphaVantageKey === null)
    throw new UsageError(
      "price_provider alphavantage needs a key: alphavantage_api_key or STOCKD_ALPHAVANTAGE_API_KEY",
    );
  const now = new Date();
  const tickers = (flags.string("tickers") ?? "")
    .split(",")
    .filter((t) => t.trim() !== "")
    .map((t) => {
      const ticker = normalizeTicker(t);
      if (ticker === null) throw new UsageError(`--tickers: "${t}" is not a ticker`);
      return ticker;
    });
  const json = flags.bool("json");
  const log = createLogger(config.logLevel, (line) => process.stderr.write(line));
  const tty = process.stderr.isTTY === true && !json;
  const progress = new SyncProgress(tty ? (line) => process.stderr.write(`\r\x1b[2K${line}`) : null);
  let summary: SyncSummary;
  try {
    summary = await runSync(
      config,
      {
        userAgent,
        tickers,
        allListed: flags.bool("all-listed"),
        since: day(flags.string("since"), "--since"),
        form4Since:
          day(flags.string("form4-since"), "--form4-since") ??
          addDays(now.toISOString().slice(0, 10), -FORM4_DAYS),
        lenient: flags.bool("lenient"),
        noImport: flags.bool("no-import"),
        now,
      },
      log,
      progress,
    );
  } catch (error) {
    if (error instanceof SyncLockedError || error instanceof UnknownTickerError) {
      io.err(`stockd: ${error.message}`);
      return error instanceof SyncLockedError ? 1 : 2;
    }
    throw error;
  } finally {
    progress.stop();
    if (tty) process.stderr.write("\r\x1b[2K");
  }
  const sec = summary.requests.sec;
  const lines = [
    summary.snapshot ? `imported snapshot ${summary.snapshot} and activated it` : "no snapshot imported",
    `status ${summary.status} in ${(summary.ms / 1000).toFixed(1)} s; SEC: ${sec?.requests ?? 0} requests, ${((sec?.bytes ?? 0) / 1e6).toFixed(1)} MB, ${sec?.pauses ?? 0} pauses`,
  ];
  if (summary.edgar)
    lines.push(
      `universe ${summary.edgar.universe} companies; fetched ${summary.edgar.companies} companies, ${summary.edgar.documents} ownership documents; daily indexes read ${summary.edgar.indexDays} (watermark ${summary.edgar.watermark ?? "-"})`,
    );
  if (summary.prices)
    lines.push(
      `prices (${summary.prices.provider}): ${summary.prices.updated} of ${summary.prices.tickers} tickers updated${summary.prices.stopped ? `; stopped: ${summary.prices.stopped}` : ""}`,
    );
  for (const failure of [...(summary.edgar?.failures ?? []), ...(summary.prices?.failures ?? [])].slice(
    0,
    20,
  ))
    lines.push(`  failed (tried again next run): ${failure}`);
  if (summary.error) io.err(`stockd: sync stopped: ${summary.error}`);
  printResult(io, json, summary, lines);
  return summary.status === "ok" ? 0 : summary.status === "partial" ? EXIT_PARTIAL : 1;
}

function day(value: string | undefined, flag: string): string | null {
  if (value === undefined) return null;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value)))
    throw new UsageError(`${flag} must be a date YYYY-MM-DD, got "${value}"`);
  return value;
}

/** `sync status [--json]`: the last runs, the watermarks and what is stale. */
function statusCommand(args: ParsedArgs, config: Config, io: Io): number {
  const flags = new Flags(args, []);
  const state = SyncState.open(config.dataDir);
  try {
    const today = new Date().toISOString().slice(0, 10);
    const index = state.watermark(INDEX_WATERMARK);
    const finalDay = latestFinalDay(new Date());
    const series = state.allSeries();
    const stale = [
      ...(index !== null && index < finalDay
        ? [`daily indexes: read to ${index}, final to ${finalDay}`]
        : []),
      ...(state.watermark(PENDING_IMPORT) === "1" ? ["mirror: changed since its last import"] : []),
      ...series
        .filter((s) => s.lastDate === null || s.lastDate < addDays(today, -STALE_PRICE_DAYS))
        .map((s) => `prices ${s.ticker} (${s.provider}): last day ${s.lastDate ?? "-"}`),
    ];
    const running = lockHolder(config.dataDir);
    const runs = state.runs(10).map((r) => ({
      ...r,
      // A run without an end whose process is gone was killed.
      status: r.endedAt === null && running === null ? "interrupted" : r.status,
    }));
    const status = {
      running: running !== null ? { pid: running } : null,
      universe: state.universe().length,
      last_snapshot: state.watermark(LAST_SNAPSHOT),
      watermarks: state.watermarks(),
      filings: state.filingCounts(),
      prices: series,
      stale,
      runs,
    };
    const lines = [
      running !== null ? `a sync is running (pid ${running})` : "no sync running",
      `universe: ${status.universe} companies; last snapshot imported: ${status.last_snapshot ?? "-"}`,
      `daily indexes read to ${index ?? "- (no run yet)"}; ownership filings: ${JSON.stringify(status.filings)}`,
      ...runs
        .slice(0, 5)
        .map(
          (r) => `run ${r.id}: ${r.status}, started ${r.startedAt}${r.endedAt ? `, ended ${r.endedAt}` : ""}`,
        ),
      ...(stale.length > 0 ? ["stale:", ...stale.map((s) => `  ${s}`)] : ["nothing stale"]),
    ];
    printResult(io, flags.bool("json"), status, lines);
    return 0;
  } finally {
    state.close();
  }
}
