import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import type { Socket } from "node:net";
import { ApiError, problem } from "../errors.ts";
import { streamedFile } from "./body.ts";
import type { Client, Reply } from "./context.ts";

/**
 * Every request URL is read against this origin: routing never depends on `Host`, which is
 * not checked at all (a missing or malformed one is ignored).
 */
const ORIGIN = "http://stockd.local";
/**
 * Bodies of REST requests are never read (the API is GET/HEAD); a larger or chunked one is a
 * 413. A door (doors.ts) reads the bodies of its methods up to its own limit.
 */
const MAX_BODY_BYTES = 16 * 1024;
/** The request line and headers together (Node's default); more is a 431. */
const MAX_HEADER_BYTES = 16 * 1024;
/** A client has this long to send its whole request head (slow-header clients are cut off). */
const HEADERS_TIMEOUT_MS = 10_000;
/**
 * A client has this long to send a door's whole request body once its head is in: the body is
 * read before the call is authenticated, so a slow one must not hold its connection (and its
 * memory) for long.
 */
const BODY_TIMEOUT_MS = 10_000;
/** An idle keep-alive connection is closed after this long. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** A response the client takes nothing of for this long is dropped with its connection. */
const WRITE_STALL_MS = 30_000;
/** Requests one connection may have answered but not yet taken (pipelined ahead of its reading). */
const MAX_PIPELINED = 32;
/** How long a shutdown waits for the calls it cut off to report their delivery. */
const CUT_OFF_SETTLE_MS = 1_000;
/** Connections open at once; more are refused (reset) until one closes. */
const MAX_CONNECTIONS = 10_000;

/** What the transport serves: the HTTP edge. */
interface Exchange {
  /** Answers one request; never throws. */
  handle(request: Request, client: Client): Reply | Promise<Reply>;
  /**
   * Told once per answered request whether its whole response was delivered: accepted by the
   * connection's socket, every byte, while the connection was open.
   */
  delivered(reply: Reply, delivered: boolean): void;
  /** The body limit of a request whose body is read (a door's); null for any other (doors.ts `bodyLimit`). */
  bodyLimit(pathname: string, method: string): number | null;
}

interface Transport {
  server: Server;
  /** Calls answered but not yet delivered or dropped. */
  inFlight(): number;
  /**
   * Stops accepting; resolves when nothing is in flight or after `ms`, then closes every
   * connection and waits (briefly) for the calls it cut off to report their delivery.
   */
  stop(ms: number): Promise<"drained" | "timeout">;
}

/**
 * HTTP/1.1 over `node:http` (Bun's implementation). Chosen over `Bun.serve` for two things
 * it cannot do: answer pipelined requests whose handlers finish in a later turn (Bun.serve
 * closes such a connection without a byte), and tell when a response has been taken by the
 * socket (`write`'s backpressure, `drain`, `finish`, `close`), which is what a charge stands on.
 */
export function listenHttp(exchange: Exchange, port: number, host: string): Promise<Transport> {
  let inFlight = 0;
  let idle: (() => void) | null = null;
  const done = () => {
    inFlight--;
    if (inFlight === 0) idle?.();
  };
  /** Requests of each connection answered or being answered, not yet delivered or dropped. */
  const pending = new WeakMap<Socket, number>();
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false }, (req, res) => {
    const socket = req.socket;
    const queued = (pending.get(socket) ?? 0) + 1;
    // A client that pipelines far past what it reads would have its answers held in memory.
    if (queued > MAX_PIPELINED) {
      socket.destroy();
      return;
    }
    pending.set(socket, queued);
    inFlight++;
    // `answer` reports every outcome itself; a throw left is the socket's, and closes it.
    void answer(exchange, req, res)
      .catch(() => res.destroy())
      .finally(() => {
        pending.set(socket, (pending.get(socket) ?? 1) - 1);
        done();
      });
  });
  server.maxConnections = MAX_CONNECTIONS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = HEADERS_TIMEOUT_MS;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.on("clientError", (error: Error & { code?: string }, socket: Socket) => {
    refuseUnparsed(error.code, socket);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve({
        server,
        inFlight: () => inFlight,
        stop(ms) {
          server.close();
          server.closeIdleConnections();
          const settled = (within: number) => {
            const drained =
              inFlight === 0
                ? Promise.resolve("drained" as const)
                : new Promise<"drained">((r) => {
                    idle = () => r("drained");
                  });
            let timer: ReturnType<typeof setTimeout> | undefined;
            const late = new Promise<"timeout">((r) => {
              timer = setTimeout(() => r("timeout"), within);
            });
            return Promise.race([drained, late]).finally(() => clearTimeout(timer));
          };
          return settled(ms).then(async (outcome) => {
            server.closeAllConnections();
            // Calls cut off while being written report it (a refund) before the stores close.
            await settled(CUT_OFF_SETTLE_MS);
            return outcome;
          });
        },
      });
    });
  });
}

/** One request: read as a Web Request, answered by the edge, written, and its delivery reported. */
async function answer(exchange: Exchange, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = requestUrl(req.url ?? "");
  const limit = url === null ? null : exchange.bodyLimit(pathOf(url), req.method ?? "");
  const early = limit === null ? bodyRefusal(req) : null;
  if (early) return void writeRefusal(res, early);
  if (url === null)
    return void writeRefusal(res, new ApiError("malformed_request", "the request target must be a path"));
  const body = limit === null ? null : await readBody(req, limit);
  if (body === TOO_LARGE) return void writeRefusal(res, tooLarge(limit as number));
  if (body === TOO_SLOW) return void writeRefusal(res, tooSlow(), () => req.destroy());
  let request: Request;
  try {
    request = new Request(url, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      ...(body === null ? {} : { body }),
    });
  } catch {
    return void writeRefusal(res, new ApiError("malformed_request", "the request could not be read"));
  }
  // The response is destroyed when its connection closes or resets before it was written.
  const client: Client = { address: () => req.socket.remoteAddress, gone: () => res.destroyed };
  const reply = await exchange.handle(request, client);
  let delivered = false;
  try {
    delivered = await send(res, reply);
  } catch {
    res.destroy();
  }
  exchange.delivered(reply, delivered);
}

/** The URL of an origin-form target (`/path?query`), or of an absolute-form one's path; null for any other. */
function requestUrl(target: string): string | null {
  if (target.startsWith("/")) return ORIGIN + target;
  if (!/^https?:\/\//i.test(target)) return null;
  const url = URL.parse(target);
  return url ? ORIGIN + url.pathname + url.search : null;
}

/** The path of a URL `requestUrl` made (the origin's, then up to the query). */
function pathOf(url: string): string {
  const query = url.indexOf("?", ORIGIN.length);
  return url.slice(ORIGIN.length, query === -1 ? undefined : query);
}

/** A body the API would have to read: too large by its length, or of no stated length. */
function bodyRefusal(req: IncomingMessage): ApiError | null {
  const length = req.headers["content-length"];
  const chunked = req.headers["transfer-encoding"] !== undefined;
  if (length === undefined && !chunked) return null;
  if (chunked || Number(length) > MAX_BODY_BYTES) return tooLarge(MAX_BODY_BYTES);
  return null;
}

const tooLarge = (limit: number) =>
  new ApiError("payload_too_large", `request bodies are limited to ${limit} bytes`);

const tooSlow = () =>
  new ApiError("request_timeout", `a request body must arrive within ${BODY_TIMEOUT_MS / 1000} s`);

/** What `readBody` gives for a body past its limit. */
const TOO_LARGE = Symbol("too large");
/** What `readBody` gives for a body not whole within BODY_TIMEOUT_MS. */
const TOO_SLOW = Symbol("too slow");

/**
 * A door's request body, read whole up to `limit` bytes (chunked or of a stated length); past
 * it, by its stated length or as it arrives, TOO_LARGE; not whole within BODY_TIMEOUT_MS,
 * TOO_SLOW (in both cases nothing more is read: the refusal closes the connection).
 */
function readBody(
  req: IncomingMessage,
  limit: number,
): Promise<Uint8Array | typeof TOO_LARGE | typeof TOO_SLOW> {
  if (Number(req.headers["content-length"] ?? 0) > limit) return Promise.resolve(TOO_LARGE);
  let deadline: ReturnType<typeof setTimeout> | undefined;
  const read = new Promise<Uint8Array | typeof TOO_LARGE | typeof TOO_SLOW>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (outcome: typeof TOO_LARGE | typeof TOO_SLOW) => {
      req.off("data", onData);
      req.pause();
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= limit) return void chunks.push(chunk);
      stop(TOO_LARGE);
    };
    deadline = setTimeout(() => stop(TOO_SLOW), BODY_TIMEOUT_MS);
    req.on("data", onData);
    req.once("end", () => resolve(Buffer.concat(chunks, size)));
    req.once("error", reject);
    // A client gone before the end of its body: nothing to answer (a no-op once resolved).
    req.once("close", () => reject(new Error("the request body was cut off")));
  });
  return read.finally(() => clearTimeout(deadline));
}

/**
 * Writes the reply and says whether it was delivered: every byte taken by the socket (`write`
 * without backpressure, or its `drain`) and the response ended before the connection closed.
 * A body shorter than the stream's high-water mark goes out with the end, in one write (a
 * write of it would report no backpressure either).
 */
async function send(res: ServerResponse, reply: Reply): Promise<boolean> {
  const file = streamedFile(reply.body);
  if (file) return sendStreamed(res, reply, file);
  const body = await bodyBytes(reply.body);
  if (res.destroyed) return false;
  if (body !== null) reply.headers["content-length"] = String(Buffer.byteLength(body));
  res.writeHead(reply.status, reply.headers);
  if (body === null || body.length < res.writableHighWaterMark) res.end(body ?? undefined);
  else {
    if (!res.write(body) && !(await before(res, "drain"))) return false;
    res.end();
  }
  return res.writableFinished || before(res, "finish");
}

/** The piece of a streamed file read and written at a time. */
const FILE_PIECE_BYTES = 1024 * 1024;

/**
 * Writes a streamed reply (a file, body.ts `streamed`) piece by piece as it is read, each
 * write waiting for the socket to take the last (backpressure): delivered as `send` says.
 */
async function sendStreamed(res: ServerResponse, reply: Reply, file: Blob): Promise<boolean> {
  if (res.destroyed) return false;
  res.writeHead(reply.status, reply.headers);
  for (let at = 0; at < file.size; at += FILE_PIECE_BYTES) {
    const piece = await file.slice(at, Math.min(file.size, at + FILE_PIECE_BYTES)).bytes();
    if (res.destroyed || (!res.write(piece) && !(await before(res, "drain")))) return false;
  }
  res.end();
  return res.writableFinished || before(res, "finish");
}

/** A reply's body as one piece to write: a routed Response read, a fast-path route's pieces joined. */
async function bodyBytes(body: Reply["body"]): Promise<string | Uint8Array | null> {
  if (body === null || typeof body === "string") return body;
  if (body instanceof Response) return body.bytes();
  return body.length === 1 ? (body[0] as Uint8Array) : Buffer.concat(body);
}

/**
 * True when `event` comes before the response's `close`; false when the close comes first,
 * or when nothing comes for `WRITE_STALL_MS` (a client that stopped reading: its connection
 * is closed, so that what it left unread is not held any longer).
 */
function before(res: ServerResponse, event: "drain" | "finish"): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (ok: boolean) => {
      clearTimeout(stalled);
      res.off(event, onEvent);
      res.off("close", onClose);
      resolve(ok);
    };
    const onEvent = () => settle(true);
    const onClose = () => settle(res.writableFinished);
    const stalled = setTimeout(() => {
      settle(false);
      res.destroy();
    }, WRITE_STALL_MS);
    res.once(event, onEvent);
    res.once("close", onClose);
  });
}

/**
 * A refusal before the edge (nothing read, nothing billed); the connection closes after it.
 * `then` runs once it is written.
 */
function writeRefusal(res: ServerResponse, error: ApiError, then?: () => void): void {
  const { status, headers, body } = refusal(error);
  res.shouldKeepAlive = false;
  res.writeHead(status, headers);
  res.end(body, then);
}

/**
 * The answer to a request the HTTP parser could not read, written on the raw socket (there
 * is no response object): problem+json, then the connection closes.
 */
function refuseUnparsed(code: string | undefined, socket: Socket): void {
  const error = parserError(code);
  if (!error || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, headers, body } = refusal(error);
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    ...Object.entries(headers).map(([n, v]) => `${n}: ${v}`),
  ];
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
}

/** A refusal's problem+json, with its length, for a connection that closes after it. */
function refusal(error: ApiError) {
  const answer = problem(error, crypto.randomUUID());
  answer.headers["content-length"] = String(Buffer.byteLength(answer.body));
  answer.headers.connection = "close";
  return answer;
}

/** The problem for a parser error code (`HPE_*`); null for a connection that failed or timed out (nothing to answer). */
function parserError(code: string | undefined): ApiError | null {
  if (code === undefined || !code.startsWith("HPE_") || code === "HPE_HEADER_TIMEOUT") return null;
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return new ApiError(
        "headers_too_large",
        `the request line and headers exceed ${MAX_HEADER_BYTES} bytes`,
      );
    case "HPE_INVALID_METHOD":
      return new ApiError(
        "method_not_allowed",
        "only GET and HEAD are allowed; this API is read-only",
        undefined,
        {
          allow: "GET, HEAD",
        },
      );
    case "HPE_INVALID_VERSION":
      return new ApiError("http_version_not_supported", "only HTTP/1.0 and HTTP/1.1 are served");
    default:
      return new ApiError("malformed_request", "the request could not be parsed as HTTP/1.1");
  }
}
