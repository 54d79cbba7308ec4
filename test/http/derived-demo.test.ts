/**
 * Every derived endpoint over the demo snapshot: status, schema (the TypeBox models of
 * src/http/models/documents.ts), clean numbers, share-class spellings, 404s, billing per
 * src/http/pricing.ts and /openapi.json. Expected values are read from the demo source files
 * written for today by the same generator the snapshot was imported from (src/demo), never
 * from the service.
 */

import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type TSchema, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { addDays, daysBetween } from "../../src/domain/dates.ts";
import * as Models from "../../src/http/models/documents.ts";
import { servedDocument } from "../../src/http/models/snapshot-id.ts";
import { type Endpoint, PRICING } from "../../src/http/pricing.ts";
import { demoCik, demoSourceDir } from "../helpers/demo-sources.ts";
import { readCompanyFacts } from "../helpers/raw-companyfacts.ts";
import { type CsvPrice, type Json, readPriceCsv } from "../helpers/raw-sources.ts";
import { chargedBy, expectProblem } from "../helpers/responses.ts";
import { useDemoServer } from "../helpers/server.ts";
import { RawFacts, relDiff } from "./derived-facts.ts";

/** A derived endpoint: its URL for a ticker, OpenAPI path, pricing key and response model. */
interface Route {
  url: (ticker: string) => string;
  openapi: string;
  endpoint: Endpoint;
  schema: TSchema;
}

const DOCUMENT_ROUTES: Route[] = [
  {
    url: (t) => `/securities/${t}/valuation`,
    openapi: "/securities/{ticker}/valuation",
    endpoint: "valuation",
    schema: Models.Valuation,
  },
  {
    url: (t) => `/securities/${t}/valuation/history`,
    openapi: "/securities/{ticker}/valuation/history",
    endpoint: "valuation_history",
    schema: Models.ValuationHistory,
  },
  {
    url: (t) => `/stocks/${t}/valuation-history`,
    openapi: "/stocks/{symbol}/valuation-history",
    endpoint: "valuation_points",
    schema: Models.ValuationPoints,
  },
  {
    url: (t) => `/stocks/${t}/fundamental-metrics`,
    openapi: "/stocks/{symbol}/fundamental-metrics",
    endpoint: "fundamental_metrics",
    schema: Models.FundamentalMetrics,
  },
  {
    url: (t) => `/stocks/${t}/growth`,
    openapi: "/stocks/{symbol}/growth",
    endpoint: "growth",
    schema: Models.Growth,
  },
  {
    url: (t) => `/stocks/${t}/capital-allocation`,
    openapi: "/stocks/{symbol}/capital-allocation",
    endpoint: "capital_allocation",
    schema: Models.CapitalAllocation,
  },
  {
    url: (t) => `/stocks/${t}/owner-earnings`,
    openapi: "/stocks/{symbol}/owner-earnings",
    endpoint: "owner_earnings",
    schema: Models.OwnerEarnings,
  },
  {
    url: (t) => `/stocks/${t}/dividend`,
    openapi: "/stocks/{symbol}/dividend",
    endpoint: "dividend",
    schema: Models.Dividend,
  },
  {
    url: (t) => `/stocks/${t}/earnings`,
    openapi: "/stocks/{symbol}/earnings",
    endpoint: "earnings",
    schema: Models.Earnings,
  },
  {
    url: (t) => `/stocks/${t}/estimates`,
    openapi: "/stocks/{symbol}/estimates",
    endpoint: "estimates",
    schema: Models.Estimates,
  },
  {
    url: (t) => `/calendar/earnings?ticker=${t}`,
    openapi: "/calendar/earnings",
    endpoint: "calendar",
    schema: Type.Array(Models.CalendarRow),
  },
];

/** The documents as served: their metadata also names the snapshot (`metadata.snapshot_id`). */
const ROUTES = DOCUMENT_ROUTES.map((route) => ({ ...route, schema: servedDocument(route.schema) }));

/** The demo company with every kind of source: statements, dividends, calendar, estimates, growth. */
const FULL = "DWGT";

/** Demo source files for today (the same bytes the snapshot was imported from). */
const sources = (): string => demoSourceDir();

/** Rows of a demo CSV as objects keyed by header. */
function readCsv(path: string): Record<string, string>[] {
  const [header, ...lines] = readFileSync(path, "utf8").split(/\r?\n/).filter(Boolean);
  const names = (header ?? "").split(",");
  return lines.map((l) => {
    const cells = l.split(",");
    return Object.fromEntries(names.map((n, i) => [n, cells[i] ?? ""]));
  });
}

const prices = (ticker: string): CsvPrice[] => readPriceCsv(join(sources(), "prices", `${ticker}.csv`));

/** Paths of JSON values breaking the number rules: NaN/Infinity or a number written as a string. */
function badValues(value: unknown, path = "$"): string[] {
  if (typeof value === "number") return Number.isFinite(value) ? [] : [path];
  // Dates ("2026-11-20"), months ("2026-09") and the zero-padded CIK are legitimate strings.
  if (typeof value === "string")
    return /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(value) && !path.endsWith(".cik") ? [path] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => badValues(v, `${path}[${i}]`));
  if (value !== null && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => badValues(v, `${path}.${k}`));
  return [];
}

/** Keys of an object the schema does not declare (TypeBox objects allow extra keys). */
function undeclared(schema: TSchema, value: unknown, path = "$"): string[] {
  if (value === null || typeof value !== "object") return [];
  const s = schema as TSchema & {
    anyOf?: TSchema[];
    allOf?: TSchema[];
    items?: TSchema;
    properties?: Record<string, TSchema>;
  };
  if (s.anyOf) return s.anyOf.flatMap((o) => (Value.Check(o, value) ? undeclared(o, value, path) : []));
  if (Array.isArray(value))
    return s.items ? value.flatMap((v, i) => undeclared(s.items as TSchema, v, `${path}[${i}]`)) : [];
  const props: Record<string, TSchema> = {};
  for (const part of s.allOf ?? [s]) Object.assign(props, (part as { properties?: object }).properties ?? {});
  return Object.entries(value).flatMap(([k, v]) =>
    k in props ? undeclared(props[k] as TSchema, v, `${path}.${k}`) : [`${path}.${k}`],
  );
}

const server = useDemoServer();

beforeAll(sources, 120_000); // writing the demo sources takes seconds

describe("derived endpoints over the demo", () => {
  for (const route of ROUTES) {
    test(`${route.url(FULL)}: 200, its schema exactly, finite numbers, ${PRICING[route.endpoint]} credit(s)`, async () => {
      const { key, userId } = server.newKey(10);
      const res = await server.get(route.url(FULL), key);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toStartWith("application/json");
      const text = await res.text();
      expect(text).not.toMatch(/NaN|Infinity/);
      const body = JSON.parse(text) as unknown;
      const errors = [...Value.Errors(route.schema, body)].map((e) => `${e.path}: ${e.message}`);
      expect(errors).toEqual([]);
      expect(Value.Check(route.schema, body)).toBe(true);
      expect(undeclared(route.schema, body)).toEqual([]);
      expect(badValues(body)).toEqual([]);
      if (Array.isArray(body)) expect(body.length).toBeGreaterThan(0);
      expect(chargedBy(res)).toBe(PRICING[route.endpoint]);
      expect(server.accounts.getBalance(userId)).toBe(10 - PRICING[route.endpoint]);
    });
  }

  test("every derived endpoint answers every demo company with a schema-valid body or a 404", async () => {
    const { key } = server.newKey(10_000);
    const tickers = readCsv(join(sources(), "estimates", "demo-estimates.csv")).map(
      (r) => r.ticker as string,
    );
    const all = [...new Set([...tickers, "DCLD", "DHLD-A", "DHLD-B", "DBNK", "DINS", "DRLT"])];
    for (const ticker of all) {
      for (const route of ROUTES) {
        const res = await server.get(route.url(ticker), key);
        if (res.status === 404) {
          await expectProblem(res, 404, { code: "not_found" });
          continue;
        }
        expect(res.status, route.url(ticker)).toBe(200);
        const body = (await res.json()) as unknown;
        expect(Value.Check(route.schema, body), route.url(ticker)).toBe(true);
        expect(badValues(body), route.url(ticker)).toEqual([]);
      }
    }
  }, 60_000);

  test("share-class spellings resolve to the same document", async () => {
    const { key } = server.newKey(1000);
    for (const route of ROUTES) {
      const bodies: unknown[] = [];
      for (const spelling of ["DHLD-B", "dhld.b", "dhld%2Fb", "Dhld-B"]) {
        const res = await server.get(route.url(spelling), key);
        if (route.endpoint === "estimates") {
          // No DHLD row in estimates/demo-estimates.csv: a 404 for every spelling.
          await expectProblem(res, 404, { code: "not_found" });
          continue;
        }
        if (route.endpoint === "dividend") {
          // DHLD pays nothing: no dividends/DHLD-B.csv.
          await expectProblem(res, 404, { code: "not_found" });
          continue;
        }
        expect(res.status, `${route.url(spelling)}`).toBe(200);
        bodies.push(await res.json());
      }
      for (const b of bodies) expect(b).toEqual(bodies[0] as Json);
      const first = bodies[0] as Json | Json[] | undefined;
      if (first && !Array.isArray(first) && "symbol" in first) expect(first.symbol).toBe("DHLD-B");
    }
  });

  test("an unknown symbol is a free 404 on every derived endpoint", async () => {
    const { key, userId } = server.newKey(5);
    for (const route of ROUTES) {
      for (const symbol of ["NOSUCH", "DHLD", "DWGTX"]) {
        const res = await server.get(route.url(symbol), key);
        await expectProblem(res, 404, { code: "not_found" });
        expect(chargedBy(res), route.url(symbol)).toBe(0);
      }
    }
    expect(server.accounts.getBalance(userId)).toBe(5);
  });

  test("a known symbol without that kind of data is a free 404", async () => {
    const { key, userId } = server.newKey(5);
    const payers = new Set(readCsv(join(sources(), "dividends", `${FULL}.csv`)).length > 0 ? [FULL] : []);
    expect(payers.has(FULL)).toBe(true);
    // DCLD has no dividends/DCLD.csv (a non-payer); DHLD-B has no demo-estimates.csv row.
    const estimated = new Set(
      readCsv(join(sources(), "estimates", "demo-estimates.csv")).map((r) => r.ticker),
    );
    expect(estimated.has("DHLD-B")).toBe(false);
    for (const path of ["/stocks/DCLD/dividend", "/stocks/DHLD-B/estimates"]) {
      const res = await server.get(path, key);
      await expectProblem(res, 404, { code: "not_found" });
      expect(chargedBy(res)).toBe(0);
    }
    expect(server.accounts.getBalance(userId)).toBe(5);
  });

  test("a malformed parameter is a free 400 (a 21-character symbol, calendar cik and dates)", async () => {
    const { key, userId } = server.newKey(5);
    const long = "A".repeat(21);
    for (const route of ROUTES) {
      const res = await server.get(route.url(long), key);
      const name =
        route.endpoint === "calendar" || route.openapi.startsWith("/securities") ? "ticker" : "symbol";
      await expectProblem(res, 400, { code: "invalid_parameter", name });
      expect(chargedBy(res), route.url(long)).toBe(0);
    }
    for (const path of ["/calendar/earnings?cik=abc", "/calendar/earnings?start=2024-02-30"]) {
      const res = await server.get(path, key);
      await expectProblem(res, 400, { code: "invalid_parameter" });
      expect(chargedBy(res)).toBe(0);
    }
    expect(server.accounts.getBalance(userId)).toBe(5);
  });

  test("/openapi.json documents every derived path with its x-credit-cost", async () => {
    const doc = (await (await server.get("/openapi.json")).json()) as {
      paths: Record<string, { get?: Json & { responses?: Record<string, unknown> } }>;
    };
    for (const route of ROUTES) {
      const op = doc.paths[route.openapi]?.get;
      expect(op, route.openapi).toBeDefined();
      expect(op?.["x-credit-cost"], route.openapi).toBe(PRICING[route.endpoint]);
      expect(Object.keys(op?.responses ?? {}), route.openapi).toEqual(expect.arrayContaining(["200", "404"]));
    }
  });
});

describe("demo values traced to the demo source files", () => {
  function expectRel(actual: unknown, expected: number, label: string, tolerance = 1e-12): void {
    expect(typeof actual, label).toBe("number");
    const diff = relDiff(actual as number, expected);
    if (diff > tolerance) throw new Error(`${label}: ${actual} vs expected ${expected} (rel ${diff})`);
  }

  test(`${FULL} valuation: last close of prices/${FULL}.csv × the latest cover count filed by then`, async () => {
    const { key } = server.newKey(5);
    const last = prices(FULL).at(-1) as CsvPrice;
    const raw = new RawFacts(readCompanyFacts(sources(), demoCik(FULL)));
    const cover = raw.sharesKnownAt(last.date);
    if (!cover) throw new Error("no demo cover count");
    const body = (await (await server.get(`/securities/${FULL}/valuation`, key)).json()) as {
      valuation: Record<string, number | string>;
    };
    expect(body.valuation.date).toBe(last.date);
    // The demo has no splits (src/demo/dividend-events.ts).
    expectRel(body.valuation.market_cap, last.close * cover.val, "market_cap", 1e-9);
  });

  test(`${FULL} dividend: from dividends/${FULL}.csv (ex_date,pay_date,amount) and the closes`, async () => {
    const { key } = server.newKey(5);
    const rows = readCsv(join(sources(), "dividends", `${FULL}.csv`)).map((r) => ({
      ex: r.ex_date as string,
      pay: r.pay_date || null,
      amount: Number(r.amount),
    }));
    const last = prices(FULL).at(-1) as CsvPrice;
    const body = (await (await server.get(`/stocks/${FULL}/dividend`, key)).json()) as {
      metadata: Json;
      dividend: Record<string, number | string | null>;
    };
    expect(body.metadata.as_of_date).toBe(last.date);
    const from = addDays(last.date, -365);
    const ttm = rows.filter((r) => r.ex > from && r.ex <= last.date).reduce((s, r) => s + r.amount, 0);
    expectRel(body.dividend.dps_ttm, ttm, "dps_ttm");
    expectRel(body.dividend.dividend_yield_ttm, ttm / last.close, "dividend_yield_ttm");
    const next = rows.find((r) => r.ex > last.date) ?? null;
    expect(body.dividend.ex_dividend_date_next).toBe(next?.ex ?? null);
    expect(body.dividend.payment_date_next).toBe(next?.pay ?? null);
    expect(body.dividend.payment_amount_next).toBe(next?.amount ?? null);
  });

  test(`${FULL} estimates: the latest demo-estimates.csv row, forward P/E on the last close`, async () => {
    const { key } = server.newKey(5);
    const rows = readCsv(join(sources(), "estimates", "demo-estimates.csv"))
      .filter((r) => r.ticker === FULL)
      .sort((a, b) => (a.as_of_date as string).localeCompare(b.as_of_date as string));
    const row = rows.at(-1) as Record<string, string>;
    const last = prices(FULL).at(-1) as CsvPrice;
    const body = (await (await server.get(`/stocks/${FULL}/estimates`, key)).json()) as {
      estimates: Record<string, number | string | null>;
    };
    const e = body.estimates;
    expect(e.as_of_date).toBe(row.as_of_date as string);
    for (const f of [
      "eps_growth_yoy_est_next_q",
      "eps_growth_yoy_est_next_fy",
      "rvn_growth_yoy_est_next_q",
      "rvn_growth_yoy_est_next_fy",
      "earning_growth_5y_est",
      "eps_est_next_fy",
    ])
      expect(e[f], f).toBe(Number(row[f]));
    expect(e.total_rvn_growth_5y_est).toBe(
      row.total_rvn_growth_5y_est ? Number(row.total_rvn_growth_5y_est) : null,
    );
    const forwardPe = last.close / Number(row.eps_est_next_fy);
    expectRel(e.forward_pe, forwardPe, "forward_pe");
    expectRel(
      e.forward_peg_ratio,
      forwardPe / (Number(row.earning_growth_5y_est) * 100),
      "forward_peg_ratio",
    );
  });

  test(`${FULL} owner earnings: the imported owner_earnings of demo-growth.csv is the source value`, async () => {
    const { key } = server.newKey(5);
    const rows = readCsv(join(sources(), "growth", "demo-growth.csv"))
      .filter((r) => r.ticker === FULL)
      .sort((a, b) => (a.as_of_date as string).localeCompare(b.as_of_date as string));
    const row = rows.at(-1) as Record<string, string>;
    const body = (await (await server.get(`/stocks/${FULL}/owner-earnings`, key)).json()) as {
      owner_earnings: Record<string, number | null>;
    };
    expect(body.owner_earnings.owner_earnings_source).toBe(Number(row.owner_earnings));
    const g = (f: string) => (row[f] ? Number(row[f]) : null);
    if (g("owner_earnings_growth_1y") !== null)
      expect(body.owner_earnings.owner_earnings_growth_1y).toBe(g("owner_earnings_growth_1y") as number);
  });

  test(`${FULL} earnings: release dates agree with the calendar (a 10-Q after a calendar release is its report), the next one from the calendar`, async () => {
    const { key } = server.newKey(5);
    const subs = JSON.parse(
      readFileSync(join(sources(), "edgar", "submissions", `CIK${demoCik(FULL)}.json`), "utf8"),
    ) as { filings: { recent: { form: string[]; filingDate: string[] } } };
    const { form, filingDate } = subs.filings.recent;
    const reports = filingDate.filter((_, i) => form[i] === "10-Q" || form[i] === "10-K");
    const calendar = readCsv(join(sources(), "calendar", "demo-calendar.csv")).filter(
      (r) => r.ticker === FULL,
    );
    const last = prices(FULL).at(-1) as CsvPrice;
    // "Now": the later of the last price and the latest 10-Q/10-K filing.
    const now = [last.date, ...reports].sort().at(-1) as string;
    // A calendar date with a reported EPS is a release; a 10-Q or 10-K filed up to 45 days
    // after one is that release's report, not a release of its own (issue 19).
    const announcements = calendar.filter((r) => r.eps_actual).map((r) => r.earning_date as string);
    const announced = (d: string) => announcements.some((a) => a <= d && daysBetween(a, d) <= 45);
    const past = [
      ...new Set([
        ...announcements,
        ...reports.filter((d) => !announced(d)),
        ...calendar.map((r) => r.earning_date as string),
      ]),
    ]
      .filter((d) => d <= now)
      .sort()
      .reverse();
    const released = calendar.filter((r) => r.eps_actual && (r.earning_date as string) <= now);
    expect(past.slice(0, 2)).toEqual(
      released
        .map((r) => r.earning_date as string)
        .slice(-2)
        .reverse(),
    );
    const next = calendar
      .filter((r) => (r.earning_date as string) > now)
      .sort((a, b) => (a.earning_date as string).localeCompare(b.earning_date as string))[0];
    const body = (await (await server.get(`/stocks/${FULL}/earnings`, key)).json()) as {
      metadata: Json;
      earnings: Record<string, number | string | null>;
    };
    expect(body.metadata.as_of_date).toBe(now);
    const e = body.earnings;
    expect(e.latest_earnings_release_date).toBe(past[0] as string);
    expect(e.past_earnings_date).toBe(past[1] as string);
    expect(e.next_earnings_date).toBe(next?.earning_date ?? null);
    expect(e.next_earnings_time).toBe(next?.earning_time ?? null);
    expect(e.eps_estimate_next_q).toBe(next?.eps_forecast ? Number(next.eps_forecast) : null);
    expect(e.no_of_estimates_next_q).toBe(next?.no_of_estimates ? Number(next.no_of_estimates) : null);
    // The latest quarter's EPS: DWGT reports its second and third quarters year to date only,
    // so a three-month EPS may be missing; the calendar's reported EPS of the quarter fills it.
    const quarter = calendar.find(
      (r) => r.fiscal_quarter_ending === (e.eps_latest_q_period_end as string)?.slice(0, 7),
    );
    expect(e.eps_latest_q, "the latest quarter's EPS").not.toBeNull();
    expect(e.eps_latest_q).toBe(Number(quarter?.eps_actual));
  });

  test(`/calendar/earnings?ticker=${FULL}: exactly the demo-calendar.csv rows of ${FULL}, by date`, async () => {
    const { key } = server.newKey(5);
    const expected = readCsv(join(sources(), "calendar", "demo-calendar.csv"))
      .filter((r) => r.ticker === FULL)
      .sort((a, b) => (a.earning_date as string).localeCompare(b.earning_date as string));
    const body = (await (await server.get(`/calendar/earnings?ticker=${FULL}`, key)).json()) as Json[];
    expect(body.map((r) => r.earning_date)).toEqual(expected.map((r) => r.earning_date));
    body.forEach((r, i) => {
      const x = expected[i] as Record<string, string>;
      const num = (s: string | undefined) => (s ? Number(s) : null);
      expect(r).toMatchObject({
        cik: x.cik as string,
        ticker: FULL,
        earning_time: x.earning_time as string,
        fiscal_quarter_ending: x.fiscal_quarter_ending as string,
        eps_forecast: num(x.eps_forecast),
        eps_actual: num(x.eps_actual),
        no_of_estimates: num(x.no_of_estimates),
      });
      const [a, f] = [num(x.eps_actual), num(x.eps_forecast)];
      if (a !== null && f !== null) expectRel(r.eps_surprise, a - f, `surprise ${x.earning_date}`, 1e-9);
      else expect(r.eps_surprise).toBeNull();
    });
    // cik filter: the same rows (the demo CIK with or without zeros).
    const byCik = (await (
      await server.get(`/calendar/earnings?cik=${Number(demoCik(FULL))}`, key)
    ).json()) as Json[];
    expect(byCik).toEqual(body);
  });

  test("/calendar/earnings without a filter: the upcoming dates, from the snapshot's data date on, a page at a time", async () => {
    const { key } = server.newKey(20);
    const all = readCsv(join(sources(), "calendar", "demo-calendar.csv"));
    const health = (await (await server.get("/health")).json()) as { data_as_of: string };
    const upcoming = all
      .filter((r) => (r.earning_date as string) >= health.data_as_of)
      .sort(
        (a, b) =>
          (a.earning_date as string).localeCompare(b.earning_date as string) ||
          (a.ticker as string).localeCompare(b.ticker as string),
      )
      .map((r) => `${r.earning_date} ${r.ticker}`);
    // The demo has exactly one upcoming release per company, and a history before it.
    expect(upcoming.length).toBeGreaterThan(3);
    expect(upcoming.length).toBeLessThan(all.length);
    const rowsOf = (body: Json[]) => body.map((r) => `${r.earning_date} ${r.ticker}`);
    const whole = await server.get("/calendar/earnings", key);
    expect(rowsOf((await whole.json()) as Json[])).toEqual(upcoming);
    expect(whole.headers.get("x-total-count")).toBe(String(upcoming.length));
    expect(whole.headers.get("link")).toBeNull();
    // Pages of 2 stitched together are the whole list; each names its neighbours.
    const pages: string[] = [];
    const last = Math.ceil(upcoming.length / 2);
    for (let page = 1; page <= last; page++) {
      const res = await server.get(`/calendar/earnings?per_page=2&page=${page}`, key);
      expect(res.headers.get("x-total-count")).toBe(String(upcoming.length));
      const link = res.headers.get("link") ?? "";
      expect(link.includes(`</calendar/earnings?per_page=2&page=${page + 1}>; rel="next"`)).toBe(page < last);
      expect(link.includes(`</calendar/earnings?per_page=2&page=${page - 1}>; rel="prev"`)).toBe(page > 1);
      pages.push(...rowsOf((await res.json()) as Json[]));
    }
    expect(pages).toEqual(upcoming);
    // Past the end: an empty page, pointing back at the last one.
    const beyond = await server.get(`/calendar/earnings?per_page=2&page=${last + 5}`, key);
    expect(await beyond.json()).toEqual([]);
    expect(beyond.headers.get("link")).toBe(`</calendar/earnings?per_page=2&page=${last}>; rel="prev"`);
    // Any filter lifts the default window: a start before every row gives them all.
    const everything = await server.get("/calendar/earnings?start=1900-01-01&per_page=10000", key);
    expect(everything.headers.get("x-total-count")).toBe(String(all.length));
  });
});
