/**
 * What a sync reports while it runs: the phase, companies done of the phase's total, requests
 * and bytes of each source, an ETA. On a terminal one line is rewritten in place twice a
 * second; elsewhere nothing is drawn (the structured log and the summary say what happened).
 * It also times the run's stages and counts their requests, for the summary and /metrics.
 */
import type { SourceCounters } from "./http.ts";

/** The stages of a run, in their order (a run may skip some). */
export type SyncStage = "tickers" | "baseline" | "daily" | "prices" | "import";

/** Time spent in a stage and the requests it sent. */
export interface StageTotals {
  ms: number;
  requests: number;
}

export class SyncProgress {
  phase = "starting";
  done = 0;
  total = 0;
  private phaseStarted = Date.now();
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly sources: { name: string; counters: SourceCounters }[] = [];
  private stage: { name: SyncStage; started: number; requests: number } | null = null;
  private readonly stageTotals: Partial<Record<SyncStage, StageTotals>> = {};

  constructor(draw: ((line: string) => void) | null) {
    if (draw) {
      this.timer = setInterval(() => draw(this.line()), 500);
      this.timer.unref?.();
    }
  }

  watch(name: string, counters: SourceCounters): void {
    this.sources.push({ name, counters });
  }

  /** Ends the stage under way and starts `name`'s clock and request count. */
  enter(name: SyncStage): void {
    this.leave();
    this.stage = { name, started: Date.now(), requests: this.requests() };
  }

  /** Ends the stage under way, adding its time and requests to its totals. */
  leave(): void {
    if (this.stage === null) return;
    const totals = this.stageTotals[this.stage.name] ?? { ms: 0, requests: 0 };
    totals.ms += Date.now() - this.stage.started;
    totals.requests += this.requests() - this.stage.requests;
    this.stageTotals[this.stage.name] = totals;
    this.stage = null;
  }

  /** The time and requests of each stage left so far. */
  stages(): Partial<Record<SyncStage, StageTotals>> {
    return structuredClone(this.stageTotals);
  }

  private requests(): number {
    return this.sources.reduce((n, { counters }) => n + counters.requests, 0);
  }

  /** Starts a phase of `total` items (0 when not counted). */
  start(phase: string, total = 0): void {
    this.phase = phase;
    this.total = total;
    this.done = 0;
    this.phaseStarted = Date.now();
  }

  step(n = 1): void {
    this.done += n;
  }

  /** The status line: phase, items, ETA, then requests and megabytes per source. */
  line(): string {
    const parts = [this.phase];
    if (this.total > 0) {
      parts.push(`${this.done}/${this.total}`);
      const elapsed = Date.now() - this.phaseStarted;
      if (this.done > 0 && this.done < this.total) {
        const eta = Math.round(((elapsed / this.done) * (this.total - this.done)) / 1000);
        parts.push(`ETA ${eta >= 60 ? `${Math.floor(eta / 60)}m${eta % 60}s` : `${eta}s`}`);
      }
    }
    for (const { name, counters } of this.sources)
      parts.push(`${name}: ${counters.requests} req ${(counters.bytes / 1e6).toFixed(1)} MB`);
    return parts.join("  ");
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
