/**
 * /stocks/{symbol}/dividend, /earnings, /estimates and /calendar/earnings over the real
 * fixtures (STOCKD_FIXTURES). Expected values come from the raw files: dividends/<T>.csv,
 * prices/<T>.csv, calendar/nasdaq-earnings_*.json, edgar/submissions/CIK*.json,
 * edgar/companyfacts/CIK*.json and estimates/alphavantage_earnings_<T>.json.
 */

import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { addDays, daysBetween } from "../../src/domain/dates.ts";
import type { CalendarRow } from "../../src/snapshot/documents.ts";
import { FIXTURES } from "../helpers/env.ts";
import {
  type CsvPrice,
  cikOf,
  type FilingColumns,
  filingRows,
  type Json,
  nasdaqMoney,
  type RawFiling,
  readDividendCsv,
  readJson,
  readNasdaqCalendar,
  readPriceCsv,
  type Submissions,
} from "../helpers/raw-sources.ts";
import { chargedBy, expectProblem } from "../helpers/responses.ts";
import { serverOverImport } from "../helpers/server.ts";
import { rawFactsOf, relDiff, trailingYields } from "./derived-facts.ts";

const root = FIXTURES ?? "";

function expectRel(actual: unknown, expected: number, label: string, tolerance = 1e-12): void {
  expect(typeof actual, label).toBe("number");
  const diff = relDiff(actual as number, expected);
  if (diff > tolerance) throw new Error(`${label}: ${actual} vs expected ${expected} (rel ${diff})`);
}

/** Every filing of a filer: the submissions file's recent block and its paged files. */
function filingsOf(ticker: string): RawFiling[] {
  const dir = join(root, "edgar", "submissions");
  const main = readJson<Submissions>(join(dir, `CIK${cikOf(root, ticker)}.json`));
  const paged = main.filings.files
    .map((f) => join(dir, f.name))
    .filter((p) => existsSync(p))
    .flatMap((p) => filingRows(readJson<FilingColumns>(p)));
  return [...filingRows(main.filings.recent), ...paged];
}

/** Distinct 10-Q/10-K filing dates (amendments excluded), newest first. */
function reportDates(ticker: string): string[] {
  const dates = filingsOf(ticker)
    .filter((f) => f.form === "10-Q" || f.form === "10-K")
    .map((f) => f.filingDate);
  return [...new Set(dates)].sort().reverse();
}

/**
 * Earnings release dates, newest first: for each 10-Q/10-K, the latest 8-K with item 2.02
 * (results of operations) filed up to 45 days before it, else the report's own date; an 8-K
 * within three days after another is its follow-up, not a release.
 */
function releaseDates(ticker: string): string[] {
  const all = filingsOf(ticker)
    .filter((f) => f.form === "8-K" && f.items.split(",").includes("2.02"))
    .map((f) => f.filingDate)
    .sort();
  const results = all.filter((d, i) => i === 0 || daysBetween(all[i - 1] as string, d) > 3);
  const release = (report: string) =>
    results
      .filter((r) => r <= report && daysBetween(r, report) <= 45)
      .sort()
      .at(-1) ?? report;
  return [...new Set(reportDates(ticker).map(release))].sort().reverse();
}

interface AvQuarter {
  fiscalDateEnding: string;
  reportedDate: string;
  reportedEPS: string;
  estimatedEPS: string;
}

/** The quarterly entries of estimates/alphavantage_earnings_<T>.json, as written. */
function avQuarters(ticker: string): AvQuarter[] {
  const file = join(root, "estimates", `alphavantage_earnings_${ticker}.json`);
  return (JSON.parse(readFileSync(file, "utf8")) as { quarterlyEarnings: AvQuarter[] }).quarterlyEarnings;
}

describe.skipIf(!FIXTURES)("dividends, earnings, estimates, calendar on real data (STOCKD_FIXTURES)", () => {
  const fixtures = serverOverImport(root);
  const get = <T = Json>(path: string) => fixtures.get<T>(path);

  type Dividend = { symbol: string; metadata: Json; dividend: Record<string, number | string | null> };

  for (const [ticker, frequency, perYear] of [
    ["KO", "quarterly", 4],
    ["O", "monthly", 12],
  ] as const) {
    test(`${ticker} dividend: TTM, yields, next payment and frequency from dividends/${ticker}.csv`, async () => {
      const rows = readDividendCsv(join(root, "dividends", `${ticker}.csv`)).sort((a, b) =>
        a.date.localeCompare(b.date),
      );
      const prices = readPriceCsv(join(root, "prices", `${ticker}.csv`));
      const last = prices.at(-1) as CsvPrice;
      const body = await get<Dividend>(`/stocks/${ticker}/dividend`);
      expect(body.symbol).toBe(ticker);
      expect(body.metadata.as_of_date).toBe(last.date);
      const d = body.dividend;
      // dps_ttm: amounts with ex-date in (last price date − 365 days, last price date].
      const from = addDays(last.date, -365);
      const ttm = rows.filter((r) => r.date > from && r.date <= last.date).reduce((s, r) => s + r.amount, 0);
      expect(ttm).toBeGreaterThan(0);
      expectRel(d.dps_ttm, ttm, `${ticker} dps_ttm`);
      // A sum of amounts with at most ten decimals has at most ten: O's is 3.072, not
      // 3.0720000000000005.
      expect(d.dps_ttm, `${ticker} dps_ttm`).toBe(Number(ttm.toFixed(10)));
      expectRel(d.dividend_yield_ttm, ttm / last.close, `${ticker} dividend_yield_ttm`);
      expect(d.dividend_frequency).toBe(frequency);
      // The frequency from the file: the median gap of the last six distinct ex-dates.
      const recent = [...new Set(rows.map((r) => r.date))].slice(-6);
      const gaps = recent
        .slice(1)
        .map((date, i) => daysBetween(recent[i] as string, date))
        .sort((a, b) => a - b);
      const median = gaps[2] as number; // five gaps: the middle one
      expect(median).toBeGreaterThanOrEqual(frequency === "monthly" ? 20 : 60);
      expect(median).toBeLessThanOrEqual(frequency === "monthly" ? 45 : 120);
      // Next: the first row after the as-of date (the file lists announced ex-dates).
      const next = rows.find((r) => r.date > last.date) as { date: string; amount: number };
      // Forward: the latest declared payment (here the announced one) × payments per year.
      expectRel(d.dps_forward_12m, next.amount * perYear, `${ticker} dps_forward_12m`);
      expectRel(d.dividend_yield_forward, (next.amount * perYear) / last.close, `${ticker} yield_forward`);
      expect(d.ex_dividend_date_next).toBe(next.date);
      expect(d.payment_amount_next).toBe(next.amount);
      expect(d.dps_next_payment).toBe(next.amount);
      expect(d.payment_date_next).toBeNull(); // the file has no pay-date column
      // 5-year trailing-yield range over month ends whose trailing year starts after the first ex-date.
      const yields = trailingYields(prices, rows, last.date);
      expectRel(d.dividend_yield_history_high, Math.max(...yields), `${ticker} yield high`, 1e-9);
      expectRel(d.dividend_yield_history_low, Math.min(...yields), `${ticker} yield low`, 1e-9);
    });
  }

  test("IBM dividend without a price file: dated by the snapshot's last price date, amounts from dividends/IBM.csv, no yields", async () => {
    expect(existsSync(join(root, "prices", "IBM.csv"))).toBe(false);
    const rows = readDividendCsv(join(root, "dividends", "IBM.csv")).sort((a, b) =>
      a.date.localeCompare(b.date),
    );
    // The snapshot's data date: the latest last row of any price file.
    const body = await get<Dividend>("/stocks/IBM/dividend");
    const asOf = body.metadata.as_of_date as string;
    expect(asOf).toBe(readPriceCsv(join(root, "prices", "KO.csv")).at(-1)?.date as string);
    const d = body.dividend;
    const from = addDays(asOf, -365);
    const ttm = rows.filter((r) => r.date > from && r.date <= asOf).reduce((s, r) => s + r.amount, 0);
    expect(ttm).toBeGreaterThan(0);
    expectRel(d.dps_ttm, ttm, "IBM dps_ttm");
    expect(d.dividend_frequency).toBe("quarterly");
    for (const field of ["dividend_yield_ttm", "dividend_yield_forward", "dividend_yield_history_high"])
      expect(d[field], field).toBeNull();
  });

  test("a known symbol without data of a kind is a free 404 (AAPL dividend, KO valuation, KO filings)", async () => {
    const { key: own, userId } = fixtures.server.newKey(5);
    // No dividends/AAPL.csv; no companyfacts for KO (no statements, so no valuation or
    // metrics); no submissions file for KO (edgar/submissions/CIK0000021344.json).
    expect(existsSync(join(root, "edgar", "submissions", "CIK0000021344.json"))).toBe(false);
    for (const path of [
      "/stocks/AAPL/dividend",
      "/securities/KO/valuation",
      "/stocks/KO/fundamental-metrics",
      "/stocks/MSFT/growth",
      "/stocks/KO/secfiling",
    ]) {
      const res = await fixtures.server.get(path, own);
      await expectProblem(res, 404, { code: "not_found" });
      expect(chargedBy(res), path).toBe(0);
    }
    expect(fixtures.server.accounts.getBalance(userId)).toBe(5);
  });

  type Earnings = { symbol: string; metadata: Json; earnings: Record<string, number | string | null> };

  for (const ticker of ["AAPL", "TSLA"]) {
    test(`${ticker} earnings: release dates from the submissions' results 8-Ks, latest-quarter EPS from the facts`, async () => {
      const dates = releaseDates(ticker);
      const reports = reportDates(ticker);
      // Apple announced on 2026-01-29 (8-K item 2.02) and filed its 10-Q on 2026-01-30;
      // Tesla on 2026-01-28, before its 10-K of 2026-01-29. Tesla's deliveries 8-Ks, under
      // the same item two days after each quarter (2026-01-02), release no earnings.
      expect((dates[0] as string) < (reports[0] as string)).toBe(true);
      if (ticker === "TSLA") expect(dates.slice(0, 2)).toEqual(["2026-01-28", "2025-10-22"]);
      const raw = rawFactsOf(root, ticker);
      const body = await get<Earnings>(`/stocks/${ticker}/earnings`);
      expect(body.symbol).toBe(ticker);
      const e = body.earnings;
      expect(e.latest_earnings_release_date).toBe(dates[0] as string);
      expect(e.past_earnings_date).toBe(dates[1] as string);
      // "Now" is the later of the last price (2024-03-08) and the latest report.
      expect(body.metadata.as_of_date).toBe(reports[0] as string);
      // No calendar row for these tickers in calendar/*.json: nothing upcoming, no estimates.
      expect(readNasdaqCalendar(root).some((r) => r.symbol === ticker)).toBe(false);
      expect(e.next_earnings_date).toBeNull();
      expect(e.eps_estimate_latest_q).toBeNull();
      expect(e.eps_surprise_latest_q).toBeNull();
      // Latest quarter: the latest end of a NetIncomeLoss duration fact; its EPS is the
      // three-month us-gaap:EarningsPerShareDiluted fact (null for a Q4 without one).
      const quarterEnd = raw.latestPeriodEnd("NetIncomeLoss") as string;
      const eps = raw
        .all("EarningsPerShareDiluted", "USD/shares")
        .filter((f) => f.end === quarterEnd && f.start && daysBetween(f.start, f.end) < 100)
        .sort((a, b) => a.filed.localeCompare(b.filed))
        .at(-1);
      // Served only if that quarter ended at most 226 days before the latest release: AAPL's
      // did; TSLA's companyfacts end with 2022-09-30, years before its latest 10-K (2026).
      const fresh = daysBetween(quarterEnd, dates[0] as string) <= 226;
      expect(fresh).toBe(ticker === "AAPL");
      expect(e.eps_latest_q_period_end).toBe(fresh ? quarterEnd : null);
      expect(e.eps_latest_q).toBe(fresh ? (eps?.val ?? null) : null);
    });
  }

  test("NVDA earnings: the latest release is not older than the filing of eps_latest_q's quarter", async () => {
    const raw = rawFactsOf(root, "NVDA");
    const body = await get<Earnings>("/stocks/NVDA/earnings");
    const end = body.earnings.eps_latest_q_period_end as string;
    const filed = raw.firstFiled("EarningsPerShareDiluted", end, "USD/shares") as string;
    expect((body.earnings.latest_earnings_release_date as string) >= filed).toBe(true);
  });

  test("HD earnings: no SEC files, so release dates and the latest quarter come from its Alpha Vantage history", async () => {
    const quarters = avQuarters("HD");
    const [latest, before] = [...quarters].sort((a, b) => b.reportedDate.localeCompare(a.reportedDate));
    // 2023-07-31 reported on 2023-08-15: 4.65 against an estimate of 4.45.
    expect(latest).toMatchObject({ fiscalDateEnding: "2023-07-31", reportedDate: "2023-08-15" });
    const body = await get<Earnings>("/stocks/HD/earnings");
    const e = body.earnings;
    expect(e.latest_earnings_release_date).toBe(latest?.reportedDate as string);
    expect(e.past_earnings_date).toBe(before?.reportedDate as string);
    expect(e.eps_latest_q_period_end).toBe(latest?.fiscalDateEnding as string);
    expect(e.eps_latest_q).toBe(Number(latest?.reportedEPS));
    expect(e.eps_estimate_latest_q).toBe(Number(latest?.estimatedEPS));
    expectRel(
      e.eps_surprise_latest_q,
      Number(latest?.reportedEPS) - Number(latest?.estimatedEPS),
      "HD surprise",
      1e-9,
    );
  });

  test("RIO earnings: a semi-annual reporter's quarters without an EPS are no releases", async () => {
    const quarters = avQuarters("RIO");
    // The newest entries (2023-09-30, reported 2023-10-16, and others) have reportedEPS "0"
    // and estimatedEPS "0": placeholders for quarters Rio Tinto publishes no EPS for.
    const placeholder = (q: AvQuarter) => q.reportedEPS === "0" && q.estimatedEPS === "0";
    expect(placeholder(quarters[0] as AvQuarter)).toBe(true);
    const [latest, before] = quarters
      .filter((q) => !placeholder(q))
      .sort((a, b) => b.reportedDate.localeCompare(a.reportedDate));
    // 2023-06-30, reported 2023-07-26: 2.75.
    expect(latest).toMatchObject({ fiscalDateEnding: "2023-06-30", reportedDate: "2023-07-26" });
    const e = (await get<Earnings>("/stocks/RIO/earnings")).earnings;
    expect(e.latest_earnings_release_date).toBe(latest?.reportedDate as string);
    expect(e.past_earnings_date).toBe(before?.reportedDate as string);
    expect(e.eps_latest_q_period_end).toBe(latest?.fiscalDateEnding as string);
    expect(e.eps_latest_q).toBe(Number(latest?.reportedEPS));
  });

  test("STZ earnings: the next earnings date and estimate from calendar/nasdaq-earnings_2024-07-03.json", async () => {
    const row = readNasdaqCalendar(root).find((r) => r.symbol === "STZ");
    const body = await get<Earnings>("/stocks/STZ/earnings");
    expect(body.earnings.next_earnings_date).toBe(row?.day as string);
    expect(body.earnings.eps_estimate_next_q).toBe(nasdaqMoney(row?.epsForecast ?? "") as number);
  });

  test("MSFT estimates: the Alpha Vantage history has no unreported quarter, so there is nothing to serve", async () => {
    // estimates/alphavantage_earnings_MSFT.json: every quarterly entry has a reportedEPS, so
    // no next-quarter estimate exists (src/ingest/rules/earnings.ts: next-quarter growth
    // comes from the first quarter with an estimate and no reported EPS); there is no
    // estimate-signals CSV either: 404, free.
    const file = readJson<{ quarterlyEarnings: { reportedEPS: string; estimatedEPS: string }[] }>(
      join(root, "estimates", "alphavantage_earnings_MSFT.json"),
    );
    expect(file.quarterlyEarnings.length).toBeGreaterThan(0);
    expect(
      file.quarterlyEarnings.filter((q) => q.reportedEPS === "None" && q.estimatedEPS !== "None"),
    ).toEqual([]);
    const { key: own, userId } = fixtures.server.newKey(3);
    const res = await fixtures.server.get("/stocks/MSFT/estimates", own);
    await expectProblem(res, 404, { code: "not_found" });
    expect(fixtures.server.accounts.getBalance(userId)).toBe(3);
  });

  const MONTHS: Record<string, string> = {
    Jan: "01",
    Feb: "02",
    Mar: "03",
    Apr: "04",
    May: "05",
    Jun: "06",
    Jul: "07",
    Aug: "08",
    Sep: "09",
    Oct: "10",
    Nov: "11",
    Dec: "12",
  };

  /** A raw Nasdaq row as the service documents it (src/ingest/sources/calendar.ts). */
  function expectedRow(
    r: ReturnType<typeof readNasdaqCalendar>[number],
  ): Omit<CalendarRow, "cik" | "currency"> {
    const [mon, year] = r.fiscalQuarterEnding.split("/");
    return {
      ticker: r.symbol,
      earning_date: r.day,
      // "time-pre-market" → "pre-market", "time-after-hours" → "after-hours", ...
      earning_time: r.time.replace(/^time-/, "") as CalendarRow["earning_time"],
      eps_forecast: nasdaqMoney(r.epsForecast),
      eps_actual: null,
      eps_surprise: null,
      no_of_estimates: r.noOfEsts === "N/A" || r.noOfEsts === "" ? null : Number(r.noOfEsts),
      fiscal_quarter_ending: `${year}-${MONTHS[mon as string]}`,
    };
  }

  test("calendar: all rows of calendar/*.json from an early start, sorted by date then ticker", async () => {
    const raw = readNasdaqCalendar(root);
    const body = await get<CalendarRow[]>("/calendar/earnings?start=1900-01-01");
    expect(body.length).toBe(raw.length);
    const sorted = [...raw].sort((a, b) => a.day.localeCompare(b.day) || a.symbol.localeCompare(b.symbol));
    expect(body.map(({ cik: _, currency: __, ...rest }) => rest)).toEqual(sorted.map(expectedRow));
    for (const row of body) expect(row.cik, row.ticker).toBe(cikOf(root, row.ticker));
  });

  test("calendar: ?ticker= returns exactly that ticker's raw rows; ?cik= and both combine", async () => {
    const raw = readNasdaqCalendar(root);
    for (const ticker of ["STZ", "DDD", "SPWR"]) {
      const expected = raw.filter((r) => r.symbol === ticker).map(expectedRow);
      expect(expected.length, ticker).toBeGreaterThan(0);
      const cik = cikOf(root, ticker);
      const byTicker = await get<CalendarRow[]>(`/calendar/earnings?ticker=${ticker.toLowerCase()}`);
      expect(byTicker.map(({ cik: _, currency: __, ...r }) => r)).toEqual(expected);
      // The CIK with or without leading zeros.
      expect(await get<CalendarRow[]>(`/calendar/earnings?cik=${cik}`)).toEqual(byTicker);
      expect(await get<CalendarRow[]>(`/calendar/earnings?cik=${Number(cik)}`)).toEqual(byTicker);
      expect(await get<CalendarRow[]>(`/calendar/earnings?ticker=${ticker}&cik=${cik}`)).toEqual(byTicker);
    }
    // Filters combine with AND: STZ's ticker with DDD's CIK matches nothing.
    expect(await get<CalendarRow[]>(`/calendar/earnings?ticker=STZ&cik=${cikOf(root, "DDD")}`)).toEqual([]);
    // A date window: the 2024-07-02 file only.
    const day = await get<CalendarRow[]>("/calendar/earnings?start=2024-07-02&end=2024-07-02");
    expect(day.map((r) => r.ticker).sort()).toEqual(
      raw
        .filter((r) => r.day === "2024-07-02")
        .map((r) => r.symbol)
        .sort(),
    );
  });

  test("calendar: a malformed cik is a free 400; a 200 costs 1 credit", async () => {
    const { key: own, userId } = fixtures.server.newKey(5);
    for (const cik of ["abc", "12345678901", "-1"]) {
      const res = await fixtures.server.get(`/calendar/earnings?cik=${cik}`, own);
      await expectProblem(res, 400, { code: "invalid_parameter", name: "cik", in: "query" });
      expect(chargedBy(res)).toBe(0);
    }
    const ok = await fixtures.server.get("/calendar/earnings?ticker=STZ", own);
    expect(ok.status).toBe(200);
    expect(chargedBy(ok)).toBe(1);
    expect(fixtures.server.accounts.getBalance(userId)).toBe(4);
  });
});
