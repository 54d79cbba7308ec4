/**
 * Shape, order, parameters, errors and billing of the statement endpoints; the field lists are
 * checked against src/domain/statements.ts and the spec's §2.18 (statements-facts.ts).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { STATEMENT_FIELDS } from "../../src/domain/statements.ts";
import { FIXTURES } from "../helpers/env.ts";
import { chargedBy, expectProblem } from "../helpers/responses.ts";
import {
  AAPL,
  CIK,
  KINDS,
  type Kind,
  PATH,
  type Period,
  raw,
  rawFile,
  specFields,
  statementsServer,
  TSM,
  TYPES,
  values,
} from "./statements-facts.ts";

describe.skipIf(!FIXTURES)("statements over the real fixtures (STOCKD_FIXTURES)", () => {
  const fixture = statementsServer();
  const { server, periods, periodAt } = fixture;
  let key = "";
  beforeAll(() => {
    key = fixture.key;
  });

  describe("shape, order, parameters, errors and billing", () => {
    test("the field lists of src/domain/statements.ts are the spec's §2.18 lists", () => {
      expect<string[]>([...STATEMENT_FIELDS.balance_sheet]).toEqual(specFields("balance_sheet"));
      expect<string[]>([...STATEMENT_FIELDS.cash_flow_statement]).toEqual(specFields("cash_flow_statement"));
      expect(specFields("balance_sheet")).toHaveLength(61);
      expect(specFields("cash_flow_statement")).toHaveLength(41);
    });

    test("every field is present in every period of every type (AAPL, NVDA, TSLA, TSM), numbers or null", async () => {
      const expected: Record<Kind, string[]> = {
        balance_sheet: specFields("balance_sheet"),
        cash_flow_statement: specFields("cash_flow_statement"),
        income_statement: [...STATEMENT_FIELDS.income_statement],
      };
      for (const symbol of ["AAPL", "NVDA", "TSLA", "TSM"]) {
        for (const kind of KINDS) {
          for (const type of TYPES) {
            const list = await periods(symbol, kind, type);
            // TSM files annual 20-Fs and half-year 6-Ks: no quarterly flows, hence no TTM.
            if (symbol !== "TSM" || type === "annual") {
              expect(list.length, `${symbol} ${kind} ${type}`).toBeGreaterThan(0);
            }
            for (const row of list) {
              const label = `${symbol} ${kind} ${type} ${row.snapshot_date}`;
              for (const top of ["period_type", "fiscal_year", "fiscal_quarter", "snapshot_date"]) {
                expect(Object.keys(row), label).toContain(top);
              }
              // Exactly one statement object, under the statement's name.
              expect(
                KINDS.filter((k) => k in row),
                label,
              ).toEqual([kind]);
              const statement = values(row, kind);
              expect(Object.keys(statement).sort(), label).toEqual([...expected[kind]].sort());
              for (const [field, value] of Object.entries(statement)) {
                if (value !== null) expect(Number.isFinite(value), `${label} ${field}`).toBe(true);
              }
            }
          }
        }
      }
    });

    test("fields with nothing to map are null: no source concept in the raw file", async () => {
      // Each field with the us-gaap concept that would fill it; none is in these raw files.
      const absent: [string, Kind, string, string[]][] = [
        ["AAPL", "balance_sheet", "preferred_stock", ["PreferredStockValue"]],
        ["NVDA", "balance_sheet", "preferred_stock", ["PreferredStockValue"]],
        ["AAPL", "balance_sheet", "minority_interest", ["MinorityInterest"]],
        ["AAPL", "balance_sheet", "current_deferred_taxes_liabilities", ["DeferredTaxLiabilitiesCurrent"]],
        ["TSLA", "balance_sheet", "current_deferred_taxes_liabilities", ["DeferredTaxLiabilitiesCurrent"]],
        [
          "TSLA",
          "cash_flow_statement",
          "net_issuance_of_preferred",
          ["ProceedsFromIssuanceOfPreferredStockAndPreferenceStock"],
        ],
      ];
      for (const [symbol, kind, field, concepts] of absent) {
        const cik = CIK[symbol] as string;
        for (const concept of concepts)
          expect(rawFile(cik).facts["us-gaap"]?.[concept], concept).toBeUndefined();
        for (const type of TYPES) {
          for (const row of await periods(symbol, kind, type)) {
            expect(values(row, kind)[field], `${symbol} ${type} ${row.snapshot_date} ${field}`).toBeNull();
          }
        }
      }
      // Funds from operations (a REIT measure) has no us-gaap concept at all.
      for (const symbol of ["AAPL", "NVDA", "TSLA"]) {
        for (const row of await periods(symbol, "cash_flow_statement", "annual")) {
          expect(values(row, "cash_flow_statement").ffo).toBeNull();
        }
      }
    });

    test("periods are newest first; limit defaults to 10 and takes the newest; period_type defaults to annual", async () => {
      for (const symbol of ["AAPL", "NVDA", "TSLA"]) {
        for (const kind of KINDS) {
          for (const type of TYPES) {
            const list = await periods(symbol, kind, type);
            const ends = list.map((p) => p.snapshot_date);
            for (let i = 1; i < ends.length; i++) {
              expect(
                (ends[i - 1] as string) > (ends[i] as string),
                `${symbol} ${kind} ${type} ${ends[i]}`,
              ).toBe(true);
            }
          }
          const all = await periods(symbol, kind, "annual");
          expect(all.length, `${symbol} ${kind}: more than 10 annual periods`).toBeGreaterThan(10);
          const res = await server.get(`/stocks/${symbol}/${PATH[kind]}`, key);
          expect(res.status).toBe(200);
          const body = (await res.json()) as { symbol: string; periods: Period[] };
          expect(body.symbol).toBe(symbol);
          expect(body.periods).toEqual(all.slice(0, 10));
          const three = await server.get(
            `/stocks/${symbol}/${PATH[kind]}?period_type=quarterly&limit=3`,
            key,
          );
          const quarterly = await periods(symbol, kind, "quarterly");
          expect(((await three.json()) as { periods: Period[] }).periods).toEqual(quarterly.slice(0, 3));
        }
      }
      // limit=100 is accepted and gives every quarter Apple reported (fewer than 100).
      const apple = await periods("AAPL", "income_statement", "quarterly");
      expect(apple.length).toBeGreaterThan(60);
      expect(apple.length).toBeLessThan(100);
    });

    test("timeframe is another name for period_type, both in any case; start and end select fiscal years", async () => {
      for (const kind of KINDS) {
        const base = `/stocks/AAPL/${PATH[kind]}`;
        const quarterly = await periods("AAPL", kind, "quarterly");
        const viaTimeframe = await server.get(`${base}?timeframe=quarterly&limit=100`, key);
        expect(((await viaTimeframe.json()) as { periods: Period[] }).periods).toEqual(quarterly);
        const both = await server.get(`${base}?timeframe=TTM&period_type=ttm&limit=100`, key);
        expect(((await both.json()) as { periods: Period[] }).periods).toEqual(
          await periods("AAPL", kind, "ttm"),
        );
        const capitalised = await server.get(`${base}?period_type=Quarterly&limit=100`, key);
        expect(((await capitalised.json()) as { periods: Period[] }).periods).toEqual(quarterly);
        const inYears = async (query: string) =>
          (
            (await (await server.get(`${base}?period_type=quarterly&limit=100&${query}`, key)).json()) as {
              periods: Period[];
            }
          ).periods;
        const years = (from: number, to: number) =>
          quarterly.filter((p) => p.fiscal_year >= from && p.fiscal_year <= to);
        // Bare years are fiscal years.
        expect(await inYears("start=2020&end=2022")).toEqual(years(2020, 2022));
        expect(years(2020, 2022).length).toBe(12);
        // Apple's fiscal years end in late September (FY2020 on 2020-09-26, FY2021 on 2021-09-25,
        // FY2022 on 2022-09-24): from 2020-12-31 the first year that ends on or after it is FY2021;
        // up to 2022-01-01 the last that ends on or before it is FY2021 too.
        expect(await inYears("start=2020-12-31&end=2022-01-01")).toEqual(years(2021, 2021));
        expect(await inYears("start=2020-09-26&end=2022-09-24")).toEqual(years(2020, 2022));
        expect(await inYears("start=2020-09-27&end=2022-09-23")).toEqual(years(2021, 2021));
        // A year and a date together.
        expect(await inYears("start=2021&end=2021-09-30")).toEqual(years(2021, 2021));
        const annual = await periods("AAPL", kind, "annual");
        const since = await server.get(`${base}?start=2019-01-01&limit=2`, key);
        expect(((await since.json()) as { periods: Period[] }).periods).toEqual(annual.slice(0, 2));
        const until = await server.get(`${base}?end=2015-06-30&limit=2`, key);
        const old = ((await until.json()) as { periods: Period[] }).periods;
        expect(old).toEqual(annual.filter((p) => p.fiscal_year <= 2014).slice(0, 2));
        expect(old[0]?.fiscal_year).toBe(2014);
        const none = await server.get(`${base}?start=1990-01-01&end=1991-12-31`, key);
        expect(none.status).toBe(200);
        expect(((await none.json()) as { periods: Period[] }).periods).toEqual([]);
      }
    });

    test("timeframe that differs from period_type, bad or reversed start and end: 400 naming the parameter, free", async () => {
      const { key: own, userId } = server.newKey(10);
      const base = "/stocks/AAPL/income-statement";
      const cases: [string, string][] = [
        ["?timeframe=quarterly&period_type=annual", "timeframe"],
        ["?timeframe=weekly", "timeframe"],
        ["?start=202", "start"],
        ["?start=2020-1", "start"],
        ["?period_type=annually", "period_type"],
        ["?start=2021-02-30", "start"],
        ["?end=20-01-01", "end"],
        ["?start=2022-01-01&end=2021-12-31", "start"],
        ["?start=2022&end=2021", "start"],
      ];
      for (const [query, name] of cases) {
        const res = await server.get(`${base}${query}`, own);
        await expectProblem(res, 400, { code: "invalid_parameter", name, in: "query" });
        expect(chargedBy(res)).toBe(0);
      }
      expect(server.accounts.getBalance(userId)).toBe(10);
    });

    test("AAPL FY2015 cash-flow D&A is the cash-flow line, not a note's figure filed the same day", async () => {
      const start = "2014-09-28";
      const end = "2015-09-26";
      // Both in the FY2017 10-K (filed 2017-11-03): the statement's line and a note's 9.2e9.
      const line = raw(AAPL, ["DepreciationAmortizationAndAccretionNet"], start, end);
      const note = raw(AAPL, ["DepreciationDepletionAndAmortization"], start, end);
      expect([line, note]).toEqual([11_257_000_000, 9_200_000_000]);
      const cash = (await periods("AAPL", "cash_flow_statement", "annual")).find(
        (p) => p.snapshot_date === end,
      );
      expect(cash && values(cash, "cash_flow_statement").cash_flow_depreciation_depletion_amortization).toBe(
        line,
      );
      // The four quarters of FY2015 sum to the same line.
      const quarters = (await periods("AAPL", "cash_flow_statement", "quarterly")).filter(
        (p) => p.fiscal_year === 2015,
      );
      expect(quarters).toHaveLength(4);
      const sum = quarters.reduce(
        (s, q) =>
          s + (values(q, "cash_flow_statement").cash_flow_depreciation_depletion_amortization as number),
        0,
      );
      expect(sum).toBe(line);
    });

    test("TSM: TWD from ifrs-full facts", async () => {
      // CIK0001046179.json ifrs-full:Revenue / ifrs-full:Assets, unit TWD, calendar year 2024.
      for (const kind of KINDS) {
        for (const type of TYPES) {
          for (const row of await periods("TSM", kind, type))
            expect(row.currency, `${kind} ${type}`).toBe("TWD");
        }
      }
      const income = await periodAt("TSM", "income_statement", "annual", "2024-12-31");
      expect(income.fiscal_year).toBe(2024);
      expect(values(income, "income_statement").revenue).toBe(
        raw(TSM, ["ifrs-full:Revenue"], "2024-01-01", "2024-12-31", "TWD"),
      );
      const balance = await periodAt("TSM", "balance_sheet", "annual", "2024-12-31");
      expect(values(balance, "balance_sheet").total_assets).toBe(
        raw(TSM, ["ifrs-full:Assets"], null, "2024-12-31", "TWD"),
      );
    });

    test("bad limit or period_type: 400 naming the parameter; MSFT (no companyfacts) and unknown symbols: 404; none is charged", async () => {
      const { key: own, userId } = server.newKey(100);
      for (const kind of KINDS) {
        const base = `/stocks/AAPL/${PATH[kind]}`;
        // Digits only: 1e1, 0x5, +5, " 5" and 1.0 would all read as numbers.
        for (const limit of [
          "101",
          "0",
          "-1",
          "1.5",
          "ten",
          "1e1",
          "0x5",
          "%2B5",
          "%205",
          "5%20",
          "1.0",
          "",
        ]) {
          const res = await server.get(`${base}?limit=${limit}`, own);
          await expectProblem(res, 400, { code: "invalid_parameter", name: "limit", in: "query" });
          expect(chargedBy(res)).toBe(0);
        }
        for (const type of ["weekly", "annuals", ""]) {
          const res = await server.get(`${base}?period_type=${type}`, own);
          await expectProblem(res, 400, { code: "invalid_parameter", name: "period_type", in: "query" });
          expect(chargedBy(res)).toBe(0);
        }
        // MSFT is a listed filer (edgar/submissions/CIK0000789019.json) without a companyfacts file.
        const msft = await server.get(`/stocks/MSFT/${PATH[kind]}`, own);
        await expectProblem(msft, 404, { code: "not_found" });
        expect(chargedBy(msft)).toBe(0);
        const unknown = await server.get(`/stocks/NOSUCHTICKER/${PATH[kind]}`, own);
        await expectProblem(unknown, 404, { code: "not_found" });
        expect(chargedBy(unknown)).toBe(0);
      }
      expect(server.accounts.getBalance(userId)).toBe(100);
      // A 200 costs exactly 1 credit per call.
      for (const kind of KINDS) {
        const res = await server.get(`/stocks/NVDA/${PATH[kind]}?limit=100`, own);
        expect(res.status).toBe(200);
        expect(chargedBy(res)).toBe(1);
      }
      expect(server.accounts.getBalance(userId)).toBe(97);
      const noKey = await server.get("/stocks/AAPL/balance-sheet", null);
      expect(noKey.status).toBe(401);
    });
  });
});
