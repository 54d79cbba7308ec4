/**
 * `serve --sync-every 24h`: the server runs `stockd sync` itself, one run after another with the
 * interval between the end of one and the start of the next, for the universe earlier runs
 * built. The served snapshot switches when a run imports one (the server follows CURRENT). A
 * run that fails is logged and the next one retries; a sync started from the command line
 * meanwhile holds the lock, and the scheduled run is skipped.
 */
import type { Config } from "../config.ts";
import { addDays } from "../domain/dates.ts";
import type { Logger } from "../log.ts";
import { SyncLockedError } from "./lock.ts";
import { SyncProgress } from "./progress.ts";
import { runSync } from "./run.ts";

/** `30s`, `15m`, `24h`, `7d` as milliseconds; null when the text is none of these. */
export function parseInterval(text: string): number | null {
  const m = /^(\d{1,6})(s|m|h|d)$/.exec(text);
  if (!m) return null;
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "s" | "m" | "h" | "d"];
  const ms = Number(m[1]) * unit;
  return ms >= 1000 ? ms : null;
}

/** A running schedule; `stop` ends it after the run under way (which is safe to cut short). */
export interface SyncSchedule {
  stop(): void;
}

/** Starts syncing every `intervalMs`, the first run after one interval. */
export function scheduleSync(
  config: Config,
  userAgent: string,
  intervalMs: number,
  log: Logger,
): SyncSchedule {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  const next = () => {
    if (!stopped) timer = setTimeout(() => void once().finally(next), intervalMs);
  };
  const once = async () => {
    const now = new Date();
    try {
      const summary = await runSync(
        config,
        {
          userAgent,
          tickers: [],
          allListed: false,
          since: null,
          form4Since: addDays(now.toISOString().slice(0, 10), -365),
          lenient: false,
          noImport: false,
          now,
        },
        log,
        new SyncProgress(null),
      );
      log.info("scheduled sync done", {
        status: summary.status,
        snapshot: summary.snapshot,
        error: summary.error,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof SyncLockedError) log.info("scheduled sync skipped", { reason: message });
      else log.error("scheduled sync failed", { error: message });
    }
  };
  next();
  return {
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
