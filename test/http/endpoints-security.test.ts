/**
 * Cross-endpoint conventions over the demo snapshot: every non-2xx is problem+json carrying
 * the X-Request-Id; hostile path and query values never give a 5xx and never cost a credit
 * unless the call succeeds; the URL length limit; methods; /openapi.json and /docs.
 */

import { describe, expect, test } from "bun:test";
import type { Json } from "../helpers/raw-sources.ts";
import { chargedBy, expectProblem } from "../helpers/responses.ts";
import { useDemoServer } from "../helpers/server.ts";

const server = useDemoServer();

/** Credits per successful call, as published in the README's pricing table. */
const README_PRICING: Record<string, number> = {
  "/health": 0,
  "/account": 0,
  "/securities/search": 1,
  "/securities/{ticker}/quote": 1,
  "/stocks/{symbol}/profile": 1,
  "/stocks/{symbol}/price": 1,
  "/stocks/{symbol}/secfiling": 1,
  "/sec_filings": 1,
};

/** Responses that leak internals: driver names, file paths, stack frames. */
const LEAK = /duckdb|parquet|node_modules|snapshots\/|\/tmp\/|\bat .*\.ts:\d+|TypeError|SyntaxError/i;

describe("every non-2xx response is problem+json with the request id", () => {
  test("400, 401, 402, 404 and 405, and the URL length limit", async () => {
    const { key } = server.newKey(100);
    const poor = server.newKey(0).key;
    const cases: [string, RequestInit & { key?: string | null }, number, string][] = [
      ["/securities/search", {}, 400, "invalid_parameter"],
      ["/stocks/DWGT/price?start_date=2024-01-01&end_date=2024-02-30", {}, 400, "invalid_parameter"],
      ["/sec_filings?cik=x", {}, 400, "invalid_parameter"],
      [`/securities/search?query=demo&pad=${"x".repeat(2100)}`, {}, 400, "invalid_parameter"],
      ["/stocks/DWGT/profile", { key: null }, 401, "unauthorized"],
      ["/account", { key: "sk_not_a_real_key" }, 401, "unauthorized"],
      ["/stocks/DWGT/profile", { key: poor }, 402, "insufficient_credits"],
      ["/stocks/NOSUCH/profile", {}, 404, "not_found"],
      ["/no/such/route", {}, 404, "not_found"],
      ["/stocks/DWGT", {}, 404, "not_found"],
      ["/stocks/DWGT/profile", { method: "POST" }, 405, "method_not_allowed"],
      ["/sec_filings", { method: "DELETE" }, 405, "method_not_allowed"],
      ["/health", { method: "PUT" }, 405, "method_not_allowed"],
    ];
    for (const [path, init, status, code] of cases) {
      const res = await server.get(path, init.key === undefined ? key : init.key, init);
      const body = await expectProblem(res, status, { code });
      expect(JSON.stringify(body), path).not.toMatch(LEAK);
      if (status === 405) expect(res.headers.get("allow")).toBe("GET, HEAD");
    }
  });

  test("request ids differ per request", async () => {
    const { key } = server.newKey(10);
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++)
      ids.add((await server.get("/stocks/NOSUCH/profile", key)).headers.get("x-request-id") ?? "");
    expect(ids.size).toBe(5);
  });

  test("a path and query over 2048 characters are a free 400; a long one under the limit is served", async () => {
    const { key, userId } = server.newKey(5);
    const base = "/securities/search?query=demo&pad=";
    const over = await server.get(
      `/securities/search?query=demo&pad=${"y".repeat(2049 - base.length + 1)}`,
      key,
    );
    const body = await expectProblem(over, 400, { code: "invalid_parameter" });
    expect(body.detail).toContain("2048");
    expect(chargedBy(over)).toBe(0);
    const under = await server.get(
      `/securities/search?query=demo&pad=${"y".repeat(2048 - base.length)}`,
      key,
    );
    expect(under.status).toBe(200);
    expect(server.accounts.getBalance(userId)).toBe(4);
  });
});

describe("hostile path and query values", () => {
  const HOSTILE = [
    "..%2F..%2Fetc%2Fpasswd",
    "%2E%2E%2F%2E%2E",
    "..%5C..%5Cwindows",
    "DWGT%2F..%2F..%2F",
    "%00",
    "DWGT%00",
    "%00DWGT",
    "%27%20OR%20%271%27%3D%271",
    "DWGT%27%3B%20DROP%20TABLE%20filings%3B--",
    "%22%29%3B--",
    "%25",
    "%25%25",
    "_",
    "*",
    "%3Cscript%3Ealert(1)%3C%2Fscript%3E",
    "%0D%0AX-Injected%3A%201",
    "%E0%A4%A",
    "%FF%FE",
    "%F0%9F%92%A5",
    "%20",
    "A".repeat(21),
    "B".repeat(1500),
    "%24(id)",
    "%7B%7B7*7%7D%7D",
  ];

  /** Never a 5xx; a failure costs nothing; a success costs its price and finds nothing. */
  async function probe(path: string, key: string, isEmpty: (body: unknown) => boolean): Promise<number> {
    const res = await server.get(path, key);
    expect(res.status, path).toBeLessThan(500);
    expect(res.headers.get("x-injected"), path).toBeNull();
    const text = await res.text();
    expect(text, path).not.toMatch(LEAK);
    if (res.status >= 200 && res.status < 300) {
      expect(chargedBy(res), path).toBe(1);
      expect(isEmpty(JSON.parse(text)), `${path} returned data`).toBe(true);
      return 1;
    }
    expect(res.status, path).toBeGreaterThanOrEqual(400);
    expect(res.headers.get("content-type"), path).toBe("application/problem+json");
    expect((JSON.parse(text) as Json).request_id, path).toBe(res.headers.get("x-request-id") as string);
    expect(chargedBy(res), path).toBe(0);
    return 0;
  }

  test("in path parameters: always 4xx, never charged", async () => {
    const { key, userId } = server.newKey(1000);
    const paths = [
      "/stocks/{}/profile",
      "/stocks/{}/price?start_date=2024-01-01&end_date=2024-01-31",
      "/stocks/{}/secfiling",
      "/securities/{}/quote",
    ];
    let paid = 0;
    for (const template of paths) {
      for (const value of HOSTILE) paid += await probe(template.replace("{}", value), key, () => false);
    }
    expect(paid).toBe(0);
    expect(server.accounts.getBalance(userId)).toBe(1000);
  });

  test("in query parameters: 4xx free of charge, or 2xx with nothing found", async () => {
    const { key, userId } = server.newKey(10_000);
    const empty = {
      search: (b: unknown) => (b as { data: unknown[] }).data.length === 0,
      filings: (b: unknown) => (b as { data: unknown[] }).data.length === 0,
      secfiling: (b: unknown) => (b as { filings: unknown[] }).filings.length === 0,
      price: (b: unknown) => (b as unknown[]).length === 0,
    };
    const templates: [string, (b: unknown) => boolean][] = [
      ["/securities/search?query={}", empty.search],
      ["/securities/search?query=demo&page={}", empty.search],
      ["/securities/search?query=demo&per_page={}", empty.search],
      ["/stocks/DWGT/price?start_date={}&end_date=2024-01-31", empty.price],
      ["/stocks/DWGT/price?start_date=2024-01-01&end_date={}", empty.price],
      ["/stocks/DWGT/secfiling?form_type={}", empty.secfiling],
      ["/stocks/DWGT/secfiling?limit={}", empty.secfiling],
      ["/sec_filings?ticker={}", empty.filings],
      ["/sec_filings?cik={}", empty.filings],
      ["/sec_filings?form={}", empty.filings],
      ["/sec_filings?accession_number={}", empty.filings],
      ["/sec_filings?start={}", empty.filings],
      ["/sec_filings?end={}", empty.filings],
      ["/sec_filings?page={}", empty.filings],
      ["/sec_filings?per_page={}", empty.filings],
    ];
    let paid = 0;
    for (const [template, isEmpty] of templates) {
      for (const value of HOSTILE) {
        paid += await probe(template.replace("{}", value), key, isEmpty);
      }
    }
    expect(server.accounts.getBalance(userId)).toBe(10_000 - paid);
    expect(server.accounts.ledgerSum(userId)).toBe(10_000 - paid);
  });

  test("a SQL fragment in a filter does not widen the match", async () => {
    const { key } = server.newKey(10);
    for (const q of ["form=10-K%27%20OR%20%271%27%3D%271", "form=%25", "form=10-%25", "form=10-_"]) {
      const res = await server.get(`/sec_filings?${q}`, key);
      expect(res.status, q).toBe(200);
      expect(((await res.json()) as { pagination: { total: number } }).pagination.total, q).toBe(0);
    }
  });
});

describe("/openapi.json and /docs", () => {
  test("/openapi.json needs no key and lists every endpoint with its x-credit-cost", async () => {
    const res = await server.get("/openapi.json");
    expect(res.status).toBe(200);
    expect(chargedBy(res)).toBe(0);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, Json>> };
    expect(doc.openapi).toMatch(/^3\./);
    for (const [path, cost] of Object.entries(README_PRICING)) {
      const op = doc.paths[path]?.get;
      expect(op, path).toBeDefined();
      expect(op?.["x-credit-cost"], path).toBe(cost);
    }
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(typeof op["x-credit-cost"], `${method} ${path}`).toBe("number");
      }
    }
  });

  test("documents each parameter's limits: per_page and limit maxima, defaults", async () => {
    const doc = (await (await server.get("/openapi.json")).json()) as {
      paths: Record<string, { get: { parameters: { name: string; schema: Json }[] } }>;
    };
    const param = (path: string, name: string) =>
      doc.paths[path]?.get.parameters.find((p) => p.name === name)?.schema;
    expect(param("/securities/search", "per_page")).toMatchObject({ maximum: 100, default: 10 });
    expect(param("/sec_filings", "per_page")).toMatchObject({ maximum: 1000, default: 100 });
    expect(param("/stocks/{symbol}/secfiling", "limit")).toMatchObject({ maximum: 1000, default: 20 });
    expect(param("/stocks/{symbol}/secfiling", "form_type")).toMatchObject({ default: "10-K" });
  });

  test("parameters with a default are optional in /openapi.json", async () => {
    const doc = (await (await server.get("/openapi.json")).json()) as {
      paths: Record<string, { get: { parameters: { name: string; required?: boolean }[] } }>;
    };
    const required = (path: string, name: string) =>
      doc.paths[path]?.get.parameters.find((p) => p.name === name)?.required ?? false;
    expect(required("/securities/search", "page")).toBe(false);
    expect(required("/securities/search", "per_page")).toBe(false);
    expect(required("/sec_filings", "per_page")).toBe(false);
    expect(required("/stocks/{symbol}/secfiling", "limit")).toBe(false);
    expect(required("/stocks/{symbol}/secfiling", "form_type")).toBe(false);
  });

  test("/docs references only local assets, and they are served", async () => {
    const res = await server.get("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/html");
    const html = await res.text();
    const refs = [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)=["']([^"']+)["']/gi)].map(
      (m) => m[1] as string,
    );
    expect(refs.length).toBeGreaterThanOrEqual(2);
    expect(html).not.toMatch(/(?:src|href)=["'](?:https?:)?\/\//i);
    expect(html).not.toMatch(/@import\s+url\(["']?https?:/i);
    for (const ref of refs) {
      const asset = await fetch(new URL(ref, `${server.url}/docs`));
      expect(asset.status, ref).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, ref).toBeGreaterThan(1000);
    }
    expect(refs.some((r) => r.endsWith(".js"))).toBe(true);
    expect(refs.some((r) => r.endsWith(".css"))).toBe(true);
  });

  /** The spec URL the docs page loads, resolved against the page's own address. */
  async function specUrlFrom(page: string): Promise<URL> {
    // Relative to where the page ends up (after redirects), as a browser resolves it.
    const res = await fetch(`${server.url}${page}`);
    const url = /"url"\s*:\s*"([^"]+)"/.exec(await res.text())?.[1];
    if (!url) throw new Error("the docs page names no spec URL");
    return new URL(url, res.url);
  }

  test("the docs page loads the OpenAPI document from this server", async () => {
    const spec = await specUrlFrom("/docs");
    expect(spec.origin).toBe(server.url);
    const res = await fetch(spec);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).paths).toBeDefined();
  });

  // The page names its spec relatively, so /docs/ must not serve it from another base.
  test("the docs page at /docs/ loads the OpenAPI document too", async () => {
    const res = await fetch(await specUrlFrom("/docs/"));
    expect(res.status).toBe(200);
  });
});
