/**
 * A replay server on loopback that answers as the SEC (both hosts: their paths do not
 * collide), Alpha Vantage and Yahoo's chart API, from a source directory in the import layout
 * (the fixtures, or the demo generator's files), with scripted faults. It records every
 * request with its arrival time and headers, for the tests' assertions on counts, rate and
 * pauses. Nothing here reaches the internet.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "bun";

/** One request as it arrived. */
export interface Recorded {
  path: string;
  query: URLSearchParams;
  /** Arrival, ms since the epoch (performance-based, sub-millisecond). */
  at: number;
  userAgent: string | null;
  acceptEncoding: string | null;
  /** The Range and If-Range a request sent. */
  range: string | null;
  ifRange: string | null;
  status: number;
  /** Body bytes put on the wire for a bulk archive (a range, or a part of a cut body). */
  sent: number;
}

/**
 * A scripted fault: given a request and how many requests came before it, a Response to send
 * instead of the real one, "stall" (headers sent, the body never ends), "cut" (a gzip stream of
 * the real body that ends half-way; for a bulk archive, half of what was asked is sent and the
 * connection broken, and "stall" sends half before going silent), "gzip" (the real body
 * gzip-encoded), or null (answer normally).
 */
export type Fault = (path: string, n: number) => Response | "stall" | "cut" | "gzip" | null;

export interface ReplayOptions {
  /** The source directory answered from (edgar/, prices/, dividends/). */
  root: string;
  /** Daily master indexes by day (YYYY-MM-DD); other days answer 404 as weekends do. */
  indexes?: Map<string, string>;
  /** Alpha Vantage TIME_SERIES_DAILY_ADJUSTED answers by symbol (file paths). */
  alphaVantage?: Record<string, string>;
  /** Bulk archives by SEC path (zip file paths). */
  archives?: Record<string, string>;
}

/** The SEC's 403 page when the rate threshold is exceeded (served gzipped, as the SEC does). */
export const THRESHOLD_PAGE =
  "<html><head><title>SEC.gov | Request Rate Threshold Exceeded</title></head><body>Your request rate exceeded the threshold</body></html>";

export class ReplayServer {
  readonly requests: Recorded[] = [];
  fault: Fault | null = null;
  /** Bodies served in place of a path's file (a submissions file that lists a new filing). */
  readonly answers = new Map<string, string>();
  /** Whether bulk archives are served in ranges (Range, If-Range with their ETag), as the SEC's are. */
  ranges = true;
  private readonly server: Server<undefined>;
  private readonly ownership = new Map<string, string>();
  private readonly stalled: ReadableStreamDefaultController[] = [];

  constructor(private readonly opts: ReplayOptions) {
    const form4 = join(opts.root, "edgar", "form4");
    if (existsSync(form4))
      for (const name of readdirSync(form4, { recursive: true }) as string[]) {
        const accession = /\d{10}-\d{2}-\d{6}/.exec(name)?.[0];
        if (accession && statSync(join(form4, name)).isFile())
          this.ownership.set(accession, join(form4, name));
      }
    this.server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => this.answer(request) });
  }

  get url(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }

  /** The file served for a bulk archive path. */
  archivePath(path: string): string {
    const file = this.opts.archives?.[path];
    if (!file) throw new Error(`no archive at ${path}`);
    return file;
  }

  /** Requests whose path starts with `prefix`. */
  count(prefix = "/"): number {
    return this.requests.filter((r) => r.path.startsWith(prefix)).length;
  }

  stop(): void {
    for (const controller of this.stalled.splice(0))
      try {
        controller.close();
      } catch {
        // The client gave up on it first.
      }
    this.server.stop(true);
  }

  private answer(request: Request): Response {
    const url = new URL(request.url);
    const n = this.requests.length;
    const record: Recorded = {
      path: url.pathname,
      query: url.searchParams,
      at: performance.timeOrigin + performance.now(),
      userAgent: request.headers.get("user-agent"),
      acceptEncoding: request.headers.get("accept-encoding"),
      range: request.headers.get("range"),
      ifRange: request.headers.get("if-range"),
      status: 0,
      sent: 0,
    };
    this.requests.push(record);
    const fault = this.fault?.(url.pathname, n) ?? null;
    if (fault instanceof Response) {
      record.status = fault.status;
      return fault;
    }
    const archive = this.opts.archives?.[url.pathname];
    if (archive)
      return this.archive(archive, request, record, fault === "cut" || fault === "stall" ? fault : null);
    if (fault === "stall") {
      record.status = 200;
      return new Response(
        new ReadableStream({
          start: (controller) => {
            controller.enqueue(new TextEncoder().encode("{"));
            this.stalled.push(controller);
          },
        }),
        { headers: { "content-type": "application/json" } },
      );
    }
    const body = this.route(url);
    record.status = body === null ? 404 : 200;
    if (body === null) return new Response("<Error><Code>NoSuchKey</Code></Error>", { status: 404 });
    if (fault === "gzip")
      return new Response(Bun.gzipSync(new Uint8Array(body)), { headers: { "content-encoding": "gzip" } });
    if (fault === "cut") {
      // A gzip stream that ends half-way: the body is cut off on the wire.
      const gzip = Bun.gzipSync(new Uint8Array(body));
      return new Response(gzip.subarray(0, Math.floor(gzip.length / 2)), {
        headers: { "content-encoding": "gzip" },
      });
    }
    return new Response(body);
  }

  /**
   * A bulk archive: whole (200, with an ETag from its size and time), or from the byte a
   * `Range: bytes=N-` asks for (206) when `If-Range` names its current ETag; `cut` sends half of
   * it and breaks the connection.
   */
  private archive(path: string, request: Request, record: Recorded, fault: "cut" | "stall" | null): Response {
    const stat = statSync(path);
    const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
    const m = /^bytes=(\d+)-$/.exec(request.headers.get("range") ?? "");
    const ranged = this.ranges && m !== null && request.headers.get("if-range") === etag;
    const start = ranged ? Number(m?.[1]) : 0;
    if (start >= stat.size && ranged) {
      record.status = 416;
      return new Response(null, { status: 416, headers: { "content-range": `bytes */${stat.size}` } });
    }
    record.status = ranged ? 206 : 200;
    const headers: Record<string, string> = { etag, "accept-ranges": this.ranges ? "bytes" : "none" };
    if (ranged) headers["content-range"] = `bytes ${start}-${stat.size - 1}/${stat.size}`;
    const body = Bun.file(path).slice(start);
    if (fault === null) {
      record.sent = stat.size - start;
      return new Response(body, { status: record.status, headers });
    }
    // Half of what was asked, then the connection breaks (the client sees a body cut off) or
    // goes silent (until the client gives up, or is killed).
    const half = Math.floor((stat.size - start) / 2);
    record.sent = half;
    const bytes = body.slice(0, half);
    const stalled = this.stalled;
    return new Response(
      new ReadableStream({
        async start(controller) {
          controller.enqueue(new Uint8Array(await bytes.arrayBuffer()));
          if (fault === "stall") {
            stalled.push(controller);
            return;
          }
          // Long enough for the client to have the headers and the half, even on a loaded machine.
          await Bun.sleep(500);
          controller.error(new Error("replay server: a scripted fault cuts this archive download here"));
        },
      }),
      { status: record.status, headers: { ...headers, "content-length": String(stat.size - start) } },
    );
  }

  /** The body of a path, or null for a 404. */
  private route(url: URL): Uint8Array | null {
    const path = url.pathname;
    const given = this.answers.get(path);
    if (given !== undefined) return new TextEncoder().encode(given);
    const root = this.opts.root;
    const file = (...parts: string[]) => {
      const p = join(root, ...parts);
      return existsSync(p) ? readFileSync(p) : null;
    };
    if (path === "/files/company_tickers_exchange.json")
      return file("edgar", "company_tickers_exchange.json");
    if (path === "/files/company_tickers.json")
      return (
        file("edgar", "company_tickers.json") ??
        companyTickersFrom(file("edgar", "company_tickers_exchange.json"))
      );
    if (path === "/query") return this.alphaVantage(url.searchParams);
    const routes: [RegExp, (m: string[]) => Uint8Array | null][] = [
      [
        /^\/submissions\/(CIK\d{10}(?:-submissions-\d{3})?\.json)$/,
        (m) => file("edgar", "submissions", m[1] as string),
      ],
      [
        /^\/api\/xbrl\/companyfacts\/(CIK\d{10}\.json)$/,
        (m) => file("edgar", "companyfacts", m[1] as string),
      ],
      [
        /^\/Archives\/edgar\/daily-index\/\d{4}\/QTR\d\/master\.(\d{4})(\d{2})(\d{2})\.idx$/,
        (m) => {
          const text = this.opts.indexes?.get(`${m[1]}-${m[2]}-${m[3]}`);
          return text === undefined ? null : new TextEncoder().encode(text);
        },
      ],
      [
        /^\/Archives\/edgar\/data\/\d+\/(\d{10}-\d{2}-\d{6})\.txt$/,
        (m) => this.submissionText(m[1] as string),
      ],
      [
        /^\/Archives\/edgar\/data\/\d+\/(\d{18})\/[^/]+\.xml$/,
        (m) => {
          const f = m[1] as string;
          const source = this.ownership.get(`${f.slice(0, 10)}-${f.slice(10, 12)}-${f.slice(12)}`);
          return source?.endsWith(".xml") ? readFileSync(source) : null;
        },
      ],
      [
        /^\/v8\/finance\/chart\/([^/]+)$/,
        (m) => yahooChart(root, decodeURIComponent(m[1] as string), url.searchParams),
      ],
    ];
    for (const [pattern, answer] of routes) {
      const m = pattern.exec(path);
      if (m) return answer(m);
    }
    return null;
  }

  /** A filing's full submission text: the stored one, or one made around its XML document. */
  private submissionText(accession: string): Uint8Array | null {
    const source = this.ownership.get(accession);
    if (!source) return null;
    const text = readFileSync(source, "utf8");
    if (!source.endsWith(".xml")) return new TextEncoder().encode(text);
    const type = /<documentType>([^<]*)</.exec(text)?.[1] ?? "4";
    return new TextEncoder().encode(
      `<SEC-DOCUMENT>${accession}.txt\n<SEC-HEADER>${accession}.hdr.sgml\nACCESSION NUMBER:\t\t${accession}\nCONFORMED SUBMISSION TYPE:\t${type}\n</SEC-HEADER>\n<DOCUMENT>\n<TYPE>${type}\n<SEQUENCE>1\n<FILENAME>doc.xml\n<TEXT>\n<XML>\n${text}\n</XML>\n</TEXT>\n</DOCUMENT>\n</SEC-DOCUMENT>\n`,
    );
  }

  private alphaVantage(query: URLSearchParams): Uint8Array | null {
    if (!query.get("apikey"))
      return new TextEncoder().encode('{"Error Message":"the parameter apikey is invalid or missing"}');
    const source = this.opts.alphaVantage?.[query.get("symbol") ?? ""];
    if (!source) return new TextEncoder().encode('{"Error Message":"Invalid API call."}');
    return readFileSync(source);
  }
}

/** company_tickers.json made from the exchange list (the demo writes only that one). */
function companyTickersFrom(exchange: Uint8Array | null): Uint8Array | null {
  if (exchange === null) return null;
  const rows = (JSON.parse(new TextDecoder().decode(exchange)) as { data: [number, string, string][] }).data;
  const list = Object.fromEntries(
    rows.map(([cik, title, ticker], i) => [String(i), { cik_str: cik, ticker, title }]),
  );
  return new TextEncoder().encode(JSON.stringify(list));
}

/**
 * Yahoo's chart answer for a ticker made from the Yahoo-layout price CSV (split-adjusted, as
 * Yahoo serves) and the dividends CSV of the source directory, within period1..period2.
 */
function yahooChart(root: string, ticker: string, query: URLSearchParams): Uint8Array | null {
  const prices = join(root, "prices", `${ticker}.csv`);
  if (!existsSync(prices)) return null;
  const from = Number(query.get("period1") ?? 0);
  const to = Number(query.get("period2") ?? Number.MAX_SAFE_INTEGER);
  const lines = readFileSync(prices, "utf8").trim().split(/\r?\n/);
  const header = (lines.shift() ?? "").toLowerCase().split(",");
  const col = (name: string) => header.indexOf(name);
  const at = (date: string) => Math.floor(Date.parse(`${date}T14:30:00Z`) / 1000);
  const quote = {
    open: [] as (number | null)[],
    high: [] as (number | null)[],
    low: [] as (number | null)[],
    close: [] as (number | null)[],
    volume: [] as (number | null)[],
  };
  const timestamp: number[] = [];
  for (const line of lines) {
    const cells = line.split(",");
    const ts = at((cells[0] as string).slice(0, 10));
    if (ts < from || ts > to) continue;
    timestamp.push(ts);
    const value = (name: string) => {
      const v = Number(cells[col(name)]);
      return cells[col(name)] === "" || Number.isNaN(v) ? null : v;
    };
    quote.open.push(value("open"));
    quote.high.push(value("high"));
    quote.low.push(value("low"));
    quote.close.push(value("close"));
    quote.volume.push(value("volume"));
  }
  const dividends: Record<string, { amount: number; date: number }> = {};
  const dividendFile = join(root, "dividends", `${ticker}.csv`);
  if (existsSync(dividendFile)) {
    const [head, ...rows] = readFileSync(dividendFile, "utf8").trim().split(/\r?\n/);
    const names = (head ?? "").toLowerCase().split(",");
    const dateAt = Math.max(names.indexOf("ex_date"), names.indexOf("date"));
    const amountAt = Math.max(names.indexOf("amount"), names.indexOf("dividends"));
    for (const row of rows) {
      const cells = row.split(",");
      const ts = at((cells[dateAt] as string).slice(0, 10));
      if (ts >= from && ts <= to) dividends[String(ts)] = { amount: Number(cells[amountAt]), date: ts };
    }
  }
  const chart = {
    chart: {
      result: [
        {
          meta: { symbol: ticker, gmtoffset: -18000 },
          timestamp,
          indicators: { quote: [quote] },
          events: { dividends },
        },
      ],
      error: null,
    },
  };
  return new TextEncoder().encode(JSON.stringify(chart));
}

/** A master index naming `rows` ([cik, form, accession]) filed on `day`. */
export function masterIndex(day: string, rows: readonly [string, string, string][]): string {
  const lines = [
    "Description:           Daily Index of EDGAR Dissemination Feed by Company Name",
    `Last Data Received:    ${day}`,
    "Comments:              webmaster@sec.gov",
    "",
    "CIK|Company Name|Form Type|Date Filed|File Name",
    "--------------------------------------------------------------------------------",
    ...rows.map(
      ([cik, form, accession]) =>
        `${Number(cik)}|SOME COMPANY|${form}|${day.replaceAll("-", "")}|edgar/data/${Number(cik)}/${accession}.txt`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}
