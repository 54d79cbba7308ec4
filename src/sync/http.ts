/**
 * The HTTP client of `stockd sync`: one pacing limiter per source (shared by every request to
 * it, whatever the host), a deadline on every request's silence, body included (a stalled
 * connection fails at it), bounded bodies, and retries with backoff on 5xx, timeouts, broken
 * connections and truncated bodies. What a source's answers mean (a throttle page, a key
 * error) is decided by its `classify`, so one client serves the SEC and each price provider.
 */
import { closeSync, existsSync, openSync, rmSync, statSync, writeSync } from "node:fs";
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

/** Counters of one source, for the summary, the progress display and /metrics (metrics.ts). */
export interface SourceCounters {
  requests: number;
  bytes: number;
  retries: number;
  pauses: number;
  errors: number;
  /** Requests by host and by status class ("2xx" … "5xx"; "failed": no answer came). */
  statuses: Record<string, Record<string, number>>;
}

/** The status class of an answer ("2xx" … "5xx"), or "failed" when none came. */
function statusClass(status: number | null): string {
  return status === null ? "failed" : `${Math.floor(status / 100)}xx`;
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
  /** Streams the body into a file instead of memory, resuming what an earlier answer left there (bulk archives). */
  toFile?: Download;
}

/**
 * A download into a file that is continued where it stopped (a body cut off, a retry, a later
 * run) with `Range` and `If-Range`, as long as the server still has the same file: the
 * validator its first answer gave (a strong ETag, else Last-Modified) is sent back, and a
 * server that answers with the whole file instead (the file changed, or Range is not served)
 * starts it over. A file is returned only at the length the server declared.
 */
export interface Download {
  path: string;
  /** The validator of the answer that began the file, or null: anything in the file is started over. */
  validator: string | null;
  /** Called when an answer begins the file anew, before its body: keeps the validator for a later run. */
  began(validator: string | null): void;
}

/** Where a download continues from: the bytes already in its file when they can be resumed, else 0. */
function resumeFrom(download: Download): number {
  if (download.validator === null || !existsSync(download.path)) return 0;
  return statSync(download.path).size;
}

/** The validator `If-Range` may carry: a strong ETag, else Last-Modified (a weak ETag cannot). */
function validatorOf(headers: Headers): string | null {
  const etag = headers.get("etag");
  if (etag !== null && !etag.startsWith("W/")) return etag;
  return headers.get("last-modified");
}

/** The first byte and the full length of a 206 answer (`Content-Range: bytes 100-199/200`). */
function contentRange(headers: Headers): { start: number; total: number | null } | null {
  const m = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(headers.get("content-range") ?? "");
  if (!m) return null;
  return { start: Number(m[1]), total: m[2] === "*" ? null : Number(m[2]) };
}

class RetryableError extends Error {}

/** One remote source behind its limiter. */
export class HttpSource {
  readonly counters: SourceCounters = {
    requests: 0,
    bytes: 0,
    retries: 0,
    pauses: 0,
    errors: 0,
    statuses: {},
  };
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
    // Bytes are counted as they arrive: a body cut off half-way was still transferred.
    const progressed = (bytes: number) => {
      this.counters.bytes += bytes;
      clearTimeout(timer);
      timer = setTimeout(() => abort.abort(), this.opts.timeoutMs);
    };
    try {
      const download = get.toFile;
      const from = download ? resumeFrom(download) : 0;
      // A download asks for its bytes as stored (ranges count those), from where its file stopped.
      const ranged: Record<string, string> = download ? { "accept-encoding": "identity" } : {};
      if (download && from > 0) {
        ranged.range = `bytes=${from}-`;
        ranged["if-range"] = download.validator as string;
      }
      let response: Response;
      try {
        response = await fetch(url, {
          headers: { "accept-encoding": "gzip, deflate", ...this.opts.headers, ...get.headers, ...ranged },
          signal: abort.signal,
          redirect: "follow",
        });
      } catch (error) {
        this.countAnswer(url, null);
        throw new RetryableError(abort.signal.aborted ? "timed out" : `connection failed: ${message(error)}`);
      }
      this.countAnswer(url, response.status);
      const ok = (response.status >= 200 && response.status < 300) || response.status === 304;
      const accepted = ok || (get.accept ?? []).includes(response.status);
      const into = accepted && download ? this.fileOf(download, from, response) : undefined;
      // Bodies of answers that are not data are only read far enough to classify them.
      const limit = accepted ? get.maxBytes - (into?.append ? from : 0) : 64 * 1024;
      const body = await readBody(response, limit, into, abort.signal, progressed);
      const verdict = this.opts.classify(response.status, into ? "" : decode(body.body));
      if (verdict.kind === "throttled") return await this.throttled(url, get, verdict);
      if (verdict.kind === "fatal") throw new SourceStoppedError(`${this.name}: ${verdict.reason}`);
      if (verdict.kind === "retry" || response.status >= 500)
        throw new RetryableError(verdict.kind === "retry" ? verdict.reason : `HTTP ${response.status}`);
      if (!accepted) throw new FetchFailedError(`${safeUrl(url)}: HTTP ${response.status}`);
      if (into) {
        // The file is whole only at the length the server declared for all of it.
        const size = statSync(into.path).size;
        if (into.total !== null && size !== into.total)
          throw new RetryableError(`download cut off: ${size} of ${into.total} bytes`);
        return { url, status: response.status, headers: response.headers, body: body.body, bytes: size };
      }
      return { url, status: response.status, headers: response.headers, body: body.body, bytes: body.bytes };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * How an answer goes into a download's file: a 206 that continues it is appended, any other
   * answer begins it anew (its validator handed to the caller before the body). A 206 that does
   * not continue the file, or that names another validator (a server that honours Range but
   * not If-Range would send the tail of a changed file), or a 416 (the file is no prefix of the
   * server's any more), drops it and asks again.
   */
  private fileOf(download: Download, from: number, response: Response): BodyFile {
    if (response.status === 206) {
      const range = contentRange(response.headers);
      const same = validatorOf(response.headers) === download.validator;
      if (from > 0 && range?.start === from && same)
        return { path: download.path, append: true, total: range.total };
      this.restart(download);
      throw new RetryableError("a range answer that does not continue the download");
    }
    if (response.status === 416) {
      this.restart(download);
      throw new RetryableError("the downloaded part is not a part of the file any more");
    }
    download.validator = validatorOf(response.headers);
    download.began(download.validator);
    // An encoded body's Content-Length is not the file's (fetch decodes it).
    const encoded = (response.headers.get("content-encoding") ?? "identity") !== "identity";
    const declared = encoded ? Number.NaN : Number(response.headers.get("content-length") ?? Number.NaN);
    return { path: download.path, append: false, total: Number.isFinite(declared) ? declared : null };
  }

  private restart(download: Download): void {
    rmSync(download.path, { force: true });
    download.validator = null;
    download.began(null);
  }

  private countAnswer(url: string, status: number | null): void {
    const host = new URL(url).host;
    this.counters.statuses[host] ??= {};
    const byClass = this.counters.statuses[host];
    const key = statusClass(status);
    byClass[key] = (byClass[key] ?? 0) + 1;
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

/** A download's file as one answer writes it: appended to or begun anew, and its full length if known. */
interface BodyFile {
  path: string;
  append: boolean;
  total: number | null;
}

/** Reads a body within `limit` bytes into memory or into a file, checking Content-Length. */
async function readBody(
  response: Response,
  limit: number,
  toFile: BodyFile | undefined,
  signal: AbortSignal,
  progressed: (bytes: number) => void,
): Promise<{ body: Uint8Array; bytes: number }> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  // fetch decodes gzip transparently; the declared length is then the encoded one.
  const encoded = (response.headers.get("content-encoding") ?? "identity") !== "identity";
  if (!encoded && declared > limit)
    throw new FetchFailedError(`body of ${declared} bytes is over the limit of ${limit}`);
  const fd = toFile === undefined ? null : openSync(toFile.path, toFile.append ? "a" : "w", 0o644);
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
      progressed(step.value.byteLength);
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
