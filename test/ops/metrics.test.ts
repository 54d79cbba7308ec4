import { describe, expect, test } from "bun:test";
import { readCurrent } from "../../src/snapshot/store.ts";
import { useDemoServer } from "../helpers/server.ts";

const TOKEN = "metrics-token-for-tests-0123";

const server = useDemoServer({ config: { metricsToken: TOKEN } });
const disabled = useDemoServer();

function scrape(token: string | null = TOKEN): Promise<Response> {
  return server.get("/metrics", token);
}

/** The value of one sample (name plus its exact label set), 0 when the series is absent. */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe("/metrics access", () => {
  test("without a configured token it does not exist (404), whatever the header", async () => {
    const { key } = disabled.newKey(5);
    expect((await disabled.get("/metrics")).status).toBe(404);
    expect((await disabled.get("/metrics", key)).status).toBe(404);
    expect((await disabled.get("/metrics", TOKEN)).status).toBe(404);
  });

  test("a missing or wrong token is a 401; an API key is not a metrics token", async () => {
    const { key } = server.newKey(5);
    for (const token of [null, "wrong-token-0123456789", `${TOKEN}x`, TOKEN.slice(0, -1), key]) {
      const res = await scrape(token);
      expect(res.status, `token ${token}`).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
    }
  });

  test("the right token gets the Prometheus text format", async () => {
    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
    const text = await res.text();
    const id = readCurrent(server.dataDir);
    expect(text).toContain(`stockd_snapshot_info{snapshot_id="${id}",`);
    expect(sample(text, "stockd_snapshot_age_seconds")).toBeGreaterThan(0);
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(1_000_000);
    expect(text).toContain("# TYPE stockd_http_requests_total counter");
    expect(text).toContain("# TYPE stockd_http_request_duration_seconds histogram");
    expect(text).toContain("# TYPE stockd_credits_charged_total counter");
  });

  test("it is never billed and is not in the OpenAPI document", async () => {
    const { key, userId } = server.newKey(5);
    await scrape();
    await scrape(key);
    expect(server.accounts.getBalance(userId)).toBe(5);
    const spec = (await (await server.get("/openapi.json")).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(spec.paths)).not.toContain("/metrics");
  });
});

describe("/metrics counters", () => {
  test("increase by exactly the calls made", async () => {
    const { key } = server.newKey(100);
    const before = await (await scrape()).text();
    for (let i = 0; i < 3; i++) expect((await server.get("/stocks/DWGT/profile", key)).status).toBe(200);
    expect((await server.get("/stocks/NOSUCH/profile", key)).status).toBe(404);
    expect((await server.get("/stocks/DWGT/profile", "sk_not_a_real_key")).status).toBe(401);
    expect((await server.get("/health")).status).toBe(200);
    expect((await server.get("/health")).status).toBe(200);
    const after = await (await scrape()).text();
    const delta = (series: string) => sample(after, series) - sample(before, series);

    expect(delta('stockd_http_requests_total{route="profile",status="200"}')).toBe(3);
    expect(delta('stockd_http_requests_total{route="profile",status="404"}')).toBe(1);
    expect(delta('stockd_http_requests_total{route="other",status="401"}')).toBe(1);
    expect(delta('stockd_http_requests_total{route="health",status="200"}')).toBe(2);
    expect(delta('stockd_http_requests_total{route="metrics",status="200"}'), "the first scrape").toBe(1);
    expect(delta('stockd_credits_charged_total{route="profile"}'), "only 2xx calls are charged").toBe(3);
    expect(delta('stockd_http_request_duration_seconds_count{route="profile"}')).toBe(4);
    expect(delta('stockd_http_request_duration_seconds_bucket{route="profile",le="+Inf"}')).toBe(4);
    expect(sample(after, 'stockd_http_request_duration_seconds_sum{route="profile"}')).toBeGreaterThan(0);
  });

  test("histogram buckets are cumulative", async () => {
    const text = await (await scrape()).text();
    const buckets = text
      .split("\n")
      .filter((l) => l.startsWith('stockd_http_request_duration_seconds_bucket{route="health",'))
      .map((l) => Number(l.split(" ")[1]));
    expect(buckets.length).toBe(12);
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
  });
});
