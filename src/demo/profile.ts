/**
 * The financial profile of a demo company: margins, valuation, balance-sheet shape and
 * capital policy, drawn once from the company's seed within ranges typical of its industry
 * template (banks and insurers have no gross margin, inventory or current/non-current split;
 * a REIT is mostly real estate and debt).
 */
import { type IndustryTemplate, industryTemplate } from "../domain/industry.ts";
import { type DemoCompany, rng } from "./universe.ts";

type Range = readonly [number, number];

/** Balance-sheet lines as fractions of total assets. */
export interface AssetMix {
  cash: number;
  receivables: number;
  inventory: number;
  otherCurrent: number;
  ppe: number;
  goodwill: number;
}

export interface Profile {
  template: IndustryTemplate;
  /** Price / earnings the company's earnings are anchored to. */
  pe: number;
  netMargin: number;
  grossMargin: number;
  /** Share of operating expenses spent on R&D (0: no R&D line). */
  rndShare: number;
  taxRate: number;
  sbcRate: number;
  /** Depreciation per quarter as a fraction of opening PP&E. */
  depreciationRate: number;
  /** Annual rate on long-term debt (banks: on all liabilities, i.e. deposits). */
  interestRate: number;
  /** Annual growth of the share count (negative: buybacks). */
  shareGrowth: number;
  /** Diluted / basic weighted shares − 1. */
  dilution: number;
  /** Quarter weights of earnings, mean 1. */
  seasonal: readonly [number, number, number, number];
  assetsToRevenue: number;
  mix: AssetMix;
  /** Current liabilities, long-term debt and total liabilities as fractions of assets. */
  currentLiabilities: number;
  /** Accounts payable as a fraction of current liabilities. */
  payables: number;
  debt: number;
  liabilities: number;
  dividendGrowth: number;
  /** Month (1–3) of the first quarterly ex-date of a year, its day, and days to payment. */
  dividendMonth: number;
  dividendDay: number;
  dividendPayLag: number;
  /** How the statements' detail lines divide the totals (balance-sheet.ts, cash-flows.ts). */
  detail: StatementDetail;
}

/**
 * Shares of the detail lines a typical filer reports within the model's totals. Each is drawn
 * once per company; the last line of each group takes the rest, so parts sum to their total.
 */
export interface StatementDetail {
  /** Of the assets left after cash, receivables, inventory, other current, PP&E and goodwill. */
  securities: number;
  intangibles: number;
  investments: number;
  /** Of current liabilities. */
  accrued: number;
  deferredRevenue: number;
  currentDebt: number;
  /** Accumulated depreciation / net PP&E. */
  depreciatedShare: number;
  /** Common stock par value per share, in dollars. */
  parValue: number;
  /** Paid-in capital and treasury stock at the start of the history, as shares of equity. */
  paidInCapital: number;
  treasuryStock: number;
}

interface TemplateRanges {
  assetsToRevenue: Range;
  mix: Record<keyof AssetMix, Range>;
  currentLiabilities: Range;
  debt: Range;
  liabilities: Range;
  netMargin: Range;
  taxRate: Range;
}

const NONE: Range = [0, 0];
const FINANCIAL_MIX = { receivables: NONE, inventory: NONE, otherCurrent: NONE };

const RANGES: Record<IndustryTemplate, TemplateRanges> = {
  general: {
    assetsToRevenue: [1.1, 1.9],
    mix: {
      cash: [0.06, 0.14],
      receivables: [0.08, 0.14],
      inventory: [0.06, 0.14],
      otherCurrent: [0.02, 0.05],
      ppe: [0.15, 0.3],
      goodwill: [0.05, 0.15],
    },
    currentLiabilities: [0.14, 0.22],
    debt: [0.1, 0.28],
    liabilities: [0.42, 0.62],
    netMargin: [0.07, 0.2],
    taxRate: [0.15, 0.24],
  },
  bank: {
    assetsToRevenue: [16, 20],
    mix: { ...FINANCIAL_MIX, cash: [0.04, 0.08], ppe: [0.006, 0.01], goodwill: [0.01, 0.02] },
    currentLiabilities: NONE,
    debt: [0.05, 0.08],
    liabilities: [0.89, 0.91],
    netMargin: [0.24, 0.3],
    taxRate: [0.2, 0.24],
  },
  insurance: {
    assetsToRevenue: [2.6, 3.4],
    mix: { ...FINANCIAL_MIX, cash: [0.02, 0.04], ppe: [0.004, 0.008], goodwill: [0.02, 0.04] },
    currentLiabilities: NONE,
    debt: [0.04, 0.07],
    liabilities: [0.76, 0.82],
    netMargin: [0.07, 0.11],
    taxRate: [0.18, 0.22],
  },
  reit: {
    assetsToRevenue: [9, 12],
    mix: { ...FINANCIAL_MIX, cash: [0.01, 0.03], ppe: [0.85, 0.9], goodwill: [0, 0.01] },
    currentLiabilities: NONE,
    debt: [0.38, 0.46],
    liabilities: [0.5, 0.58],
    netMargin: [0.22, 0.32],
    taxRate: [0.01, 0.03],
  },
};

/** Range of the quarter weights of earnings before they are scaled to mean 1. */
const SEASON: Range = [0.85, 1.15];

/** SIC codes of companies that report research and development. */
const RND_SICS = new Set(["3571", "7372", "3674", "2834", "2836", "3841", "3559", "3720", "3711"]);

/** Manufacturers, retailers and homebuilders carry inventory. */
const hasInventory = (sic: string): boolean => /^[235]/.test(sic) || sic === "1531";

/** The company's profile; the same company always gets the same one. */
export function profileOf(company: DemoCompany): Profile {
  const random = rng(company.seed * 7919 + 17);
  const pick = ([lo, hi]: Range) => lo + (hi - lo) * random();
  const template = industryTemplate(company.sic) ?? "general";
  const ranges = RANGES[template];
  const rnd = RND_SICS.has(company.sic);
  const mix: AssetMix = {
    cash: pick(ranges.mix.cash),
    receivables: pick(ranges.mix.receivables),
    inventory: hasInventory(company.sic) ? pick(ranges.mix.inventory) : 0,
    otherCurrent: pick(ranges.mix.otherCurrent),
    ppe: pick(ranges.mix.ppe),
    goodwill: pick(ranges.mix.goodwill),
  };
  const netMargin = pick(ranges.netMargin);
  const taxRate = pick(ranges.taxRate);
  const currentLiabilities = pick(ranges.currentLiabilities);
  const debt = pick(ranges.debt);
  const [w1, w2, w3, w4] = [pick(SEASON), pick(SEASON), pick(SEASON), pick(SEASON)];
  const mean = (w1 + w2 + w3 + w4) / 4;
  return {
    template,
    pe: pick([14, 26]),
    netMargin,
    grossMargin: Math.min(0.85, netMargin / (1 - taxRate) + pick([0.15, 0.4])),
    rndShare: rnd ? pick([0.25, 0.5]) : 0,
    taxRate,
    sbcRate: rnd ? pick([0.02, 0.06]) : pick([0.004, 0.015]),
    depreciationRate: template === "reit" ? pick([0.008, 0.011]) : pick([0.02, 0.035]),
    interestRate: template === "bank" ? pick([0.008, 0.014]) : pick([0.035, 0.055]),
    shareGrowth: pick([-0.03, 0.015]),
    dilution: pick([0.004, 0.02]),
    seasonal: [w1 / mean, w2 / mean, w3 / mean, w4 / mean],
    assetsToRevenue: pick(ranges.assetsToRevenue),
    mix,
    currentLiabilities,
    payables: pick([0.35, 0.55]),
    debt,
    liabilities: Math.max(pick(ranges.liabilities), currentLiabilities + debt + 0.03),
    dividendGrowth: pick([0.03, 0.09]),
    dividendMonth: 1 + Math.floor(random() * 3),
    dividendDay: 5 + Math.floor(random() * 8),
    dividendPayLag: 7 + Math.floor(random() * 6),
    // Drawn last, so that every figure above stays as it was before these lines existed.
    detail: {
      securities: pick([0.2, 0.4]),
      intangibles: pick([0.2, 0.35]),
      investments: pick([0.05, 0.15]),
      accrued: pick([0.12, 0.18]),
      deferredRevenue: rnd ? pick([0.06, 0.12]) : pick([0.02, 0.05]),
      currentDebt: pick([0.04, 0.08]),
      depreciatedShare: pick([0.6, 1.2]),
      parValue: [0.0001, 0.001, 0.01][Math.floor(random() * 3)] as number,
      paidInCapital: pick([0.25, 0.6]),
      treasuryStock: pick([0.05, 0.3]),
    },
  };
}
