/**
 * One `stockd sync`: take the data dir's lock, fill the mirror (EDGAR, then prices when a
 * provider is configured), then import the mirror through the normal importer, which writes a
 * new snapshot and activates it (a running server follows CURRENT). Nothing served changes
 * until that import succeeds: a run that fails, stops or is killed leaves the active snapshot
 * as it was, and its files in the mirror are whole and kept for the next run.
 */
import type { Config } from "../config.ts";
import { tickerKey } from "../domain/tickers.ts";
import { importSources } from "../ingest/pipeline/import.ts";
import { parseTickersExchange } from "../ingest/sources/tickers.ts";
import type { Logger } from "../log.ts";
import { type EdgarPlan, type EdgarResult, EdgarStage } from "./edgar.ts";
import { FetchFailedError, type SourceCounters, SourceStoppedError } from "./http.ts";
import { acquireSyncLock } from "./lock.ts";
import { CounterFlusher } from "./metrics.ts";
import { BadBodyError, Mirror } from "./mirror.ts";
import { AlphaVantageProvider } from "./prices/alphavantage.ts";
import type { PriceProvider } from "./prices/provider.ts";
import { type PriceResult, syncPrices } from "./prices/stage.ts";
import { YahooProvider } from "./prices/yahoo.ts";
import type { StageTotals, SyncProgress, SyncStage } from "./progress.ts";
import { SecClient, secFiles } from "./sec.ts";
import { SyncState } from "./state.ts";

/** The state flag saying the mirror changed since its last import. */
export const PENDING_IMPORT = "mirror.pending_import";
export const LAST_SNAPSHOT = "import.last_snapshot";

export interface SyncOptions extends EdgarPlan {
  userAgent: string;
  /** Passed to the import: skip bad records instead of failing. */
  lenient: boolean;
  /** Fills the mirror only; the next run (or `import --from DATA_DIR/sources`) imports it. */
  noImport: boolean;
}

/**
 * How the run ended: `ok` (imported, or nothing changed), `partial` (imported; some items
 * failed and are tried again next run), `failed` (nothing activated).
 */
export type SyncStatus = "ok" | "partial" | "failed";

export interface SyncSummary {
  status: SyncStatus;
  /** The snapshot imported and activated by this run, or null. */
  snapshot: string | null;
  started_at: string;
  ms: number;
  edgar: EdgarResult | null;
  prices: PriceResult | null;
  requests: Record<string, SourceCounters>;
  /** Time and requests of each stage the run went through. */
  stages: Partial<Record<SyncStage, StageTotals>>;
  error: string | null;
}

/** Runs one sync; throws SyncLockedError when another holds the data dir, UnknownTickerError for a bad universe. */
export async function runSync(
  config: Config,
  opts: SyncOptions,
  log: Logger,
  progress: SyncProgress,
): Promise<SyncSummary> {
  const lock = acquireSyncLock(config.dataDir);
  const state = SyncState.open(config.dataDir);
  const runId = state.startRun();
  const flusher = new CounterFlusher(state, log);
  const started = Date.now();
  const summary: SyncSummary = {
    status: "failed",
    snapshot: null,
    started_at: new Date(started).toISOString(),
    ms: 0,
    edgar: null,
    prices: null,
    requests: {},
    stages: {},
    error: null,
  };
  try {
    let marked = false;
    const mirror = new Mirror(config.dataDir, () => {
      if (!marked) state.setWatermark(PENDING_IMPORT, "1");
      marked = true;
    });
    const sec = new SecClient(config.sync, opts.userAgent, log);
    summary.requests.sec = sec.http.counters;
    progress.watch("sec", sec.http.counters);
    flusher.watch("sec", sec.http.counters);
    log.info("sync started", { run: runId, tickers: opts.tickers.length, all_listed: opts.allListed });
    try {
      summary.edgar = await new EdgarStage(sec, mirror, state, progress, log).run(opts);
      const provider = priceProvider(config, log);
      if (provider) {
        progress.enter("prices");
        summary.requests[provider.name] = provider.http.counters;
        progress.watch(provider.name, provider.http.counters);
        flusher.watch(provider.name, provider.http.counters);
        summary.prices = await syncPrices(
          provider,
          universeTickers(mirror, state),
          state,
          mirror,
          progress,
          log,
        );
      }
    } catch (error) {
      // A stopped source, or a failure the run cannot go on without (the SEC's ticker lists).
      if (
        !(
          error instanceof SourceStoppedError ||
          error instanceof FetchFailedError ||
          error instanceof BadBodyError
        )
      )
        throw error;
      summary.error = error.message;
      log.error("sync stopped", { run: runId, reason: error.message });
      return summary;
    }
    if (state.watermark(PENDING_IMPORT) === "1" && !opts.noImport) {
      progress.enter("import");
      progress.start("importing");
      const manifest = await importSources(mirror.root, config.dataDir, {
        lenient: opts.lenient,
        label: "sync",
        progress: (message) => progress.start(`importing: ${message}`),
      });
      state.setWatermark(PENDING_IMPORT, "0");
      state.setWatermark(LAST_SNAPSHOT, manifest.id);
      summary.snapshot = manifest.id;
    }
    const failures = (summary.edgar?.failures.length ?? 0) + (summary.prices?.failures.length ?? 0);
    summary.status = failures > 0 || summary.prices?.stopped ? "partial" : "ok";
    return summary;
  } catch (error) {
    summary.error = error instanceof Error ? error.message : String(error);
    throw error;
  } finally {
    summary.ms = Math.round(Date.now() - started);
    progress.leave();
    summary.stages = progress.stages();
    // The lock is released whatever the state file does (a full disk): a held lock would
    // refuse every later run of this process.
    try {
      flusher.stop();
      state.endRun(runId, summary.status, summary);
    } finally {
      state.close();
      lock.release();
    }
    log.info("sync ended", {
      run: runId,
      status: summary.status,
      snapshot: summary.snapshot,
      ms: summary.ms,
    });
  }
}

/** The configured price provider, or null (none is on by default). */
function priceProvider(config: Config, log: Logger): PriceProvider | null {
  const s = config.sync;
  const perSecond = s.priceRequestsPerMinute === null ? undefined : s.priceRequestsPerMinute / 60;
  if (s.priceProvider === "alphavantage" && s.alphaVantageKey !== null)
    return new AlphaVantageProvider({
      baseUrl: s.alphaVantageUrl,
      apiKey: s.alphaVantageKey,
      timeoutMs: s.requestTimeoutMs,
      backoffMs: s.retryBackoffMs,
      perSecond,
      log,
    });
  if (s.priceProvider === "yahoo")
    return new YahooProvider({
      baseUrl: s.yahooUrl,
      timeoutMs: s.requestTimeoutMs,
      backoffMs: s.retryBackoffMs,
      perSecond,
      log,
    });
  return null;
}

/** The current tickers of the universe's companies, as the SEC's exchange list names them. */
function universeTickers(mirror: Mirror, state: SyncState): string[] {
  const ciks = new Set(state.universe());
  const rows = parseTickersExchange(
    mirror.read(secFiles.tickersExchange.mirror),
    "company_tickers_exchange.json",
    {
      lenient: true,
    },
  ).rows;
  const tickers = new Map<string, string>();
  for (const row of rows) if (ciks.has(row.cik)) tickers.set(tickerKey(row.ticker), row.ticker);
  return [...tickers.values()].sort();
}
