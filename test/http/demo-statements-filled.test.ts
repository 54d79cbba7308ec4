/**
 * Issue 19, item 8: the demo shows what stockd does. Every demo company's balance sheet and
 * cash-flow statement fill every field a typical filer reports, the served statements add up
 * (totals = the sum of their parts, the cash flows explain the change in cash), capital
 * allocation has no field that is null for everyone, and the showcase ticker's earnings agree
 * with the calendar and have the latest quarter's EPS.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { demoCompanies } from "../../src/demo/universe.ts";
import { industryTemplate } from "../../src/domain/industry.ts";
import { demoDataDir, startTestServer, type TestServer } from "../helpers/server.ts";

type Values = Record<string, number | null>;
interface Period {
  period_type: string;
  snapshot_date: string;
  balance_sheet?: Values;
  cash_flow_statement?: Values;
}

/**
 * Fields a typical filer does not report, left null by the demo: notes receivable, other
 * current payables, current deferred taxes (no longer classified as current since 2017), the
 * IFRS-only other equity, noncontrolling interests (no demo company has one), impairments and
 * business sales (occasional), the direct method's receipts and payments, preferred issuance,
 * the exchange-rate effect on cash (every demo company is domestic). FFO is a REIT's only.
 */
const NOT_TYPICAL = new Set([
  "effect_of_exchange_rate_changes",
  "notes_receivable",
  "other_current_payables",
  "current_deferred_taxes_liabilities",
  "other_equity",
  "minority_interest",
  "asset_impairment_charge",
  "sale_of_business",
  "other_cash_receipts_from_operating_activities",
  "other_cash_payments_from_operating_activities",
  "net_issuance_of_preferred",
  "ffo",
]);

/** A financial company's balance sheet is unclassified: no current lines, inventory or working capital. */
const CLASSIFIED_ONLY = new Set([
  "marketable_securities",
  "cash_equivalents_marketable_securities",
  "accounts_receivable",
  "total_receivables",
  "other_current_receivables",
  "inventory",
  "raw_materials",
  "finished_goods",
  "other_inventories",
  "inventories_adjustments_allowances",
  "other_current_assets",
  "total_current_assets",
  "total_non_current_assets",
  "accounts_payable",
  "accounts_payable_accrued_expense",
  "bs_payables_and_accrued_expenses",
  "current_accrued_expenses",
  "other_current_liabilities",
  "current_deferred_revenue",
  "short_term_capital_lease_obligation",
  "total_current_liabilities",
  "non_current_deferred_revenue",
  "total_non_current_liabilities_net_minority_interest",
  "change_in_receivables",
  "change_in_inventory",
  "change_in_payables_and_accrued_expense",
  "change_in_prepaid_assets",
  "change_in_other_working_capital",
  "change_in_working_capital",
]);

/** What a financial company of the demo has none of: a bank no leases, an insurer or REIT no short-term debt. */
const NONE_OF: Readonly<Record<string, ReadonlySet<string>>> = {
  bank: new Set(["long_term_capital_lease_obligation"]),
  insurance: new Set([
    "long_term_capital_lease_obligation",
    "short_term_debt",
    "short_term_debt_and_capital_lease_obligation",
  ]),
  reit: new Set(["short_term_debt", "short_term_debt_and_capital_lease_obligation"]),
};

/** Fields of companies without inventory (software, services) that stay null. */
const INVENTORY = new Set([
  "inventory",
  "raw_materials",
  "finished_goods",
  "other_inventories",
  "inventories_adjustments_allowances",
  "change_in_inventory",
]);

let server: TestServer;
let key = "";

beforeAll(async () => {
  server = await startTestServer(await demoDataDir());
  key = server.newKey(100_000).key;
}, 120_000);
afterAll(() => server?.stop());

async function get<T>(path: string): Promise<T> {
  const res = await server.get(path, key);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

const companies = demoCompanies().map((c) => ({
  ticker: c.tickers[0] as string,
  template: industryTemplate(c.sic) ?? "general",
  payer: c.dividend > 0,
}));

const DIVIDENDS = new Set(["dividends_paid_direct", "dividends"]);

async function periodsOf(ticker: string, statement: "balance-sheet" | "cash-flow-statement", type: string) {
  const body = await get<{ periods: Period[] }>(
    `/stocks/${ticker}/${statement}?period_type=${type}&limit=100`,
  );
  return body.periods;
}

/** Σ of fields (null counts as 0: a field a company does not report). */
const sum = (v: Values, fields: readonly string[]) => fields.reduce((s, f) => s + (v[f] ?? 0), 0);

function expectTies(label: string, actual: number | null | undefined, expected: number): void {
  expect(actual, label).not.toBeNull();
  // Whole thousands: sums of thousands are exact.
  expect(
    Math.abs((actual as number) - expected),
    `${label}: ${actual} vs the sum of its parts ${expected}`,
  ).toBeLessThan(0.5);
}

describe("demo statements fill every field a typical filer reports", () => {
  test("the latest annual and quarterly balance sheet and cash flows of every company", async () => {
    let checked = 0;
    for (const { ticker, template, payer } of companies) {
      for (const statement of ["balance-sheet", "cash-flow-statement"] as const) {
        for (const type of ["annual", "quarterly"]) {
          const [latest] = await periodsOf(ticker, statement, type);
          const values = latest?.balance_sheet ?? latest?.cash_flow_statement;
          if (!values) throw new Error(`${ticker}: no ${type} ${statement}`);
          const inventory = (await periodsOf(ticker, "balance-sheet", "annual"))[0]?.balance_sheet?.inventory;
          const expected = Object.keys(values).filter(
            (f) =>
              !NOT_TYPICAL.has(f) &&
              (template === "general" || !CLASSIFIED_ONLY.has(f)) &&
              !NONE_OF[template]?.has(f) &&
              (inventory !== null || !INVENTORY.has(f)) &&
              (payer || !DIVIDENDS.has(f)),
          );
          const missing = expected.filter((f) => values[f] === null);
          expect(missing, `${ticker} ${type} ${statement} ${latest?.snapshot_date}: null fields`).toEqual([]);
          checked++;
        }
      }
    }
    expect(checked).toBe(companies.length * 4);
  }, 60_000);
});

describe("demo statements add up", () => {
  test("balance sheets: current assets, PP&E, inventory, total assets, liabilities and equity are their parts", async () => {
    for (const { ticker, template } of companies) {
      for (const p of [
        ...(await periodsOf(ticker, "balance-sheet", "annual")),
        ...(await periodsOf(ticker, "balance-sheet", "quarterly")),
      ]) {
        const b = p.balance_sheet as Values;
        const at = `${ticker} ${p.period_type} ${p.snapshot_date}`;
        expectTies(
          `${at} gross_ppe`,
          b.gross_ppe as number,
          sum(b, [
            "land_and_improvements",
            "buildings_and_improvements",
            "machinery_furniture_equipment",
            "construction_in_progress",
            "other_gross_ppe",
          ]),
        );
        expectTies(
          `${at} net_ppe`,
          b.net_ppe,
          (b.gross_ppe as number) - (b.accumulated_depreciation as number),
        );
        const equityParts =
          sum(b, [
            "common_stock",
            "preferred_stock",
            "additional_paid_in_capital",
            "retained_earnings",
            "accumulated_other_comprehensive_income",
          ]) - (b.treasury_stock ?? 0);
        expectTies(`${at} total_stockholders_equity`, b.total_stockholders_equity, equityParts);
        expectTies(
          `${at} total_assets`,
          b.total_assets,
          (b.total_liabilities as number) + (b.total_equity as number),
        );
        if (template !== "general") continue;
        if (b.inventory !== null)
          expectTies(
            `${at} inventory`,
            b.inventory,
            sum(b, ["raw_materials", "finished_goods", "other_inventories"]) -
              (b.inventories_adjustments_allowances as number),
          );
        expectTies(
          `${at} total_current_assets`,
          b.total_current_assets,
          sum(b, [
            "cash_and_cash_equivalents",
            "marketable_securities",
            "total_receivables",
            "inventory",
            "other_current_assets",
          ]),
        );
        expectTies(
          `${at} total_assets`,
          b.total_assets,
          sum(b, [
            "total_current_assets",
            "net_ppe",
            "good_will",
            "intangibles",
            "investments_and_advances",
            "other_long_term_assets",
          ]),
        );
        expectTies(
          `${at} total_current_liabilities`,
          b.total_current_liabilities,
          sum(b, [
            "accounts_payable",
            "current_accrued_expenses",
            "current_deferred_revenue",
            "short_term_debt",
            "short_term_capital_lease_obligation",
            "other_current_liabilities",
          ]),
        );
        expectTies(
          `${at} total_liabilities`,
          b.total_liabilities,
          sum(b, [
            "total_current_liabilities",
            "long_term_debt",
            "long_term_capital_lease_obligation",
            "non_current_deferred_income_tax",
            "non_current_deferred_revenue",
            "other_long_term_liabilities",
          ]),
        );
      }
    }
  }, 60_000);

  test("cash flows: each section is its lines, and the sections explain the change in cash", async () => {
    let checked = 0;
    for (const { ticker, template } of companies) {
      for (const p of [
        ...(await periodsOf(ticker, "cash-flow-statement", "annual")),
        ...(await periodsOf(ticker, "cash-flow-statement", "quarterly")),
      ]) {
        const c = p.cash_flow_statement as Values;
        const at = `${ticker} ${p.period_type} ${p.snapshot_date}`;
        if (c.cash_flow_from_operations === null || c.beginning_cash_position === null) continue;
        const change = (c.ending_cash_position as number) - (c.beginning_cash_position as number);
        expectTies(`${at} net_change_in_cash`, c.net_change_in_cash, change);
        expectTies(
          `${at} sections`,
          change,
          sum(c, ["cash_flow_from_operations", "cash_flow_from_investing", "cash_from_financing"]),
        );
        expectTies(
          `${at} cash_flow_from_investing`,
          c.cash_flow_from_investing,
          sum(c, [
            "cash_flow_capital_expenditure",
            "sale_of_ppe",
            "purchase_of_investment",
            "sale_of_investment",
            "net_intangibles_purchase_and_sale",
            "purchase_of_business",
            "cash_from_other_investing_activities",
          ]),
        );
        expectTies(
          `${at} cash_from_financing`,
          c.cash_from_financing,
          sum(c, [
            "debt_issuance",
            "debt_payments",
            "issuance_of_stock",
            "repurchase_of_stock",
            "dividends_paid_direct",
            "other_financing",
          ]),
        );
        const noncash = sum(c, [
          "net_income_from_continuing_operations",
          "cash_flow_depreciation_depletion_amortization",
          "stock_based_compensation",
          "cash_flow_deferred_tax",
          "cash_flow_from_others",
        ]);
        if (template === "general") {
          expectTies(
            `${at} change_in_working_capital`,
            c.change_in_working_capital,
            sum(c, [
              "change_in_receivables",
              "change_in_inventory",
              "change_in_payables_and_accrued_expense",
              "change_in_prepaid_assets",
              "change_in_other_working_capital",
            ]),
          );
          expectTies(
            `${at} cash_flow_from_operations`,
            c.cash_flow_from_operations,
            noncash + (c.change_in_working_capital as number),
          );
        } else expectTies(`${at} cash_flow_from_operations`, c.cash_flow_from_operations, noncash);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(companies.length * 30);
  }, 60_000);
});

describe("demo capital allocation and earnings", () => {
  test("no capital-allocation field is null for every company; every one repurchases, issues, borrows and repays", async () => {
    const fields = [
      "share_repurchases",
      "share_issuance",
      "net_buyback_amount",
      "acquisition_spend",
      "debt_issued",
      "debt_repaid",
      "net_debt_change",
      "buyback_yield",
    ];
    for (const { ticker } of companies) {
      const body = await get<{ capital_allocation: Values }>(`/stocks/${ticker}/capital-allocation`);
      const missing = fields.filter((f) => body.capital_allocation[f] === null);
      expect(missing, `${ticker}: null capital-allocation fields`).toEqual([]);
    }
  });

  test("every company's latest earnings release is its calendar's latest reported date, with that quarter's EPS", async () => {
    for (const { ticker } of companies) {
      const { earnings: e } = await get<{ earnings: Record<string, number | string | null> }>(
        `/stocks/${ticker}/earnings`,
      );
      const calendar = await get<
        { earning_date: string; eps_actual: number | null; fiscal_quarter_ending: string }[]
      >(`/calendar/earnings?ticker=${ticker}`);
      const reported = calendar.filter((r) => r.eps_actual !== null);
      const latest = reported.at(-1);
      expect(e.latest_earnings_release_date, ticker).toBe(latest?.earning_date as string);
      expect(e.past_earnings_date, ticker).toBe(reported.at(-2)?.earning_date as string);
      expect(e.eps_latest_q, `${ticker} eps_latest_q`).not.toBeNull();
      expect((e.eps_latest_q_period_end as string).slice(0, 7), ticker).toBe(
        latest?.fiscal_quarter_ending as string,
      );
      expect(e.eps_latest_q, `${ticker} eps_latest_q`).toBe(latest?.eps_actual as number);
    }
  });
});
