/**
 * The HTTP client of `stockd sync`: one pacing limiter per source (shared by every request to
 * it, whatever the host), a deadline on every request's silence, body included (a stalled
 * connection fails at it), bounded bodies, and retries with backoff on 5xx, timeouts, broken
 * connections and truncated bodies. What a source's answers mean (a throttle page, a key
 * error) is decided by its `classify`, so one client serves the SEC and each price provider.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { Logger } from "../log.ts";

/** Spaces request starts `1000 / perSecond` ms apart and holds them all during a pause. */
export class Limiter {
  private readonly intervalMs: number;
  private next = 0;
  private pausedUntil = 0;
  private chain: Promise<void> = Promise.resolve();

  constructor(perSecond: number) {
    // 5% of margin: starts that jitter on their way (a busy machine) never put perSecond + 1
    // requests into one second where they arrive.
    this.intervalMs = 1050 / perSecond;
  }

  /** Resolves when the next request may start; requests start in the order they asked. */
  take(): Promise<void> {
    const turn = this.chain.then(async () => {
      for (;;) {
        const wait = Math.max(this.next, this.pausedUntil) - Date.now();
        if (wait <= 0) break;
        await Bun.sleep(wait);
      }
      this.next = Date.now() + this.intervalMs;
    });
    this.chain = turn;
    return turn;
  }

  /** Whether a pause is holding requests now. */
  get paused(): boolean {
    return Date.now() < this.pausedUntil;
  }

  /** Holds every request, including those already waiting, for `ms`. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
  }
}

/** What a source makes of an answer before the body is trusted. */
export type Verdict =
  /** Usable: 2xx (or a status the caller accepts, e.g. 404). */
  | { kind: "ok" }
  /** Rate limited: pause the whole source for `pauseMs`, then try again. */
  | { kind: "throttled"; pauseMs: number; reason: string }
  /** Worth another try after a backoff (5xx). */
  | { kind: "retry"; reason: string }
  /** The run cannot go on with this source (a configuration or key error). */
  | { kind: "fatal"; reason: string };

/** A source stopped the run: blocked too often, or refusing us. */
export class SourceStoppedError extends Error {
  override name = "SourceStoppedError";
}

/** A request that failed after its retries (network, timeouts, 5xx, an unexpected status). */
export class FetchFailedError extends Error {
  override name = "FetchFailedError";
}

/** An answer, its body read whole (within the size limit) or written to a file. */
export interface Fetched {
  url: string;
  status: number;
  headers: Headers;
  body: Uint8Array;
  bytes: number;
}

/** Counters of one source, for the summary and the progress display. */
export interface SourceCounters {
  requests: number;
  bytes: number;
  retries: number;
  pauses: number;
  errors: number;
}

export interface SourceOptions {
  name: string;
  limiter: Limiter;
  /** Extra headers on every request (the SEC's declared User-Agent). */
  headers: Record<string, string>;
  timeoutMs: number;
  /** Attempts of one request on retryable failures (throttle pauses are counted apart). */
  maxAttempts?: number;
  /** First backoff; doubled each attempt, with jitter. */
  backoffMs?: number;
  /** Throttle pauses after which the source gives up and stops the run. */
  maxPauses?: number;
  classify(status: number, body: string): Verdict;
  log: Logger;
}

export interface GetOptions {
  /** Largest body accepted; a larger one fails the request without retry. */
  maxBytes: number;
  /** Statuses that are answers, not failures (404: no such file). */
  accept?: readonly number[];
  /** Conditional headers (If-None-Match, If-Modified-Since). */
  headers?: Record<string, string>;
  /** Streams the body into this file instead of memory (bulk archives). */
  toFile?: string;
}

class RetryableError extends Error {}

/** One remote source behind its limiter. */
export class HttpSource {
  readonly counters: SourceCounters = { requests: 0, bytes: 0, retries: 0, pauses: 0, errors: 0 };
  /** Why the source stopped; once set, no request is sent any more. */
  private stopped: SourceStoppedError | null = null;

  constructor(private readonly opts: SourceOptions) {}

  get name(): string {
    return this.opts.name;
  }

  /** GETs `url`; throws FetchFailedError or SourceStoppedError when it cannot deliver. */
  async get(url: string, get: GetOptions): Promise<Fetched> {
    const maxAttempts = this.opts.maxAttempts ?? 4;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(url, get);
      } catch (error) {
        if (error instanceof SourceStoppedError) this.stopped ??= error;
        if (!(error instanceof RetryableError)) throw error;
        this.counters.errors++;
        if (attempt >= maxAttempts)
          throw new FetchFailedError(`${safeUrl(url)}: ${error.message} (after ${attempt} attempts)`);
        this.counters.retries++;
        const backoff = (this.opts.backoffMs ?? 500) * 2 ** (attempt - 1) * (0.75 + Math.random() / 2);
        this.opts.log.warn("sync request retried", {
          source: this.name,
          url: safeUrl(url),
          reason: error.message,
        });
        await Bun.sleep(backoff);
      }
    }
  }

  private async once(url: string, get: GetOptions): Promise<Fetched> {
    if (this.stopped) throw this.stopped;
    await this.opts.limiter.take();
    if (this.stopped) throw this.stopped;
    this.counters.requests++;
    const abort = new AbortController();
    // The deadline is on silence: it is set again by every chunk, so a bulk archive that keeps
    // arriving is never cut, and a connection that stalls fails after timeoutMs.
    let timer = setTimeout(() => abort.abort(), this.opts.timeoutMs);
    const progressed = () => {
      clearTimeout(timer);
      timer = setTimeout(() => abort.abort(), this.opts.timeoutMs);
    };
    try {
      let response: Response;
      try {
        response = await fetch(url, {
          headers: { "accept-encoding": "gzip, deflate", ...this.opts.headers, ...get.headers },
          signal: abort.signal,
          redirect: "follow",
        });
      } catch (error) {
        throw new RetryableError(abort.signal.aborted ? "timed out" : `connection failed: ${message(error)}`);
      }
      const ok = (response.status >= 200 && response.status < 300) || response.status === 304;
      const accepted = ok || (get.accept ?? []).includes(response.status);
      // Bodies of answers that are not data are only read far enough to classify them.
      const limit = accepted ? get.maxBytes : 64 * 1024;
      const body = await readBody(
        response,
        limit,
        accepted ? get.toFile : undefined,
        abort.signal,
        progressed,
      );
      this.counters.bytes += body.bytes;
      const verdict = this.opts.classify(response.status, accepted && get.toFile ? "" : decode(body.body));
      if (verdict.kind === "throttled") return await this.throttled(url, get, verdict);
      if (verdict.kind === "fatal") throw new SourceStoppedError(`${this.name}: ${verdict.reason}`);
      if (verdict.kind === "retry" || response.status >= 500)
        throw new RetryableError(verdict.kind === "retry" ? verdict.reason : `HTTP ${response.status}`);
      if (!accepted) throw new FetchFailedError(`${safeUrl(url)}: HTTP ${response.status}`);
      return { url, status: response.status, headers: response.headers, body: body.body, bytes: body.bytes };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Pauses the whole source, then asks again; stops the run after too many pauses. */
  private async throttled(url: string, get: GetOptions, verdict: { pauseMs: number; reason: string }) {
    // An answer to a request that was on its way when the pause began joins that pause.
    if (this.opts.limiter.paused) return await this.once(url, get);
    this.counters.pauses++;
    const maxPauses = this.opts.maxPauses ?? 3;
    if (this.counters.pauses > maxPauses)
      throw new SourceStoppedError(`${this.name}: ${verdict.reason}, ${maxPauses} pauses did not lift it`);
    this.opts.log.warn("sync source throttled: pausing all its requests", {
      source: this.name,
      reason: verdict.reason,
      pause_ms: verdict.pauseMs,
    });
    this.opts.limiter.pause(verdict.pauseMs);
    return await this.once(url, get);
  }
}

/** Reads a body within `limit` bytes into memory or into `toFile`, checking Content-Length. */
async function readBody(
  response: Response,
  limit: number,
  toFile: string | undefined,
  signal: AbortSignal,
  progressed: () => void,
): Promise<{ body: Uint8Array; bytes: number }> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  // fetch decodes gzip transparently; the declared length is then the encoded one.
  const encoded = (response.headers.get("content-encoding") ?? "identity") !== "identity";
  if (!encoded && declared > limit)
    throw new FetchFailedError(`body of ${declared} bytes is over the limit of ${limit}`);
  const fd = toFile === undefined ? null : openSync(toFile, "w", 0o644);
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    const reader = response.body?.getReader();
    while (reader) {
      let step: Awaited<ReturnType<typeof reader.read>>;
      try {
        step = await reader.read();
      } catch (error) {
        throw new RetryableError(
          signal.aborted ? "timed out reading the body" : `body cut off: ${message(error)}`,
        );
      }
      if (step.done) break;
      progressed();
      bytes += step.value.byteLength;
      if (bytes > limit) {
        await reader.cancel();
        throw new FetchFailedError(`body over the limit of ${limit} bytes`);
      }
      if (fd === null) chunks.push(step.value);
      else writeSync(fd, step.value);
    }
  } finally {
    if (fd !== null) closeSync(fd);
  }
  if (!encoded && Number.isFinite(declared) && bytes !== declared)
    throw new RetryableError(`body cut off: ${bytes} of ${declared} bytes`);
  return { body: fd === null ? Buffer.concat(chunks) : new Uint8Array(0), bytes };
}

function decode(body: Uint8Array): string {
  return new TextDecoder().decode(body);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A URL as logged: query values that may hold a key are blanked. */
export function safeUrl(url: string): string {
  return url.replace(/([?&](?:apikey|api_key|token|crumb)=)[^&]*/gi, "$1***");
}
