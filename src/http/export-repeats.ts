import type { Accounts, ExportClaim, ExportClaimResult } from "../accounts/seam.ts";
import { ApiError } from "../errors.ts";
import type { Logger } from "../log.ts";

/** How long after an export was charged and delivered its repeated reads are free. */
export const EXPORT_REPEAT_WINDOW_MS = 24 * 3600 * 1000;
/**
 * How long a paying read holds its export without renewing: a process that stops while one
 * is paying (a crash) leaves its export held this long, then free for a window (its read may
 * have been charged).
 */
const LEASE_MS = 60_000;
/** How often the leases of the reads paying in this process are renewed. */
const RENEW_EVERY_MS = LEASE_MS / 3;
/** The first and the longest pause of a read waiting for another's payment (doubling between). */
const POLL_FIRST_MS = 100;
const POLL_MAX_MS = 1_000;
/** How often, and for how long, a settle the store refused is tried again (as a commit is). */
const SETTLE_RETRY_MS = 1_000;
const SETTLE_FOR_MS = 60_000;
const WAITED =
  "the call ran out of time waiting for another read of this export, which is paying for it; it was not charged (retry once that read ends)";
/** How often the payments and claims that are over are swept from the store. */
const SWEEP_EVERY_MS = 3600 * 1000;

/** Reports the outcome of the call that pays for an export: true once charged and delivered. */
export type Payment = (paid: boolean) => void;

/** The times of export payments (the tests move them), and where what fails in the background is logged. */
export interface RepeatOptions {
  windowMs?: number;
  now?: () => number;
  log?: Logger;
}

/** True once the read's answer no longer counts: its time budget ran out, or its client left. */
export type GivenUp = () => boolean;

/**
 * Which exports each user has paid for, and until when repeats are free: kept in the accounts
 * store (export_payments), so that a restart keeps them and every replica shares them.
 *
 * A read claims the export: free while a payment of the same user for the same file stands
 * (charged and delivered within the window); while another read of it is paying, it waits for
 * that one's outcome (in this process, on it; in another, by looking again, from every
 * POLL_FIRST_MS up to every POLL_MAX_MS), until it is given up (its time budget or its
 * client): then it is a 503, not charged; otherwise it is the one that pays, and reports how
 * that went. So concurrent reads (DuckDB's parallel range requests) are charged once, and a
 * read whose answer was not a 2xx, or was not delivered (refunded), leaves the next read to
 * pay: its claim is dropped. A settle the store refuses is tried again for SETTLE_FOR_MS, the
 * lease renewed meanwhile; a lease that still runs out counts as paid (docs/api.md, "Exports").
 */
export class ExportRepeats {
  /** The reads paying in this process, by user and export: what a read here waits on. */
  private readonly paying = new Map<string, { claim: ExportClaim; done: Promise<void> }>();
  private renewing: ReturnType<typeof setInterval> | null = null;
  private swept = Number.NEGATIVE_INFINITY;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly log: Logger | undefined;

  constructor(
    private readonly store: Accounts,
    options: RepeatOptions = {},
  ) {
    this.windowMs = options.windowMs ?? EXPORT_REPEAT_WINDOW_MS;
    this.now = options.now ?? Date.now;
    this.log = options.log;
  }

  /**
   * null when this read is free; else the report its outcome must be given (once). Throws a
   * 503 (not charged) when the read is given up while it waits for another's payment.
   */
  async claim(userId: string, file: string, givenUp: GivenUp = () => false): Promise<Payment | null> {
    this.sweep();
    const local = `${userId}\u0000${file}`;
    const claim: ExportClaim = { userId, export: file, claimant: crypto.randomUUID() };
    let done: () => void = () => {};
    for (let pause = POLL_FIRST_MS; ; pause = Math.min(pause * 2, POLL_MAX_MS)) {
      if (givenUp()) throw new ApiError("unavailable", WAITED);
      const here = this.paying.get(local);
      if (here) {
        await Promise.race([here.done, Bun.sleep(pause)]);
        continue;
      }
      // Held while the store is asked, so that the other reads of this process wait on it.
      const entry = { claim, done: new Promise<void>((resolve) => (done = resolve)) };
      this.paying.set(local, entry);
      let found: ExportClaimResult;
      try {
        const now = this.now();
        found = await this.store.claimExport(claim, now + LEASE_MS, now, this.windowMs);
      } catch (error) {
        this.release(local, done);
        throw error;
      }
      if (found === "pay") break;
      this.release(local, done);
      if (found === "free") return null;
      await Bun.sleep(pause);
    }
    this.renewLeases();
    let reported = false;
    return (paid) => {
      if (reported) return;
      reported = true;
      void this.settle(claim, paid).finally(() => this.release(local, done));
    };
  }

  /**
   * Ends the claim in the store, tried again while the store refuses, its lease renewed
   * meanwhile: a paid read's payment must land, or the lease runs out (then counts as paid).
   */
  private async settle(claim: ExportClaim, paid: boolean): Promise<void> {
    const paidUntil = paid ? this.now() + this.windowMs : null;
    const started = performance.now();
    for (;;) {
      try {
        await this.store.settleExport(claim, paidUntil);
        return;
      } catch (error) {
        if (performance.now() - started >= SETTLE_FOR_MS) {
          this.log?.error(
            "exports: a payment could not be recorded; its lease runs out (then counts as paid)",
            {
              user_id: claim.userId,
              export: claim.export,
              paid,
              error: String(error),
            },
          );
          return;
        }
        await Bun.sleep(SETTLE_RETRY_MS);
      }
    }
  }

  /** This process's read of the export no longer pays: the reads waiting on it go on. */
  private release(local: string, done: () => void): void {
    this.paying.delete(local);
    if (this.paying.size === 0) this.stopRenewing();
    done();
  }

  /** Renews the leases of this process's paying reads (settling included) while there are any. */
  private renewLeases(): void {
    if (this.renewing) return;
    this.renewing = setInterval(() => {
      const until = this.now() + LEASE_MS;
      // A renewal that fails is tried again at the next tick; the lease outlasts two misses.
      for (const { claim } of this.paying.values())
        void Promise.resolve()
          .then(() => this.store.renewExport(claim, until))
          .catch(() => {});
    }, RENEW_EVERY_MS);
    this.renewing.unref?.();
  }

  private stopRenewing(): void {
    if (this.renewing) clearInterval(this.renewing);
    this.renewing = null;
  }

  /**
   * Sweeps what is over, at most once per SWEEP_EVERY_MS (on the first claim after it), apart
   * from the read: a sweep that fails is logged and tried at the next hour.
   */
  private sweep(): void {
    const now = this.now();
    if (now - this.swept < SWEEP_EVERY_MS) return;
    this.swept = now;
    void Promise.resolve()
      .then(() => this.store.sweepExports(now, this.windowMs))
      .catch((error) => this.log?.warn("exports: sweeping export payments failed", { error: String(error) }));
  }
}
