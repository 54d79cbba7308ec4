/** How long after an export was charged and delivered its repeated reads are free. */
export const EXPORT_REPEAT_WINDOW_MS = 24 * 3600 * 1000;
/** Grants held before expired ones are swept (bounds memory under many users and files). */
const SWEEP_AT = 10_000;

/** Reports the outcome of the call that pays for an export: true once charged and delivered. */
export type Payment = (paid: boolean) => void;

/**
 * Which exports each user has paid for, and until when repeats are free (in this process:
 * a restart forgets them, and the next read is charged again).
 *
 * A read claims the export: free while a payment of the same user for the same file stands
 * (charged and delivered within the window); while another read of it is paying, it waits for
 * that one's outcome; otherwise it is the one that pays, and reports how that went. So
 * concurrent reads (DuckDB's parallel range requests) are charged once, and a read whose
 * answer was not a 2xx, or was not delivered (refunded), leaves the next read to pay.
 */
export class ExportRepeats {
  private readonly paid = new Map<string, number>();
  private readonly paying = new Map<string, Promise<void>>();

  constructor(
    private readonly windowMs = EXPORT_REPEAT_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** null when this read is free; else the report its outcome must be given (once). */
  async claim(key: string): Promise<Payment | null> {
    for (;;) {
      const until = this.paid.get(key);
      if (until !== undefined && until > this.now()) return null;
      const paying = this.paying.get(key);
      if (!paying) break;
      await paying;
    }
    let done: () => void = () => {};
    this.paying.set(
      key,
      new Promise<void>((resolve) => {
        done = resolve;
      }),
    );
    let reported = false;
    return (paid) => {
      if (reported) return;
      reported = true;
      this.paying.delete(key);
      if (paid) this.grant(key);
      done();
    };
  }

  private grant(key: string): void {
    const now = this.now();
    if (this.paid.size >= SWEEP_AT) for (const [k, until] of this.paid) if (until <= now) this.paid.delete(k);
    this.paid.set(key, now + this.windowMs);
  }
}
