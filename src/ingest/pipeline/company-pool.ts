/**
 * Runs the per-company pass (company-pass.ts) on worker threads, one per core: parsing and
 * computing a company is CPU-bound JavaScript, so workers split it, while this thread writes
 * the results in company order. Results are therefore written exactly as a sequential pass
 * would write them: same order, same report, and the first failing company (in order) is the
 * error thrown.
 */
import { availableParallelism } from "node:os";
import { workerUrl } from "../../worker-url.ts";
import type { CompanyJob, CompanyResult } from "./company-pass.ts";
import type { DerivedRow } from "./derive.ts";
import { deserializeError, type ToPool, type ToWorker } from "./worker-messages.ts";

/** Jobs sent ahead of the one being written, per worker: keeps workers busy, bounds memory. */
const AHEAD_PER_WORKER = 4;

type Settled = { ok: true; result: CompanyResult } | { ok: false; error: Error };

export class CompanyPool {
  private readonly workers: Worker[];
  private readonly inFlight: number[];
  private readonly settled = new Map<number, Settled>();
  private readonly undated: { index: number; derived: DerivedRow[] }[] = [];
  private finished = 0;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;

  constructor(root: string, lenient: boolean) {
    this.workers = Array.from({ length: Math.max(1, availableParallelism()) }, (_, i) =>
      this.startWorker(i, root, lenient),
    );
    this.inFlight = this.workers.map(() => 0);
  }

  /** Computes every job and calls `write` with each result, in job order, one at a time. */
  async run(jobs: readonly CompanyJob[], write: (result: CompanyResult) => Promise<void>): Promise<void> {
    const owner = new Map<number, number>();
    let sent = 0;
    const ahead = AHEAD_PER_WORKER * this.workers.length;
    for (let next = 0; next < jobs.length; next++) {
      for (; sent < jobs.length && sent - next < ahead; sent++) {
        const job = jobs[sent] as CompanyJob;
        const worker = this.leastBusy();
        owner.set(job.index, worker);
        this.inFlight[worker] = (this.inFlight[worker] ?? 0) + 1;
        this.post(worker, { type: "job", job });
      }
      const index = (jobs[next] as CompanyJob).index;
      const settled = await this.until(() => this.settled.get(index));
      this.settled.delete(index);
      const worker = owner.get(index) as number;
      this.inFlight[worker] = (this.inFlight[worker] ?? 1) - 1;
      if (!settled.ok) throw settled.error;
      await write(settled.result);
    }
  }

  /** The earnings of the securities dated by the snapshot, in job order. */
  async finishUndated(dataAsOf: string): Promise<DerivedRow[]> {
    for (const [i] of this.workers.entries()) this.post(i, { type: "finish", dataAsOf });
    await this.until(() => (this.finished === this.workers.length ? true : undefined));
    return this.undated.sort((a, b) => a.index - b.index).flatMap((u) => u.derived);
  }

  close(): void {
    for (const worker of this.workers) worker.terminate();
  }

  private startWorker(i: number, root: string, lenient: boolean): Worker {
    const worker = new Worker(workerUrl("ingest/pipeline/company-worker.ts"));
    worker.onmessage = (event: MessageEvent<ToPool>) => this.receive(event.data);
    worker.onerror = (event) => this.fail(new Error(`company worker ${i} failed: ${event.message}`));
    worker.postMessage({ type: "start", root, lenient } satisfies ToWorker);
    return worker;
  }

  private receive(message: ToPool): void {
    if (message.type === "result")
      this.settled.set(message.result.index, { ok: true, result: message.result });
    else if (message.type === "failed")
      this.settled.set(message.index, { ok: false, error: deserializeError(message.error) });
    else {
      this.undated.push(...message.undated);
      this.finished++;
    }
    this.wake?.();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.wake?.();
  }

  private post(worker: number, message: ToWorker): void {
    this.workers[worker]?.postMessage(message);
  }

  private leastBusy(): number {
    let best = 0;
    for (const [i, n] of this.inFlight.entries()) if (n < (this.inFlight[best] ?? 0)) best = i;
    return best;
  }

  /** Waits until `ready` returns a value (checked after every message), or a worker fails. */
  private async until<T>(ready: () => T | undefined): Promise<T> {
    for (;;) {
      if (this.failure) throw this.failure;
      const value = ready();
      if (value !== undefined) return value;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = null;
    }
  }
}
