/** What `withDeadline` does besides the time limit. */
export interface DeadlineOptions {
  /** Runs when the time is up, before the rejection (e.g. to cancel the work). */
  onLate?: () => void;
  /** A stop that rejects at once with `stopped()`. */
  signal?: AbortSignal;
  stopped?: () => Error;
}

/**
 * `work`'s outcome, or a rejection with `late()` when it has not settled within `ms`, or
 * with `stopped()` when `signal` aborts first. The timer and the listener are gone once it
 * settles, so nothing of it holds the process; the work itself goes on unless `onLate` ends it.
 */
export async function withDeadline<T>(
  work: PromiseLike<T>,
  ms: number,
  late: () => Error,
  options: DeadlineOptions = {},
): Promise<T> {
  const { onLate, signal, stopped } = options;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stop = () => {};
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onLate?.();
      reject(late());
    }, ms);
    stop = () => reject(stopped ? stopped() : new Error("stopped"));
    if (signal?.aborted) stop();
    signal?.addEventListener("abort", stop, { once: true });
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", stop);
  }
}
