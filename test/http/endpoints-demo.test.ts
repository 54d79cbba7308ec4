/**
 * /health, /account, /stocks/{symbol}/profile and /securities/{ticker}/quote over the demo
 * snapshot. Expected values are read from the demo source files (the generator's output
 * for today), never from the service.
 */

import { describe, expect, test } from "bun:test";
import { addDays } from "../../src/domain/dates.ts";
import { demoCik, demoSources } from "../helpers/demo-sources.ts";
import type { Json } from "../helpers/raw-sources.ts";
import { chargedBy, expectProblem } from "../helpers/responses.ts";
import { startTestServer, useDemoServer } from "../helpers/server.ts";

const server = useDemoServer();

const keys = (o: unknown) => Object.keys(o as Json).sort();

describe("/health", () => {
  test("needs no key, is free, and names the active snapshot and the newest price date", async () => {
    const res = await server.get("/health");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect(res.headers.get("x-credits-charged")).toBeNull();
    const body = (await res.json()) as Json;
    expect(keys(body)).toEqual(["data_as_of", "snapshot_created_at", "snapshot_id", "status", "time"]);
    expect(body.status).toBe("ok");
    expect(body.snapshot_id).toBe(server.snapshots.current()?.id as string);
    // The demo writes prices through yesterday for every ticker: the newest CSV date.
    const lastDates = demoSources().tickers.map(([, , t]) => demoSources().prices(t).at(-1)?.date ?? "");
    expect(body.data_as_of).toBe(lastDates.sort().at(-1) as string);
    expect(Date.parse(body.time as string)).toBeGreaterThan(Date.now() - 60_000);
    expect(body.snapshot_created_at as string).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  });

  test("is 503 problem+json while no snapshot is active, and so is every data endpoint", async () => {
    const empty = await startTestServer();
    try {
      await expectProblem(await empty.get("/health"), 503, { code: "unavailable" });
      const { key, userId } = empty.newKey(5);
      const res = await empty.get("/stocks/DWGT/profile", key);
      await expectProblem(res, 503, { code: "unavailable" });
      expect(chargedBy(res)).toBe(0);
      expect(empty.accounts.getBalance(userId)).toBe(5);
    } finally {
      await empty.stop();
    }
  });
});

describe("/account", () => {
  test("needs a key", async () => {
    await expectProblem(await server.get("/account"), 401, { code: "unauthorized" });
  });

  test("shows balance, the key in use and 30-day usage by endpoint, and is free", async () => {
    const { key, keyId, userId } = server.newKey(50);
    expect((await server.get("/stocks/DWGT/profile", key)).status).toBe(200);
    expect((await server.get("/securities/DWGT/quote", key)).status).toBe(200);
    expect((await server.get("/securities/DWGT/quote", key)).status).toBe(200);
    expect((await server.get("/stocks/NOSUCH/profile", key)).status).toBe(404);
    const res = await server.get("/account", key);
    expect(res.status).toBe(200);
    expect(chargedBy(res)).toBe(0);
    const body = (await res.json()) as Json & { key: Json; usage_30d: Json };
    expect(keys(body)).toEqual(["available", "balance", "email", "key", "reserved", "usage_30d", "user_id"]);
    expect(body.user_id).toBe(userId);
    expect(body.balance).toBe(47);
    expect(body.reserved).toBe(0);
    expect(body.available).toBe(47);
    expect(body.key.id).toBe(keyId);
    expect(key).toContain(body.key.prefix as string);
    expect(JSON.stringify(body)).not.toContain(key);
    expect(body.usage_30d.calls).toBe(3);
    expect(body.usage_30d.credits).toBe(3);
    const byEndpoint = body.usage_30d.by_endpoint as { endpoint: string; calls: number; credits: number }[];
    expect([...byEndpoint].sort((a, b) => a.endpoint.localeCompare(b.endpoint))).toEqual([
      { endpoint: "profile", calls: 1, credits: 1 },
      { endpoint: "quote", calls: 2, credits: 2 },
    ]);
    expect(server.accounts.getBalance(userId)).toBe(47);
  });
});

describe("/stocks/{symbol}/profile", () => {
  test("has the spec's identity and general fields with the values of the source files", async () => {
    const { key } = server.newKey(5);
    const res = await server.get("/stocks/DWGT/profile", key);
    expect(res.status).toBe(200);
    expect(chargedBy(res)).toBe(1);
    const body = (await res.json()) as { identity: Json; general: Json };
    expect(keys(body)).toEqual(["general", "identity"]);
    for (const f of ["company_id", "security_id", "symbol", "exchange", "company_name", "cik", "market"]) {
      expect(body.identity, f).toHaveProperty(f);
    }
    const general = [
      "country_iso",
      "currency",
      "company_website",
      "business_description",
      "industry_template",
      "company_country",
      "ipo_date",
      "security_active",
    ];
    for (const f of general) expect(body.general, f).toHaveProperty(f);

    const cik = demoCik("DWGT");
    const src = demoSources().submissions(cik);
    const listed = demoSources().tickers.find((r) => r[2] === "DWGT");
    expect(body.identity).toMatchObject({
      symbol: "DWGT",
      cik,
      company_name: src.name,
      exchange: listed?.[3],
      market: "US",
      composite_figi: demoSources().figi("DWGT").compositeFIGI,
    });
    expect(body.general).toMatchObject({
      currency: "USD",
      country_iso: "US",
      sic: src.sic,
      sic_description: src.sicDescription,
      fiscal_year_end: src.fiscalYearEnd,
      state_of_incorporation: src.stateOfIncorporation,
      ipo_date: null,
      security_active: true,
      industry_template: "general",
    });
  });

  test("industry_template follows the SIC code: bank, insurance, reit", async () => {
    const { key } = server.newKey(5);
    // SIC 6021 National Commercial Banks, 6331 Fire/Marine/Casualty Insurance, 6798 REITs (universe.ts).
    for (const [ticker, template] of [
      ["DBNK", "bank"],
      ["DINS", "insurance"],
      ["DRLT", "reit"],
    ] as const) {
      const sic = demoSources().submissions(demoCik(ticker)).sic;
      const body = (await (await server.get(`/stocks/${ticker}/profile`, key)).json()) as { general: Json };
      expect(body.general.sic, ticker).toBe(sic);
      expect(body.general.industry_template, ticker).toBe(template);
    }
  });

  test("share classes resolve in any case with '.', '-' or '/' as the separator", async () => {
    const { key } = server.newKey(20);
    const spellings = ["DHLD-B", "dhld.b", "dhld%2Fb", "Dhld-B", "DHLD.B"];
    const bodies: unknown[] = [];
    for (const s of spellings) {
      const res = await server.get(`/stocks/${s}/profile`, key);
      expect(res.status, s).toBe(200);
      bodies.push(await res.json());
    }
    for (const b of bodies) expect(b).toEqual(bodies[0] as Json);
    const b = bodies[0] as { identity: Json };
    expect(b.identity.symbol).toBe("DHLD-B");
    expect(b.identity.share_class_figi).toBe(demoSources().figi("DHLD-B").shareClassFIGI);
    const a = (await (await server.get("/stocks/dhld%2Fa/profile", key)).json()) as {
      identity: Json;
    };
    expect(a.identity.symbol).toBe("DHLD-A");
    expect(a.identity.cik).toBe(b.identity.cik);
    expect(a.identity.share_class_figi).toBe(demoSources().figi("DHLD-A").shareClassFIGI);
    expect(a.identity.share_class_figi).not.toBe(b.identity.share_class_figi);
  });

  test("an unknown symbol is a free 404 problem", async () => {
    const { key, userId } = server.newKey(5);
    for (const s of ["NOSUCH", "DHLD", "DHLD-C", "DWGTX"]) {
      const res = await server.get(`/stocks/${s}/profile`, key);
      await expectProblem(res, 404, { code: "not_found" });
      expect(chargedBy(res)).toBe(0);
    }
    expect(server.accounts.getBalance(userId)).toBe(5);
  });
});

describe("/securities/{ticker}/quote", () => {
  test("is the last CSV row, with the previous close and the 52-week range of the source", async () => {
    const { key } = server.newKey(5);
    const res = await server.get("/securities/dwgt/quote", key);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { symbol: string; quote: Record<string, number | string | null> };
    expect(keys(body)).toEqual(["quote", "symbol"]);
    expect(keys(body.quote)).toEqual(
      [
        "date",
        "currency",
        "close",
        "previous_close",
        "change",
        "change_percent",
        "open",
        "high",
        "low",
        "volume",
        "fifty_two_week_high",
        "fifty_two_week_low",
      ].sort(),
    );
    const rows = demoSources().prices("DWGT");
    const last = rows.at(-1);
    const prev = rows.at(-2);
    if (!last || !prev) throw new Error("demo prices are empty");
    expect(body.symbol).toBe("DWGT");
    const q = body.quote;
    expect(q.date).toBe(last.date);
    expect(q.currency).toBe("USD");
    expect(q.close).toBe(last.close);
    expect(q.previous_close).toBe(prev.close);
    expect(q.open).toBe(last.open);
    expect(q.high).toBe(last.high);
    expect(q.low).toBe(last.low);
    expect(q.volume).toBe(last.volume);
    expect(q.change as number).toBeCloseTo(last.close - prev.close, 9);
    expect(q.change_percent as number).toBeCloseTo((last.close - prev.close) / prev.close, 12);
    const since = addDays(last.date, -365);
    const year = rows.filter((r) => r.date > since);
    expect(q.fifty_two_week_high).toBe(Math.max(...year.map((r) => r.high)));
    expect(q.fifty_two_week_low).toBe(Math.min(...year.map((r) => r.low)));
  });

  test("resolves share classes and 404s an unknown ticker for free", async () => {
    const { key, userId } = server.newKey(5);
    const res = await server.get("/securities/dhld%2Fa/quote", key);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).symbol).toBe("DHLD-A");
    const missing = await server.get("/securities/NOSUCH/quote", key);
    await expectProblem(missing, 404, { code: "not_found" });
    expect(server.accounts.getBalance(userId)).toBe(4);
  });
});
