import { createHash, timingSafeEqual } from "node:crypto";
import { ApiError, problemResponse } from "../errors.ts";
import type { Manifest } from "../snapshot/store.ts";
import type { KeyRate } from "./limits.ts";

/** Latency buckets in seconds (Prometheus client defaults, which suit an HTTP API). */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
const BEARER = /^Bearer ([\x21-\x7e]{1,200})$/;

interface MetricsOptions {
  /** The bearer token that unlocks /metrics; null disables it (404). */
  token: string | null;
  /** The manifest of the snapshot being served, if any. */
  snapshot: () => Manifest | null;
  version: string;
  /** The per-key rate: whether it is shared across replicas now, and how often it was not. */
  rate: Pick<KeyRate, "shared" | "fallbacks">;
  /** More families, rendered at each scrape (sync's, read from its state file: sync/metrics.ts). */
  more?: () => string[];
  now?: () => number;
}

/** What one route has counted: requests by status, a latency histogram, credits charged. */
interface RouteStats {
  statuses: Map<number, number>;
  /** Requests whose latency fell in each bucket (not cumulative: added up when rendered). */
  inBucket: number[];
  sum: number;
  count: number;
  credits: number;
}

/**
 * The label for a request's route: the billed endpoint name when a route claimed it, else a
 * name from a fixed set, so that no URL a client makes up can add a time series.
 */
export function routeLabel(endpoint: string | null, pathname: string): string {
  if (endpoint) return endpoint;
  if (pathname === "/health") return "health";
  if (pathname === "/metrics") return "metrics";
  if (pathname === "/openapi.json") return "openapi";
  if (pathname === "/docs" || pathname.startsWith("/docs/")) return "docs";
  return "other";
}

/**
 * Request counters, a latency histogram and credits charged, kept in memory by one serving
 * process, and `GET /metrics` in the Prometheus text format. Never billed, never in the
 * OpenAPI document.
 */
export class Metrics {
  private readonly routes = new Map<string, RouteStats>();
  private readonly tokenDigest: Buffer | null;
  private readonly now: () => number;

  constructor(private readonly options: MetricsOptions) {
    this.tokenDigest = options.token === null ? null : sha256(options.token);
    this.now = options.now ?? Date.now;
  }

  /** Counts one finished request (on every call: nothing is allocated once its route and status were seen). */
  observe(route: string, status: number, credits: number, seconds: number): void {
    let stats = this.routes.get(route);
    if (!stats) {
      stats = { statuses: new Map(), inBucket: BUCKETS.map(() => 0), sum: 0, count: 0, credits: 0 };
      this.routes.set(route, stats);
    }
    stats.statuses.set(status, (stats.statuses.get(status) ?? 0) + 1);
    const bucket = BUCKETS.findIndex((le) => seconds <= le);
    if (bucket >= 0) stats.inBucket[bucket] = (stats.inBucket[bucket] as number) + 1;
    stats.sum += seconds;
    stats.count++;
    stats.credits += credits;
  }

  /** `GET /metrics`: 404 while disabled, 401 without the right token, else the exposition. */
  respond(request: Request, requestId: string): Response {
    if (this.tokenDigest === null)
      return problemResponse(new ApiError("not_found", "no such route"), requestId);
    const given = BEARER.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
    if (!timingSafeEqual(sha256(given), this.tokenDigest)) {
      const error = new ApiError(
        "unauthorized",
        "/metrics needs Authorization: Bearer <metrics token>",
        undefined,
        {
          "www-authenticate": 'Bearer realm="stockd-metrics", error="invalid_token"',
        },
      );
      return problemResponse(error, requestId);
    }
    return new Response(this.render(), { headers: { "content-type": CONTENT_TYPE } });
  }

  /** The Prometheus text exposition of every metric. */
  render(): string {
    return [
      ...this.renderRequests(),
      ...this.renderLatency(),
      ...this.renderCredits(),
      ...this.renderSnapshot(),
      ...this.renderRate(),
      ...(this.options.more?.() ?? []),
      ...family("stockd_build_info", "gauge", "The running version.", [
        `stockd_build_info${labels({ version: this.options.version })} 1`,
      ]),
      ...family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", [
        `process_resident_memory_bytes ${process.memoryUsage.rss()}`,
      ]),
      "",
    ].join("\n");
  }

  private renderRequests(): string[] {
    const lines = [...this.routes].flatMap(([route, stats]) =>
      [...stats.statuses].map(
        ([status, n]) => `stockd_http_requests_total${labels({ route, status: String(status) })} ${n}`,
      ),
    );
    return family("stockd_http_requests_total", "counter", "HTTP requests by route and status.", lines);
  }

  private renderLatency(): string[] {
    const name = "stockd_http_request_duration_seconds";
    const lines = [...this.routes].flatMap(([route, h]) => {
      let cumulative = 0;
      return [
        ...BUCKETS.map((le, i) => {
          cumulative += h.inBucket[i] as number;
          return `${name}_bucket${labels({ route, le: String(le) })} ${cumulative}`;
        }),
        `${name}_bucket${labels({ route, le: "+Inf" })} ${h.count}`,
        `${name}_sum${labels({ route })} ${h.sum}`,
        `${name}_count${labels({ route })} ${h.count}`,
      ];
    });
    return family(name, "histogram", "Time from receiving a request to its response, by route.", lines);
  }

  private renderCredits(): string[] {
    const lines = [...this.routes]
      .filter(([, stats]) => stats.credits > 0)
      .map(([route, stats]) => `stockd_credits_charged_total${labels({ route })} ${stats.credits}`);
    return family("stockd_credits_charged_total", "counter", "Credits charged for successful calls.", lines);
  }

  private renderSnapshot(): string[] {
    const manifest = this.options.snapshot();
    const info = manifest
      ? [
          `stockd_snapshot_info${labels({ snapshot_id: manifest.id, data_as_of: manifest.data_as_of ?? "" })} 1`,
        ]
      : [];
    const created = manifest ? Date.parse(manifest.created_at) : Number.NaN;
    const age = Number.isNaN(created) ? [] : [`stockd_snapshot_age_seconds ${(this.now() - created) / 1000}`];
    return [
      ...family("stockd_snapshot_info", "gauge", "The snapshot being served (value 1).", info),
      ...family(
        "stockd_snapshot_age_seconds",
        "gauge",
        "Seconds since the served snapshot was created.",
        age,
      ),
    ];
  }

  private renderRate(): string[] {
    const { shared, fallbacks } = this.options.rate;
    return [
      ...family(
        "stockd_rate_limit_shared",
        "gauge",
        "1 while the per-key rate is counted in Redis across replicas, else 0 (this replica's share).",
        [`stockd_rate_limit_shared ${shared ? 1 : 0}`],
      ),
      ...family(
        "stockd_rate_limit_fallbacks_total",
        "counter",
        "Calls whose rate Redis could not count, counted by this replica's share instead.",
        [`stockd_rate_limit_fallbacks_total ${fallbacks}`],
      ),
    ];
  }
}

/** One metric family: its HELP and TYPE lines, then its samples. */
export function family(name: string, type: string, help: string, lines: string[]): string[] {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...lines];
}

/** A label set in the text format, values escaped. */
export function labels(values: Record<string, string>): string {
  const pairs = Object.entries(values).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return `{${pairs.join(",")}}`;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** Digests compared instead of the strings: equal lengths, so timingSafeEqual never throws. */
function sha256(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}
