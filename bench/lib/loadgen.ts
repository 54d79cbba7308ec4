/**
 * A closed-loop HTTP/1.1 load generator on Bun's TCP sockets: `connections` keep-alive
 * connections, one request in flight on each (as wrk and autocannon do without pipelining),
 * a new request sent as soon as the previous response is complete.
 *
 * Why not autocannon: on a 2-core machine it saturated at ~12,000 req/s against a bare
 * Bun.serve that wrk drove to ~47,000 and this generator to ~42,000 (bench/RESULTS.md), so
 * autocannon would have measured itself, not the server. Compared with wrk this one needs no
 * system package, picks a random URL and key per request without Lua, keeps every latency
 * sample (exact percentiles) and counts responses by key and status, which the billing check
 * needs exactly.
 *
 * Every request sent gets its response counted (a connection that is stopping finishes the
 * request in flight first), so `byKey` is exact; throughput and latencies cover the responses
 * completed in the measured window after the warm-up (as wrk counts them).
 */
import type { Socket } from "bun";
import { quantileSorted } from "./stats.ts";

export interface LoadRequest {
  path: string;
  /** Index into `LoadPlan.keys`. */
  key: number;
}

export interface LoadPlan {
  host: string;
  port: number;
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** Bearer tokens; the request names one by index. */
  keys: readonly string[];
  next: () => LoadRequest;
}

export interface KeyCounts {
  ok: number;
  other: number;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  samples: number;
  /** Every response received, warm-up included, by key index. */
  byKey: KeyCounts[];
  statuses: Record<string, number>;
  errors: number;
}

const HEADER_END = Buffer.from("\r\n\r\n");
const CONTENT_LENGTH = /\r\ncontent-length: *(\d+)/i;
const CHUNKED = /\r\ntransfer-encoding: *chunked/i;

/**
 * Finds the end of a chunked body (RFC 9112 §7.1) fed in pieces: chunk-size lines (extensions
 * ignored), their data and CRLF, the last chunk and the trailer section up to its empty line.
 */
class ChunkedEnd {
  /** The line being read (a size or trailer line), or null while in a chunk's data. */
  private line: string | null = "";
  /** Data bytes, and their CRLF, still to skip. */
  private skip = 0;
  private last = false;

  /** True when `bytes` completed the body; throws on framing that is not chunked. */
  feed(bytes: Buffer, from = 0): boolean {
    let i = from;
    while (i < bytes.length) {
      if (this.line === null) {
        const take = Math.min(this.skip, bytes.length - i);
        this.skip -= take;
        i += take;
        if (this.skip === 0) this.line = "";
        continue;
      }
      const newline = bytes.indexOf(10, i);
      const end = newline < 0 ? bytes.length : newline;
      this.line += bytes.toString("latin1", i, end);
      if (this.line.length > 4096) throw new Error("a chunked body's line longer than 4096 bytes");
      i = end + 1;
      if (newline < 0) break;
      const line = this.line.replace(/\r$/, "");
      this.line = "";
      if (this.last) {
        if (line === "") return i === bytes.length || this.extra();
        continue;
      }
      const size = Number.parseInt(line.split(";")[0] ?? "", 16);
      if (!Number.isFinite(size) || size < 0) throw new Error(`a chunk size line "${line.slice(0, 20)}"`);
      if (size === 0) this.last = true;
      else {
        this.skip = size + 2;
        this.line = null;
      }
    }
    return false;
  }

  private extra(): never {
    throw new Error("bytes after a chunked body");
  }
}

/** Latency samples in a growable typed array. */
class Samples {
  private data = new Float64Array(1 << 16);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  sorted(): Float64Array {
    return this.data.slice(0, this.length).sort();
  }
}

/** What all connections of one run share. */
class Run {
  readonly samples = new Samples();
  readonly byKey: KeyCounts[];
  readonly statuses: Record<string, number> = {};
  errors = 0;
  measured = 0;
  stopping = false;
  readonly startedAt = performance.now();
  readonly windowStart: number;
  readonly windowEnd: number;
  /** A protocol problem that ended the run (the result then is not a measurement). */
  fatal: string | null = null;

  constructor(readonly plan: LoadPlan) {
    this.byKey = plan.keys.map(() => ({ ok: 0, other: 0 }));
    this.windowStart = this.startedAt + plan.warmupMs;
    this.windowEnd = this.windowStart + plan.durationMs;
  }

  /** The bytes of the next request and its key. */
  nextRequest(): { bytes: Buffer; key: number } {
    const { path, key } = this.plan.next();
    const auth = this.plan.keys[key] ? `Authorization: Bearer ${this.plan.keys[key]}\r\n` : "";
    const text = `GET ${path} HTTP/1.1\r\nHost: ${this.plan.host}:${this.plan.port}\r\n${auth}\r\n`;
    return { bytes: Buffer.from(text, "latin1"), key };
  }

  record(status: number, key: number, sentAt: number, doneAt: number): void {
    const counts = this.byKey[key] as KeyCounts;
    if (status >= 200 && status < 300) counts.ok++;
    else counts.other++;
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
    if (doneAt >= this.windowStart && doneAt <= this.windowEnd) {
      this.measured++;
      this.samples.push(doneAt - sentAt);
    }
    if (doneAt > this.windowEnd) this.stopping = true;
  }

  result(): LoadResult {
    if (this.fatal) throw new Error(`load run failed: ${this.fatal}`);
    const sorted = this.samples.sorted();
    return {
      rps: this.measured / (this.plan.durationMs / 1000),
      p50: quantileSorted(sorted, 0.5),
      p99: quantileSorted(sorted, 0.99),
      samples: sorted.length,
      byKey: this.byKey,
      statuses: this.statuses,
      errors: this.errors,
    };
  }
}

/** One keep-alive connection: send, read one response, repeat until the run stops. */
class Connection {
  private head: Buffer | null = null;
  /** Body bytes still expected; -1 while the header is incomplete or the body is chunked. */
  private remaining = -1;
  /** The end of a chunked body being read, or null. */
  private chunked: ChunkedEnd | null = null;
  private status = 0;
  private key = 0;
  private sentAt = 0;
  private pending: Buffer | null = null;
  private socket: Socket<undefined> | null = null;
  private inFlight = false;
  readonly done: Promise<void>;
  private finish: () => void = () => {};

  constructor(private readonly run: Run) {
    this.done = new Promise((resolve) => {
      this.finish = resolve;
    });
  }

  async open(): Promise<void> {
    await Bun.connect({
      hostname: this.run.plan.host,
      port: this.run.plan.port,
      socket: {
        open: (socket) => {
          this.socket = socket;
          this.send();
        },
        data: (_socket, chunk) => this.receive(chunk),
        drain: () => this.flush(),
        close: () => this.closed(),
        error: () => this.closed(),
      },
    });
  }

  private send(): void {
    if (this.run.stopping) {
      this.socket?.end();
      return;
    }
    const { bytes, key } = this.run.nextRequest();
    this.key = key;
    this.sentAt = performance.now();
    this.inFlight = true;
    this.pending = bytes;
    this.flush();
  }

  private flush(): void {
    if (!this.pending || !this.socket) return;
    const written = this.socket.write(this.pending);
    this.pending = written >= this.pending.length ? null : this.pending.subarray(Math.max(0, written));
  }

  /** Stops at once (the run timed out): the request in flight, if any, counts as an error. */
  abort(): void {
    this.socket?.end();
  }

  private receive(chunk: Buffer): void {
    if (this.chunked) {
      this.readChunked(chunk);
      return;
    }
    if (this.remaining >= 0) this.remaining -= chunk.length;
    else if (!this.readHead(chunk)) return;
    if (this.remaining > 0) return;
    if (this.remaining < 0) this.fail("the server sent more bytes than its Content-Length");
    else this.complete();
  }

  private fail(message: string): void {
    this.run.fatal ??= message;
    this.run.stopping = true;
    this.socket?.end();
  }

  /** Accumulates the header; on its end, sets status and the body bytes still to come. */
  private readHead(chunk: Buffer): boolean {
    const buffer = this.head ? Buffer.concat([this.head, chunk]) : chunk;
    const end = buffer.indexOf(HEADER_END);
    if (end < 0) {
      this.head = buffer;
      return false;
    }
    const head = buffer.toString("latin1", 0, end);
    this.status = Number(head.slice(9, 12));
    this.head = null;
    if (CHUNKED.test(head)) {
      this.chunked = new ChunkedEnd();
      this.readChunked(buffer, end + 4);
      return false;
    }
    const length = CONTENT_LENGTH.exec(head)?.[1];
    if (length === undefined) {
      this.fail(`a response with neither Content-Length nor chunked: ${head.split("\r\n")[0]}`);
      return false;
    }
    this.remaining = Number(length) - (buffer.length - end - 4);
    return true;
  }

  private readChunked(bytes: Buffer, from = 0): void {
    try {
      if (!this.chunked?.feed(bytes, from)) return;
    } catch (error) {
      this.fail(String(error));
      return;
    }
    this.chunked = null;
    this.complete();
  }

  private complete(): void {
    this.run.record(this.status, this.key, this.sentAt, performance.now());
    this.remaining = -1;
    this.inFlight = false;
    this.send();
  }

  private closed(): void {
    if (this.inFlight) this.run.errors++;
    this.inFlight = false;
    this.finish();
  }
}

/** Drives the plan and returns its figures once every connection has closed. */
export async function runLoad(plan: LoadPlan): Promise<LoadResult> {
  const run = new Run(plan);
  const connections = Array.from({ length: plan.connections }, () => new Connection(run));
  await Promise.all(connections.map((c) => c.open()));
  const allDone = Promise.all(connections.map((c) => c.done)).then(() => true);
  const timedOut = Bun.sleep(plan.warmupMs + plan.durationMs + 10_000).then(() => false);
  if (!(await Promise.race([allDone, timedOut]))) {
    run.stopping = true;
    for (const c of connections) c.abort();
    await allDone;
  }
  return run.result();
}

/** What `closedLoop` gives: 2xx per second of the window, every 2xx, and each status's count. */
export interface ClosedLoopResult {
  perSecond: number;
  ok: number;
  statuses: Map<number, number>;
}

/**
 * `runLoad` on one path of the server at `url`, each request with a key picked at random,
 * no warm-up, for `seconds`. A server that dies meanwhile ends the run (its connections close).
 */
export async function closedLoop(
  url: string,
  path: string,
  keys: readonly string[],
  seconds: number,
  connections: number,
): Promise<ClosedLoopResult> {
  const { hostname, port } = new URL(url);
  const run = await runLoad({
    host: hostname,
    port: Number(port),
    connections,
    warmupMs: 0,
    durationMs: seconds * 1000,
    keys,
    next: () => ({ path, key: Math.floor(Math.random() * keys.length) }),
  });
  const statuses = new Map(Object.entries(run.statuses).map(([s, n]) => [Number(s), n]));
  const total = [...statuses.values()].reduce((a, b) => a + b, 0);
  return {
    perSecond: total === 0 ? 0 : (run.rps * (statuses.get(200) ?? 0)) / total,
    ok: run.byKey.reduce((n, k) => n + k.ok, 0),
    statuses,
  };
}
