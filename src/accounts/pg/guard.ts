import { withDeadline } from "../../deadline.ts";
import { ApiError } from "../../errors.ts";

/** Consecutive failures that open the breaker. */
const FAILURES_TO_OPEN = 3;

/**
 * A timeout on every database call and a circuit breaker over them. A call that does not
 * answer within `timeoutMs` is cancelled and fails; after a few failures in a row (timeouts,
 * lost connections: never a refused row) the breaker opens and calls fail at once for
 * `openMs`, then one call at a time probes again. A failed call is an ApiError "unavailable"
 * (503): it is never charged, and the client is told to retry.
 */
export class Guard {
  private failures = 0;
  private openUntil = 0;
  private probing = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly openMs: number,
  ) {}

  /** Whether calls are refused at once now. */
  get open(): boolean {
    return this.failures >= FAILURES_TO_OPEN && (Date.now() < this.openUntil || this.probing);
  }

  /** Runs one database call under the timeout and the breaker. */
  async run<T>(query: PromiseLike<T> & { cancel?: () => unknown }, what: string): Promise<T> {
    if (this.open) throw unavailable(what, "the accounts database is unreachable (circuit open)");
    const probe = this.failures >= FAILURES_TO_OPEN;
    if (probe) this.probing = true;
    try {
      const late = () => new TimeoutError(`${what}: no answer within ${this.timeoutMs} ms`);
      const value = await withDeadline(query, this.timeoutMs, late, { onLate: () => query.cancel?.() });
      this.failures = 0;
      return value;
    } catch (error) {
      if (!isRefusal(error)) {
        this.failures++;
        if (this.failures >= FAILURES_TO_OPEN) this.openUntil = Date.now() + this.openMs;
        throw unavailable(what, String(error instanceof Error ? error.message : error));
      }
      this.failures = 0;
      throw error;
    } finally {
      if (probe) this.probing = false;
    }
  }
}

class TimeoutError extends Error {}

/**
 * An error the database answered for this statement (a constraint, a unique key): the
 * database is up. SQLSTATE classes 08 (connection), 53 (resources), 57 (operator
 * intervention, e.g. a restart) and 58 say it is not.
 */
function isRefusal(error: unknown): boolean {
  const state = (error as { errno?: unknown }).errno;
  return typeof state === "string" && /^[0-9A-Z]{5}$/.test(state) && !/^(08|53|57|58)/.test(state);
}

function unavailable(what: string, cause: string): ApiError {
  const error = new ApiError(
    "unavailable",
    "the accounts database did not answer; the call was not charged",
    undefined,
    { "retry-after": "1" },
  );
  error.cause = `${what}: ${cause}`;
  return error;
}
