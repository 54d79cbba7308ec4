/**
 * The pure parts of sync on hand-built inputs: the daily index, the day arithmetic, the price
 * file's split and dividend adjustment, Yahoo's chart answer, the SEC's answers, the checks a
 * body passes before the mirror, and the limiter's pace measured at a loopback server.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parsePriceFileDividends, parsePrices } from "../../src/ingest/sources/price-files.ts";
import { createLogger } from "../../src/log.ts";
import {
  coversDay,
  isOwnershipForm,
  isPeriodicForm,
  latestFinalDay,
  parseMasterIndex,
} from "../../src/sync/daily-index.ts";
import { HttpSource, Limiter } from "../../src/sync/http.ts";
import { BadBodyError, verifyBody } from "../../src/sync/mirror.ts";
import { parseDailyAdjusted } from "../../src/sync/prices/alphavantage.ts";
import { renderPriceCsv, toStoredBars } from "../../src/sync/prices/provider.ts";
import { parseChart } from "../../src/sync/prices/yahoo.ts";
import { classifySec } from "../../src/sync/sec.ts";
import { peakRate } from "./helpers.ts";
import { masterIndex, ReplayServer } from "./replay.ts";

test("a master index gives each row's CIK, form, day and accession; forms are matched exactly", () => {
  const text = masterIndex("2026-11-20", [
    ["320193", "10-Q", "0000320193-26-000010"],
    ["1000001", "424B2", "0001000001-26-000001"],
    ["320193", "4/A", "0001127602-26-000002"],
  ]);
  expect(parseMasterIndex(text, "idx")).toEqual([
    { cik: "0000320193", form: "10-Q", filed: "2026-11-20", accession: "0000320193-26-000010" },
    { cik: "0001000001", form: "424B2", filed: "2026-11-20", accession: "0001000001-26-000001" },
    { cik: "0000320193", form: "4/A", filed: "2026-11-20", accession: "0001127602-26-000002" },
  ]);
  expect(isOwnershipForm("4/A")).toBe(true);
  expect(isOwnershipForm("424B2")).toBe(false);
  expect(isPeriodicForm("10-K/A")).toBe(true);
  expect(isPeriodicForm("S-1")).toBe(false);
  expect(() =>
    parseMasterIndex("<html>Your Request Originates from an Undeclared Automated Tool</html>", "idx"),
  ).toThrow("not an EDGAR master index");
});

test("a day's index is final from 06:00 New York time on the next day", () => {
  // 2026-11-20 10:59 UTC is 05:59 in New York (EST): the 19th is not final yet.
  expect(latestFinalDay(new Date("2026-11-20T10:59:00Z"))).toBe("2026-11-18");
  expect(latestFinalDay(new Date("2026-11-20T11:01:00Z"))).toBe("2026-11-19");
  // Summer time: 06:00 EDT is 10:00 UTC.
  expect(latestFinalDay(new Date("2026-07-10T10:01:00Z"))).toBe("2026-07-09");
  expect(coversDay("2026-11-20T11:00:00.000Z", "2026-11-19")).toBe(true);
  expect(coversDay("2026-11-20T09:00:00.000Z", "2026-11-19")).toBe(false);
});

test("the price file divides days before a split by it and adjusts closes for later dividends", () => {
  const csv = renderPriceCsv(
    toStoredBars({
      bars: [
        { date: "2024-01-02", open: 100, high: 102, low: 99, close: 100, volume: 1000 },
        { date: "2024-01-03", open: 101, high: 103, low: 100, close: 102, volume: 1000 },
        { date: "2024-01-04", open: 51, high: 52, low: 50, close: 51, volume: 2000 },
        { date: "2024-01-05", open: 50, high: 51, low: 49, close: 50, volume: 2000 },
      ],
      dividends: [{ exDate: "2024-01-05", amount: 1.02 }],
      splits: [{ date: "2024-01-04", ratio: 2 }],
    }),
  );
  const rows = parsePrices(csv, "X.csv").rows;
  // 2-for-1 on the 4th: earlier prices halve, volumes double.
  expect(rows.map((r) => [r.date, r.close, r.volume])).toEqual([
    ["2024-01-02", 50, 2000],
    ["2024-01-03", 51, 2000],
    ["2024-01-04", 51, 2000],
    ["2024-01-05", 50, 2000],
  ]);
  // A 1.02 dividend on a previous close of 51: every earlier close times 1 - 1.02/51 = 0.98.
  expect(rows.map((r) => r.adj_close)).toEqual([49, 49.98, 49.98, 50]);
  expect(
    parsePriceFileDividends(csv, "X.csv", { ticker: "X" }).rows.map((d) => [d.ex_date, d.amount]),
  ).toEqual([["2024-01-05", 1.02]]);
});

test("Yahoo's split-adjusted chart is put back as traded; Alpha Vantage's days are read as they are", () => {
  const day = (d: string) => Date.parse(`${d}T14:30:00Z`) / 1000;
  const chart = JSON.stringify({
    chart: {
      result: [
        {
          meta: { gmtoffset: -18000 },
          timestamp: [day("2024-06-06"), day("2024-06-07"), day("2024-06-10"), day("2024-06-11")],
          indicators: {
            quote: [
              {
                open: [120, 121, 122, null],
                high: [121, 122, 123, null],
                low: [119, 120, 121, null],
                close: [120, 121, 122, null],
                volume: [10, 10, 10, null],
              },
            ],
          },
          events: {
            splits: { [day("2024-06-10")]: { date: day("2024-06-10"), numerator: 10, denominator: 1 } },
            dividends: { [day("2024-06-07")]: { date: day("2024-06-07"), amount: 0.01 } },
          },
        },
      ],
    },
  });
  const history = parseChart(chart, "NVDA", null);
  expect(history.bars.map((b) => [b.date, b.close, b.volume])).toEqual([
    ["2024-06-06", 1200, 1],
    ["2024-06-07", 1210, 1],
    ["2024-06-10", 122, 10],
  ]);
  expect(history.dividends).toEqual([{ exDate: "2024-06-07", amount: 0.1 }]);
  expect(history.splits).toEqual([{ date: "2024-06-10", ratio: 10 }]);

  const av = JSON.stringify({
    "Meta Data": { "2. Symbol": "X" },
    "Time Series (Daily)": {
      "2024-01-03": {
        "1. open": "10",
        "2. high": "11",
        "3. low": "9",
        "4. close": "10.5",
        "5. adjusted close": "10.5",
        "6. volume": "7",
        "7. dividend amount": "0.2000",
        "8. split coefficient": "1.0",
      },
      "2024-01-02": {
        "1. open": "20",
        "2. high": "21",
        "3. low": "19",
        "4. close": "20",
        "5. adjusted close": "9",
        "6. volume": "5",
        "7. dividend amount": "0.0000",
        "8. split coefficient": "1.0",
      },
    },
  });
  expect(parseDailyAdjusted(av, "X", "2024-01-03")).toEqual({
    bars: [{ date: "2024-01-03", open: 10, high: 11, low: 9, close: 10.5, volume: 7 }],
    dividends: [{ exDate: "2024-01-03", amount: 0.2 }],
    splits: [],
  });
  expect(() => parseDailyAdjusted('{"Meta Data":{}}', "X", null)).toThrow('no "Time Series (Daily)"');
});

test("the SEC's answers: throttles pause, an undeclared tool stops, anything else is the caller's", () => {
  const classify = classifySec(600_000);
  expect(classify(429, "")).toEqual({ kind: "throttled", pauseMs: 600_000, reason: "429 Too Many Requests" });
  expect(classify(403, "<title>SEC.gov | Request Rate Threshold Exceeded</title>").kind).toBe("throttled");
  expect(classify(403, "Your Request Originates from an Undeclared Automated Tool").kind).toBe("fatal");
  expect(classify(403, "<Error><Code>NoSuchKey</Code></Error>").kind).toBe("ok");
  expect(classify(200, "{}").kind).toBe("ok");
});

test("a body the importer would refuse never passes: HTML, cut JSON, a wrong shape, an empty body", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const refused = (kind: Parameters<typeof verifyBody>[1], text: string) =>
    expect(() => verifyBody("edgar/submissions/CIK0000320193.json", kind, bytes(text))).toThrow(BadBodyError);
  refused("submissions", "<html><body>blocked</body></html>");
  refused("submissions", '{"cik":"320193","filings":{"recent":');
  refused("companyfacts", '{"cik":320193}');
  refused("tickers-exchange", '{"fields":["cik"],"data":[]}');
  refused("ownership-xml", "<html/>");
  refused("price-csv", "");
  expect(() =>
    verifyBody(
      "edgar/companyfacts/CIK0000320193.json",
      "companyfacts",
      bytes('{"cik":320193,"entityName":"A","facts":{}}'),
    ),
  ).not.toThrow();
});

test("the limiter keeps every second at or under the rate, measured where the requests arrive", async () => {
  const replay = new ReplayServer({ root: "/nonexistent" });
  try {
    const source = new HttpSource({
      name: "t",
      limiter: new Limiter(5),
      headers: {},
      timeoutMs: 2000,
      classify: () => ({ kind: "ok" }),
      log: createLogger("silent"),
    });
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        source.get(`${replay.url}/x${i}`, { maxBytes: 1000, accept: [404] }),
      ),
    );
    expect(replay.requests.length).toBe(12);
    expect(peakRate(replay.requests)).toBeLessThanOrEqual(5);
    // 12 starts at 5 a second take at least 11 intervals of 200 ms (210 with the margin).
    expect(performance.now() - started).toBeGreaterThanOrEqual(2200);
  } finally {
    replay.stop();
  }
});

test("a range answer from a server that ignores If-Range is not spliced onto the old file's head", async () => {
  const dir = mkdtempSync(join(tmpdir(), "stockd-splice-"));
  const path = join(dir, "part.zip");
  const changed = Buffer.alloc(100, "n");
  // A run cut off after 40 bytes of the file whose ETag was "A"; the server's file is now "B".
  writeFileSync(path, Buffer.alloc(40, "o"));
  const asked: (string | null)[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const range = request.headers.get("range");
      asked.push(range);
      const from = Number(/^bytes=(\d+)-$/.exec(range ?? "")?.[1] ?? Number.NaN);
      if (!Number.isFinite(from)) return new Response(changed, { headers: { etag: '"B"' } });
      return new Response(changed.subarray(from), {
        status: 206,
        headers: { etag: '"B"', "content-range": `bytes ${from}-99/100` },
      });
    },
  });
  try {
    const began: (string | null)[] = [];
    const source = new HttpSource({
      name: "t",
      limiter: new Limiter(100),
      headers: {},
      timeoutMs: 2000,
      backoffMs: 1,
      classify: () => ({ kind: "ok" }),
      log: createLogger("silent"),
    });
    const got = await source.get(`http://127.0.0.1:${server.port}/x.zip`, {
      maxBytes: 1000,
      toFile: { path, validator: '"A"', began: (v) => began.push(v) },
    });
    expect(readFileSync(path).equals(changed)).toBe(true);
    expect(got.bytes).toBe(100);
    expect(asked).toEqual(["bytes=40-", null]);
    expect(began).toEqual([null, '"B"']);
  } finally {
    server.stop(true);
    rmSync(dir, { recursive: true, force: true });
  }
});
