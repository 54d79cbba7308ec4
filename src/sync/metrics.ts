/**
 * Sync on `/metrics` (docs/sync.md, "Metrics"): a run adds its request counters to running
 * totals in the state file once a second and when it ends (`CounterFlusher`), and the server
 * reads them from there with the runs' outcomes (`renderSyncMetrics`). A `stockd sync` in its
 * own process and a run of `serve --sync-every` inside the server are thus counted the same
 * way, at most a second behind, and the totals outlive both processes.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { family, labels } from "../http/metrics.ts";
import type { Logger } from "../log.ts";
import { INDEX_WATERMARK } from "./edgar.ts";
import type { SourceCounters } from "./http.ts";
import { lockHolder } from "./lock.ts";
import type { StageTotals } from "./progress.ts";
import { type CounterRow, SyncState, syncDir } from "./state.ts";

/** How often a run adds what it counted to the state's totals. */
const FLUSH_MS = 1000;

/** Adds the counters of a run's sources to the state's running totals as they grow. */
export class CounterFlusher {
  private readonly sources: { name: string; counters: SourceCounters }[] = [];
  /** What was added already, by name and labels. */
  private readonly flushed = new Map<string, number>();
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly state: SyncState,
    private readonly log: Logger,
  ) {
    this.timer = setInterval(() => this.flush(), FLUSH_MS);
    this.timer.unref?.();
  }

  watch(name: string, counters: SourceCounters): void {
    this.sources.push({ name, counters });
  }

  /**
   * Adds what grew since the last flush. A write that fails (a full disk, a busy or broken
   * state file) is logged and its deltas wait for the next flush: counters are not worth a
   * run, nor, under `serve --sync-every`, the server.
   */
  flush(): void {
    const deltas: CounterRow[] = [];
    const reached = new Map<string, number>();
    for (const row of this.sources.flatMap(({ name, counters }) => counterRows(name, counters))) {
      const key = `${row.name}${JSON.stringify(row.labels)}`;
      const delta = row.value - (this.flushed.get(key) ?? 0);
      if (delta === 0) continue;
      deltas.push({ ...row, value: delta });
      reached.set(key, row.value);
    }
    if (deltas.length === 0) return;
    try {
      this.state.addCounters(deltas);
    } catch (error) {
      this.log.warn("sync: its counters could not be written to the state; tried again in a second", {
        error: String(error),
      });
      return;
    }
    for (const [key, value] of reached) this.flushed.set(key, value);
  }

  /** The last flush; nothing is added after it. */
  stop(): void {
    clearInterval(this.timer);
    this.flush();
  }
}

/** A source's counters as rows of the running totals. */
function counterRows(source: string, c: SourceCounters): CounterRow[] {
  return [
    ...Object.entries(c.statuses).flatMap(([host, byClass]) =>
      Object.entries(byClass).map(([status, value]) => ({
        name: "requests",
        labels: { source, host, status },
        value,
      })),
    ),
    { name: "bytes", labels: { source }, value: c.bytes },
    { name: "retries", labels: { source }, value: c.retries },
    { name: "pauses", labels: { source }, value: c.pauses },
  ];
}

/** The families of each running total: name, type, help. */
const TOTALS: Record<string, [string, string]> = {
  requests: [
    "stockd_sync_requests_total",
    "Sync requests by source, host and status class (failed: no answer).",
  ],
  bytes: ["stockd_sync_bytes_total", "Body bytes sync received, by source."],
  retries: ["stockd_sync_retries_total", "Sync requests tried again (5xx, timeouts, cut bodies), by source."],
  pauses: ["stockd_sync_pauses_total", "Pauses of all of a source's requests on a throttle (403 or 429)."],
};

/** The outcomes a run ends with; a run that never ended and holds no lock was interrupted. */
const STATUSES = ["ok", "partial", "failed", "interrupted"] as const;

/**
 * The sync metrics of a data dir in the Prometheus text format: the running totals, the runs
 * by outcome, whether one runs now, the last run's outcome, end, duration and stages, the last
 * successful run's end and the daily-index watermark. Nothing when no sync ever ran.
 */
export function renderSyncMetrics(dataDir: string): string[] {
  if (!existsSync(join(syncDir(dataDir), "state.db"))) return [];
  const state = SyncState.open(dataDir);
  try {
    const running = lockHolder(dataDir) !== null;
    const totals = state.counters();
    const lines = Object.entries(TOTALS).flatMap(([name, [metric, help]]) =>
      family(
        metric,
        "counter",
        help,
        totals.filter((t) => t.name === name).map((t) => `${metric}${labels(t.labels)} ${t.value}`),
      ),
    );
    const counts = state.runCounts();
    // Of the runs that never ended, the one holding the lock is under way; the others were killed.
    const byStatus: Record<string, number> = {
      ...counts,
      interrupted: (counts.running ?? 0) - (running ? 1 : 0),
    };
    lines.push(
      ...family(
        "stockd_sync_runs_total",
        "counter",
        "Sync runs ended, by outcome.",
        STATUSES.map(
          (s) => `stockd_sync_runs_total${labels({ status: s })} ${Math.max(0, byStatus[s] ?? 0)}`,
        ),
      ),
      ...family("stockd_sync_running", "gauge", "Whether a sync holds this data dir now.", [
        `stockd_sync_running ${running ? 1 : 0}`,
      ]),
    );
    const ended = state.runs(50).filter((r) => r.endedAt !== null);
    const last = ended[0];
    if (last) {
      const summary = last.summary as { ms?: number; stages?: Record<string, StageTotals> } | null;
      const stages = Object.entries(summary?.stages ?? {});
      lines.push(
        ...family(
          "stockd_sync_last_run_status",
          "gauge",
          "The outcome of the last sync run that ended (1 for its status).",
          STATUSES.map(
            (s) => `stockd_sync_last_run_status${labels({ status: s })} ${last.status === s ? 1 : 0}`,
          ),
        ),
        ...family("stockd_sync_last_run_end_timestamp_seconds", "gauge", "When the last sync run ended.", [
          `stockd_sync_last_run_end_timestamp_seconds ${seconds(last.endedAt as string)}`,
        ]),
        ...family("stockd_sync_last_run_duration_seconds", "gauge", "How long the last sync run took.", [
          `stockd_sync_last_run_duration_seconds ${(summary?.ms ?? 0) / 1000}`,
        ]),
        ...family(
          "stockd_sync_last_run_stage_seconds",
          "gauge",
          "Time the last sync run spent in each stage it went through.",
          stages.map(([stage, t]) => `stockd_sync_last_run_stage_seconds${labels({ stage })} ${t.ms / 1000}`),
        ),
        ...family(
          "stockd_sync_last_run_stage_requests",
          "gauge",
          "Requests the last sync run sent in each stage (retries included).",
          stages.map(([stage, t]) => `stockd_sync_last_run_stage_requests${labels({ stage })} ${t.requests}`),
        ),
      );
    }
    const success = ended.find((r) => r.status === "ok" || r.status === "partial");
    if (success)
      lines.push(
        ...family(
          "stockd_sync_last_success_timestamp_seconds",
          "gauge",
          "When the last sync run that succeeded (ok or partial) ended.",
          [`stockd_sync_last_success_timestamp_seconds ${seconds(success.endedAt as string)}`],
        ),
      );
    const watermark = state.watermark(INDEX_WATERMARK);
    if (watermark !== null)
      lines.push(
        ...family(
          "stockd_sync_index_watermark_timestamp_seconds",
          "gauge",
          "The last day whose EDGAR daily index is fully in the mirror (its midnight UTC).",
          [`stockd_sync_index_watermark_timestamp_seconds ${seconds(`${watermark}T00:00:00Z`)}`],
        ),
      );
    return lines;
  } finally {
    state.close();
  }
}

function seconds(iso: string): number {
  return Date.parse(iso) / 1000;
}
