/**
 * A demo company's balance sheet at a quarter end: the totals the model sets from the revenue
 * run rate (assets, current and total liabilities, debt, PP&E...) and the detail lines a
 * typical filer reports within them. Every total is the exact sum of its parts, the last part
 * of each group taking what the others leave: current assets, PP&E (gross − accumulated
 * depreciation = net), inventory (raw materials + finished goods + other − reserve), total
 * assets, current and non-current liabilities, and equity (common stock + paid-in capital +
 * retained earnings + other comprehensive income − treasury stock), whose parts roll forward
 * with the quarter's flows (cash-flows.ts).
 */
import type { IndustryTemplate } from "../domain/industry.ts";
import type { Profile } from "./profile.ts";

const BALANCE_LINES = [
  "cash",
  "marketableSecurities",
  "receivables",
  "otherReceivables",
  "inventory",
  "rawMaterials",
  "finishedGoods",
  "otherInventory",
  "inventoryReserve",
  "otherCurrentAssets",
  "currentAssets",
  "land",
  "buildings",
  "machinery",
  "constructionInProgress",
  "otherPpe",
  "grossPpe",
  "accumulatedDepreciation",
  "ppe",
  "goodwill",
  "intangibles",
  "longTermInvestments",
  "loans",
  "otherLongTermAssets",
  "assets",
  "payables",
  "accruedLiabilities",
  "deferredRevenue",
  "currentDebt",
  "currentLeases",
  "otherCurrentLiabilities",
  "currentLiabilities",
  "longTermDebt",
  "longTermLeases",
  "deferredTaxLiabilities",
  "deferredRevenueNoncurrent",
  "deposits",
  "policyReserves",
  "otherLongTermLiabilities",
  "liabilities",
  "commonStock",
  "preferredStock",
  "additionalPaidInCapital",
  "retainedEarnings",
  "accumulatedOtherComprehensiveIncome",
  "treasuryStock",
  "equity",
] as const;

export type Balance = (typeof BALANCE_LINES)[number];
export type BalanceSheet = Record<Balance, number>;

/** Whole thousands of dollars. */
export const thousands = (x: number): number => Math.round(x / 1000) * 1000;

/** Splits `total` by `shares` (rounded to thousands); the last part takes the rest. */
function split(total: number, shares: readonly number[]): number[] {
  const parts = shares.map((s) => thousands(total * s));
  return [...parts, total - parts.reduce((sum, p) => sum + p, 0)];
}

/**
 * The balance sheet for an annual revenue run rate; `scale` is noise on total assets and
 * `random` draws the cash share (one draw). Equity's parts are left at 0: withEquity fills them.
 */
export function balanceOf(profile: Profile, random: () => number, rate: number, scale: number): BalanceSheet {
  const general = profile.template === "general";
  const assets = thousands(rate * profile.assetsToRevenue * scale);
  const part = (share: number) => thousands(assets * share);
  const cash = part(profile.mix.cash * (0.8 + 0.4 * random()));
  const receivables = part(profile.mix.receivables);
  const inventory = part(profile.mix.inventory);
  const otherCurrentAssets = general ? part(profile.mix.otherCurrent) : 0;
  const ppe = part(profile.mix.ppe);
  const goodwill = part(profile.mix.goodwill);
  const room = assets - cash - receivables - inventory - otherCurrentAssets - ppe - goodwill;
  const other = otherAssets(profile, room);
  const currentAssets = general
    ? cash +
      other.marketableSecurities +
      receivables +
      other.otherReceivables +
      inventory +
      otherCurrentAssets
    : 0;
  const currentLiabilities = part(profile.currentLiabilities);
  const liabilities = part(profile.liabilities);
  const longTermDebt = part(profile.debt);
  const payables = thousands(currentLiabilities * profile.payables);
  const equity = assets - liabilities;
  return {
    cash,
    receivables,
    inventory,
    otherCurrentAssets,
    currentAssets,
    ...inventoryDetail(inventory),
    ...ppeDetail(ppe, profile.detail.depreciatedShare),
    goodwill,
    ...other,
    assets,
    ...currentLiabilityDetail(profile, currentLiabilities, payables),
    currentLiabilities,
    longTermDebt,
    ...otherLiabilities(profile.template, liabilities - currentLiabilities - longTermDebt),
    liabilities,
    commonStock: 0,
    preferredStock: 0,
    additionalPaidInCapital: 0,
    retainedEarnings: equity,
    accumulatedOtherComprehensiveIncome: 0,
    treasuryStock: 0,
    equity,
  };
}

interface OtherAssets {
  marketableSecurities: number;
  otherReceivables: number;
  intangibles: number;
  longTermInvestments: number;
  loans: number;
  otherLongTermAssets: number;
}

/** The assets beyond the mix's lines: securities and intangibles; a bank's loans, an insurer's investments. */
function otherAssets(profile: Profile, room: number): OtherAssets {
  const d = profile.detail;
  const assets = (names: readonly (keyof OtherAssets)[], shares: readonly number[]): OtherAssets => {
    const parts = split(room, shares);
    const out: OtherAssets = {
      marketableSecurities: 0,
      otherReceivables: 0,
      intangibles: 0,
      longTermInvestments: 0,
      loans: 0,
      otherLongTermAssets: 0,
    };
    names.forEach((name, i) => {
      out[name] = parts[i] ?? 0;
    });
    return out;
  };
  switch (profile.template) {
    case "general":
      return assets(
        [
          "marketableSecurities",
          "otherReceivables",
          "intangibles",
          "longTermInvestments",
          "otherLongTermAssets",
        ],
        [d.securities, 0.04, d.intangibles, d.investments],
      );
    case "bank":
      return assets(
        ["longTermInvestments", "intangibles", "otherLongTermAssets", "loans"],
        [0.25, 0.01, 0.04],
      );
    case "insurance":
      return assets(["longTermInvestments", "intangibles", "otherLongTermAssets"], [0.8, 0.02]);
    case "reit":
      return assets(["intangibles", "longTermInvestments", "otherLongTermAssets"], [0.3, 0.2]);
  }
}

/** Net inventory = raw materials + finished goods + other (work in process, supplies) − reserve. */
function inventoryDetail(inventory: number) {
  const gross = thousands(inventory * 1.04);
  const [finishedGoods = 0, rawMaterials = 0, otherInventory = 0] = split(gross, [0.45, 0.35]);
  return { finishedGoods, rawMaterials, otherInventory, inventoryReserve: gross - inventory };
}

/** Gross PP&E by class, accumulated depreciation, and net = gross − accumulated depreciation. */
function ppeDetail(ppe: number, depreciatedShare: number) {
  const accumulatedDepreciation = thousands(ppe * depreciatedShare);
  const grossPpe = ppe + accumulatedDepreciation;
  const [land = 0, buildings = 0, machinery = 0, constructionInProgress = 0, otherPpe = 0] = split(
    grossPpe,
    [0.06, 0.32, 0.44, 0.07],
  );
  return {
    land,
    buildings,
    machinery,
    constructionInProgress,
    otherPpe,
    grossPpe,
    accumulatedDepreciation,
    ppe,
  };
}

/**
 * Current liabilities: payables, accrued, deferred revenue, the current portion of long-term
 * debt, current lease liabilities and other (the rest). A financial company's balance sheet
 * is unclassified (total 0): none of them.
 */
function currentLiabilityDetail(profile: Profile, total: number, payables: number) {
  const d = profile.detail;
  const part = (share: number) => (total === 0 ? 0 : thousands(total * share));
  const accruedLiabilities = part(d.accrued);
  const deferredRevenue = part(d.deferredRevenue);
  const currentDebt = part(d.currentDebt);
  const currentLeases = part(0.02);
  const otherCurrentLiabilities =
    total === 0 ? 0 : total - payables - accruedLiabilities - deferredRevenue - currentDebt - currentLeases;
  return {
    payables,
    accruedLiabilities,
    deferredRevenue,
    currentDebt,
    currentLeases,
    otherCurrentLiabilities,
  };
}

interface OtherLiabilities {
  longTermLeases: number;
  deferredTaxLiabilities: number;
  deferredRevenueNoncurrent: number;
  deposits: number;
  policyReserves: number;
  otherLongTermLiabilities: number;
}

/**
 * Liabilities beyond current liabilities and long-term debt: leases, deferred taxes and
 * revenue, other; a bank's deposits and short-term borrowings, an insurer's policy reserves.
 */
function otherLiabilities(
  template: IndustryTemplate,
  room: number,
): OtherLiabilities & { currentDebt?: number } {
  const liabilities = (
    names: readonly (keyof OtherLiabilities | "currentDebt")[],
    shares: readonly number[],
  ) => {
    const parts = split(room, shares);
    const out: OtherLiabilities & { currentDebt?: number } = {
      longTermLeases: 0,
      deferredTaxLiabilities: 0,
      deferredRevenueNoncurrent: 0,
      deposits: 0,
      policyReserves: 0,
      otherLongTermLiabilities: 0,
    };
    names.forEach((name, i) => {
      out[name] = parts[i] ?? 0;
    });
    return out;
  };
  switch (template) {
    case "general":
      return liabilities(
        ["longTermLeases", "deferredTaxLiabilities", "deferredRevenueNoncurrent", "otherLongTermLiabilities"],
        [0.15, 0.25, 0.05],
      );
    case "bank":
      return liabilities(
        ["deposits", "currentDebt", "deferredTaxLiabilities", "otherLongTermLiabilities"],
        [0.9, 0.03, 0.005],
      );
    case "insurance":
      return liabilities(
        ["policyReserves", "deferredTaxLiabilities", "otherLongTermLiabilities"],
        [0.8, 0.03],
      );
    case "reit":
      return liabilities(
        ["longTermLeases", "deferredTaxLiabilities", "otherLongTermLiabilities"],
        [0.1, 0.01],
      );
  }
}
