/**
 * What the API serves, held field by field against an independent reading of each filer's
 * raw companyfacts (test/helpers/filer-reference.ts): every filer of both fixture roots, the
 * main tree's and more-filers/ (June and 52/53-week years, splits from 2014 to 2024,
 * ProfitLoss ≠ NetIncomeLoss, two share classes, TWD statements). docs/methodology.md
 * ("Agreement with the filings") lists the counts this test checks.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { FIXTURES } from "../helpers/env.ts";
import {
  agrees,
  FilerReference,
  HEADLINE_CONCEPTS,
  type Headline,
  type Split,
} from "../helpers/filer-reference.ts";
import { readCompanyFacts } from "../helpers/raw-companyfacts.ts";
import { importedDataDir, startTestServer, type TestServer } from "../helpers/server.ts";

interface Filer {
  ticker: string;
  cik: string;
  /** Splits since the filer's first XBRL facts, from its announcements (dates effective). */
  splits?: Split[];
}

const MAIN: Filer[] = [
  {
    ticker: "AAPL",
    cik: "0000320193",
    splits: [
      { date: "2014-06-09", ratio: 7 },
      { date: "2020-08-31", ratio: 4 },
    ],
  },
  {
    ticker: "NVDA",
    cik: "0001045810",
    splits: [
      { date: "2021-07-20", ratio: 4 },
      { date: "2024-06-10", ratio: 10 },
    ],
  },
  {
    ticker: "TSLA",
    cik: "0001318605",
    splits: [
      { date: "2020-08-31", ratio: 5 },
      { date: "2022-08-25", ratio: 3 },
    ],
  },
  { ticker: "GOOGL", cik: "0001652044", splits: [{ date: "2022-07-18", ratio: 20 }] },
  { ticker: "MRVL", cik: "0001835632" },
  { ticker: "SNOW", cik: "0001640147" },
  { ticker: "TSM", cik: "0001046179" },
  { ticker: "LPA", cik: "0001997711" },
];

const MORE: Filer[] = [
  { ticker: "MSFT", cik: "0000789019" },
  { ticker: "NFLX", cik: "0001065280", splits: [{ date: "2015-07-15", ratio: 7 }] },
  {
    ticker: "APH",
    cik: "0000820313",
    splits: [
      { date: "2014-10-13", ratio: 2 },
      { date: "2021-03-05", ratio: 2 },
      { date: "2024-06-12", ratio: 2 },
    ],
  },
  { ticker: "AMD", cik: "0000002488" },
  { ticker: "KMB", cik: "0000055785" },
  { ticker: "PEP", cik: "0000077476" },
  { ticker: "WM", cik: "0000823768" },
  { ticker: "GME", cik: "0001326380" },
  { ticker: "NET", cik: "0001477333" },
];

const STATEMENT: Record<Headline, [path: string, kind: string, field: string, sign: 1 | -1]> = {
  revenue: ["income-statement", "income_statement", "revenue", 1],
  gross_profit: ["income-statement", "income_statement", "gross_profit", 1],
  operating_income: ["income-statement", "income_statement", "operating_income", 1],
  net_income: ["income-statement", "income_statement", "net_income", 1],
  diluted_eps: ["income-statement", "income_statement", "diluted_eps", 1],
  diluted_average_shares: ["income-statement", "income_statement", "diluted_average_shares", 1],
  cash_flow_from_operations: ["cash-flow-statement", "cash_flow_statement", "cash_flow_from_operations", 1],
  capital_expenditure: ["cash-flow-statement", "cash_flow_statement", "cash_flow_capital_expenditure", -1],
  total_assets: ["balance-sheet", "balance_sheet", "total_assets", 1],
  total_liabilities: ["balance-sheet", "balance_sheet", "total_liabilities", 1],
  total_stockholders_equity: ["balance-sheet", "balance_sheet", "total_stockholders_equity", 1],
  cash_and_cash_equivalents: ["balance-sheet", "balance_sheet", "cash_and_cash_equivalents", 1],
};

interface Period {
  period_type: string;
  snapshot_date: string;
  period_start: string | null;
  currency: string | null;
  [kind: string]: unknown;
}

type PeriodType = "annual" | "quarterly" | "ttm";

/** Agreement of one filer: values compared and the ones that differ, by period type. */
interface Tally {
  compared: Record<PeriodType, number>;
  differ: string[];
}

async function tallyOf(server: TestServer, key: string, root: string, filer: Filer): Promise<Tally> {
  const raw = readCompanyFacts(root, filer.cik);
  const tally: Tally = { compared: { annual: 0, quarterly: 0, ttm: 0 }, differ: [] };
  const cache = new Map<string, Period[]>();
  const periods = async (path: string, type: PeriodType): Promise<Period[]> => {
    const url = `/stocks/${filer.ticker}/${path}?period_type=${type}&limit=100`;
    let rows = cache.get(url);
    if (rows === undefined) {
      const res = await server.get(url, key);
      expect(res.status, url).toBe(200);
      rows = ((await res.json()) as { periods: Period[] }).periods;
      cache.set(url, rows);
    }
    return rows;
  };
  const currency = (await periods("income-statement", "annual"))[0]?.currency ?? "USD";
  const reference = new FilerReference(raw, currency, filer.splits ?? []);
  for (const headline of Object.keys(HEADLINE_CONCEPTS) as Headline[]) {
    const [path, kind, field, sign] = STATEMENT[headline];
    const quarters = await periods(path, "quarterly");
    for (const type of ["annual", "quarterly", "ttm"] as const) {
      for (const row of await periods(path, type)) {
        const start = row.period_start ?? row.snapshot_date;
        let expected: number | null = null;
        if (type === "annual") expected = reference.annual(headline, row.snapshot_date)?.value ?? null;
        else if (type === "quarterly")
          expected = reference.quarter(headline, start, row.snapshot_date)?.value ?? null;
        else expected = trailing(reference, headline, quarters, row);
        if (expected === null) continue;
        const served = (row[kind] as Record<string, number | null>)[field] ?? null;
        tally.compared[type]++;
        if (served === null || !agrees(served, sign * expected))
          tally.differ.push(
            `${type} ${row.snapshot_date} ${field}: served ${served}, filings ${sign * expected}`,
          );
      }
    }
  }
  return tally;
}

/**
 * A TTM flow: the reference's four quarters ending with the TTM's (the quarters' dates from
 * the served quarterly periods); a balance: the reference's at the TTM end. Per-share amounts
 * and share counts of a TTM are computed, not reported: not compared.
 */
function trailing(
  reference: FilerReference,
  headline: Headline,
  quarters: readonly Period[],
  ttm: Period,
): number | null {
  if (headline === "diluted_eps" || headline === "diluted_average_shares") return null;
  if (
    ["total_assets", "total_liabilities", "total_stockholders_equity", "cash_and_cash_equivalents"].includes(
      headline,
    )
  )
    return reference.quarter(headline, ttm.snapshot_date, ttm.snapshot_date)?.value ?? null;
  const window = quarters.filter(
    (q) => q.snapshot_date <= ttm.snapshot_date && q.snapshot_date > (ttm.period_start ?? ""),
  );
  if (window.length !== 4) return null;
  let total = 0;
  for (const q of window) {
    const value = reference.quarter(headline, q.period_start ?? q.snapshot_date, q.snapshot_date)?.value;
    if (value === undefined) return null;
    total += value;
  }
  return total;
}

for (const [name, filers, subdir] of [
  ["main fixture tree", MAIN, ""],
  ["more-filers", MORE, "more-filers"],
] as const) {
  describe.skipIf(!FIXTURES)(`served statements agree with the filings: ${name}`, () => {
    const root = join(FIXTURES ?? "", subdir);
    let server: TestServer;
    let key: string;
    beforeAll(async () => {
      server = await startTestServer(await importedDataDir(root));
      key = server.newKey(1_000_000).key;
    });
    afterAll(() => server?.stop());

    for (const filer of filers) {
      test(`${filer.ticker}: revenue, gross profit, operating and net income, diluted EPS and shares, CFO, capex, assets, liabilities, equity and cash, annual, quarterly and TTM`, async () => {
        const tally = await tallyOf(server, key, root, filer);
        console.log(
          `agreement ${filer.ticker}: annual ${tally.compared.annual}, quarterly ${tally.compared.quarterly}, ttm ${tally.compared.ttm}, differ ${tally.differ.length}`,
        );
        expect(tally.differ).toEqual([]);
        expect(tally.compared.annual, "annual values compared").toBeGreaterThan(0);
      });
    }
  });
}
