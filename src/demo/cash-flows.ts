/**
 * A demo quarter's cash-flow statement, from its income and the balance sheets at its start
 * and end, and the equity accounts those flows roll forward. The statement ties out:
 * operating + investing + financing = the change in cash (every demo company is domestic: no
 * exchange-rate effect), operating
 * cash flow = net income + non-cash items + the change in working capital (the balance
 * sheets' changes, line by line), and net debt issued = the change in debt. What the other
 * lines leave to explain is bought or sold in investments, as a treasury desk does with
 * excess cash.
 */
import { type BalanceSheet, thousands } from "./balance-sheet.ts";
import { type DividendEvent, paidBetween } from "./dividend-events.ts";
import type { Flow, ModelBase, ModelQuarter } from "./model.ts";

/** Cash effects of the working-capital lines: a rise in an asset uses cash, in a liability brings it. */
function workingCapital(opening: BalanceSheet, closing: BalanceSheet) {
  const change = (line: keyof BalanceSheet) => closing[line] - opening[line];
  const changeReceivables = -change("receivables");
  const changeInventory = -change("inventory");
  const changePayables = change("payables") + change("accruedLiabilities");
  const changePrepaid = -change("otherCurrentAssets");
  const changeOtherWorkingCapital =
    change("deferredRevenue") + change("otherCurrentLiabilities") - change("otherReceivables");
  const changeWorkingCapital =
    changeReceivables + changeInventory + changePayables + changePrepaid + changeOtherWorkingCapital;
  return {
    changeReceivables,
    changeInventory,
    changePayables,
    changePrepaid,
    changeOtherWorkingCapital,
    changeWorkingCapital,
  };
}

/**
 * The quarter with its cash flows and its closing equity accounts. `m.random` draws capex and
 * acquisitions (two draws, as before the detail lines existed, so those stay as they were),
 * `detail` the small other lines (three draws): a quarter's figures never depend on later ones.
 */
export function withCashFlows(
  m: ModelBase,
  core: ModelQuarter,
  opening: BalanceSheet,
  dividends: readonly DividendEvent[],
  detail: () => number,
): ModelQuarter {
  const noise = (scale: number) => thousands(core.flows.revenue * scale * (detail() - 0.5));
  const operating = operatingFlows(m, core, opening, noise);
  const investing = investingFlows(m, operating.depreciation, noise);
  const otherComprehensiveIncome = noise(0.004);
  const financing = financingFlows(m, core, opening, dividends, operating.shareBasedCompensation);
  // Every demo company is domestic: no cash held in other currencies to translate.
  const exchangeRateEffect = 0;
  const netChangeInCash = core.balance.cash - opening.cash;
  const toInvest =
    netChangeInCash -
    operating.operatingCashFlow -
    financing.financingCashFlow -
    exchangeRateEffect -
    investing.beforeInvestments;
  const turnover = thousands((opening.marketableSecurities + opening.longTermInvestments) * 0.05);
  const saleOfInvestments = turnover + Math.max(toInvest, 0);
  const purchaseOfInvestments = turnover + Math.max(-toInvest, 0);
  const { beforeInvestments, ...investingLines } = investing;
  const flows: Record<Flow, number> = {
    ...core.flows,
    ...operating,
    ...investingLines,
    purchaseOfInvestments,
    saleOfInvestments,
    investingCashFlow: beforeInvestments - purchaseOfInvestments + saleOfInvestments,
    ...financing,
    exchangeRateEffect,
    netChangeInCash,
    otherComprehensiveIncome,
  };
  return { ...core, flows, balance: withEquity(m, core, opening, flows) };
}

/** Operating cash flow = net income + non-cash items + the working capital's cash effects. */
function operatingFlows(
  m: ModelBase,
  core: ModelQuarter,
  opening: BalanceSheet,
  noise: (scale: number) => number,
) {
  const { profile } = m;
  const { flows, balance } = core;
  const depreciation = thousands(opening.ppe * profile.depreciationRate);
  const shareBasedCompensation = thousands(flows.revenue * profile.sbcRate);
  const deferredTax = balance.deferredTaxLiabilities - opening.deferredTaxLiabilities;
  const otherNoncash = noise(0.004);
  // A financial company's unclassified balance sheet has no working capital.
  const wc = workingCapital(opening, profile.template === "general" ? balance : opening);
  const operatingCashFlow =
    flows.netIncome +
    depreciation +
    shareBasedCompensation +
    deferredTax +
    otherNoncash +
    wc.changeWorkingCapital;
  return { depreciation, shareBasedCompensation, deferredTax, otherNoncash, ...wc, operatingCashFlow };
}

/** Investing other than in investments (those explain what is left: withCashFlows). */
function investingFlows(m: ModelBase, depreciation: number, noise: (scale: number) => number) {
  // Maintenance plus some growth: steady, so that owner earnings are too.
  const capitalExpenditure = thousands(depreciation * (1.05 + 0.3 * m.random()));
  const acquisitions = thousands(capitalExpenditure * 0.15 * m.random());
  const saleOfPpe = thousands(capitalExpenditure * 0.03);
  const purchaseOfIntangibles = thousands(capitalExpenditure * 0.05);
  const otherInvesting = noise(0.002);
  const beforeInvestments =
    -capitalExpenditure + saleOfPpe - acquisitions - purchaseOfIntangibles + otherInvesting;
  return {
    capitalExpenditure,
    acquisitions,
    saleOfPpe,
    purchaseOfIntangibles,
    otherInvesting,
    beforeInvestments,
  };
}

/** Financing: debt issued and repaid (their difference is the change in debt), stock, dividends. */
function financingFlows(
  m: ModelBase,
  core: ModelQuarter,
  opening: BalanceSheet,
  dividends: readonly DividendEvent[],
  shareBasedCompensation: number,
) {
  const debt = (b: BalanceSheet) => b.currentDebt + b.longTermDebt;
  const debtChange = debt(core.balance) - debt(opening);
  const rollover = thousands(opening.currentDebt * 0.25);
  const debtIssued = rollover + Math.max(debtChange, 0);
  const debtRepaid = rollover + Math.max(-debtChange, 0);
  const stockIssued = thousands(shareBasedCompensation * 0.1);
  // Buybacks retire the shares the count loses, and every company buys back part of what its
  // stock compensation issues.
  const retired = m.sharesAt(core.start) - m.sharesAt(core.end);
  const buyback = retired > 0 ? thousands(retired * m.prices.average(core.start, core.end)) : 0;
  const repurchases = buyback + thousands(shareBasedCompensation * 0.2);
  const dividendsPaid = thousands(paidBetween(dividends, core.start, core.end, m.sharesAt));
  // Taxes withheld on vested awards and the principal of finance leases.
  const otherFinancing = -thousands(shareBasedCompensation * 0.05) - thousands(opening.currentLeases * 0.25);
  const financingCashFlow =
    debtIssued - debtRepaid + stockIssued - repurchases - dividendsPaid + otherFinancing;
  return {
    debtIssued,
    debtRepaid,
    stockIssued,
    repurchases,
    dividendsPaid,
    otherFinancing,
    financingCashFlow,
  };
}

/**
 * The closing equity accounts: common stock at par, paid-in capital + stock compensation and
 * issuance, treasury stock + repurchases, other comprehensive income + currency translation;
 * retained earnings are what equity leaves for them.
 */
function withEquity(
  m: ModelBase,
  core: ModelQuarter,
  opening: BalanceSheet,
  flows: Record<Flow, number>,
): BalanceSheet {
  const balance = core.balance;
  const commonStock = Math.max(1000, thousands(m.sharesAt(core.end) * m.profile.detail.parValue));
  const additionalPaidInCapital =
    opening.additionalPaidInCapital + flows.shareBasedCompensation + flows.stockIssued;
  const treasuryStock = opening.treasuryStock + flows.repurchases;
  // Unrealized gains and losses on the securities held.
  const accumulatedOtherComprehensiveIncome =
    opening.accumulatedOtherComprehensiveIncome + flows.otherComprehensiveIncome;
  return {
    ...balance,
    commonStock,
    preferredStock: 0,
    additionalPaidInCapital,
    treasuryStock,
    accumulatedOtherComprehensiveIncome,
    retainedEarnings:
      balance.equity -
      commonStock -
      additionalPaidInCapital -
      accumulatedOtherComprehensiveIncome +
      treasuryStock,
  };
}

/** The equity accounts of the balance sheet before the first quarter: shares of its equity. */
export function openingEquity(m: ModelBase, balance: BalanceSheet, date: string): BalanceSheet {
  const d = m.profile.detail;
  const commonStock = Math.max(1000, thousands(m.sharesAt(date) * d.parValue));
  const additionalPaidInCapital = thousands(balance.equity * d.paidInCapital);
  const treasuryStock = thousands(balance.equity * d.treasuryStock);
  const accumulatedOtherComprehensiveIncome = thousands(balance.equity * -0.02);
  return {
    ...balance,
    commonStock,
    additionalPaidInCapital,
    treasuryStock,
    accumulatedOtherComprehensiveIncome,
    retainedEarnings:
      balance.equity -
      commonStock -
      additionalPaidInCapital -
      accumulatedOtherComprehensiveIncome +
      treasuryStock,
  };
}
