/**
 * An index of one company's statement periods, filled period by period (in filing order for
 * point-in-time use, or all at once), answering: the latest flow period (TTM, else annual),
 * the flow period about N years before a given one, and the balance sheet at a date.
 * Lookups are O(1): maps keyed by period end, probed within a tolerance for "a year earlier"
 * because 52/53-week fiscal years end on different days.
 */

import { addDays, addYears } from "../../domain/dates.ts";
import type {
  BalanceSheetField,
  CashFlowField,
  IncomeStatementField,
  PeriodType,
  StatementPeriod,
} from "../../domain/statements.ts";
import type { BalanceValues, CashFlowValues, CompanyStatements, IncomeValues } from "./inputs.ts";

/** Days a period end may differ from the exact calendar date N years earlier. */
const YEAR_MATCH_TOLERANCE_DAYS = 20;

/** Period types whose income and cash-flow figures cover a full year. */
export type FlowPeriodType = Exclude<PeriodType, "quarterly">;

/** Income statement and cash flow of one full-year period (TTM or fiscal year). */
export interface FlowPeriod {
  period_type: FlowPeriodType;
  fiscal_year: number;
  period_end: string;
  currency: string;
  /**
   * Latest filing date of the income statement (else the cash flow): the share basis of its
   * per-share and share-count values.
   */
  last_filed: string;
  income: IncomeValues | null;
  cash_flow: CashFlowValues | null;
}

type Income = StatementPeriod<IncomeStatementField>;
type Cash = StatementPeriod<CashFlowField>;
type Balance = StatementPeriod<BalanceSheetField>;

const key = (type: PeriodType, end: string): string => `${type}|${end}`;

/** Keeps the later-filed of two versions of the same period. */
function newer<P extends StatementPeriod>(current: P | undefined, next: P): P {
  return current === undefined || next.last_filed >= current.last_filed ? next : current;
}

/** Statement periods of one company, indexed for the derived-table computations. */
export class StatementBook {
  private readonly income = new Map<string, Income>();
  private readonly cash = new Map<string, Cash>();
  private readonly balances = new Map<string, Balance>();
  /**
   * Latest period ends per statement. The income statement decides which flow period is
   * "latest": a cash-flow statement filed before its income statement must not make a
   * period latest whose earnings are not yet known.
   */
  private readonly latestEnd = {
    income: { annual: null, ttm: null } as Record<FlowPeriodType, string | null>,
    cash: { annual: null, ttm: null } as Record<FlowPeriodType, string | null>,
  };
  private latestBalanceEnd: string | null = null;

  /** A book holding every period of `statements`. */
  static of(statements: CompanyStatements): StatementBook {
    const book = new StatementBook();
    for (const p of statements.income_statement) book.addIncome(p);
    for (const p of statements.cash_flow_statement) book.addCashFlow(p);
    for (const p of statements.balance_sheet) book.addBalance(p);
    return book;
  }

  /** Adds an income statement period (quarterly periods are ignored). */
  addIncome(period: Income): void {
    if (period.period_type === "quarterly") return;
    const k = key(period.period_type, period.period_end);
    this.income.set(k, newer(this.income.get(k), period));
    this.noteFlowEnd("income", period.period_type, period.period_end);
  }

  /** Adds a cash-flow period (quarterly periods are ignored). */
  addCashFlow(period: Cash): void {
    if (period.period_type === "quarterly") return;
    const k = key(period.period_type, period.period_end);
    this.cash.set(k, newer(this.cash.get(k), period));
    this.noteFlowEnd("cash", period.period_type, period.period_end);
  }

  /** Adds a balance sheet of any period type (a balance is a point in time). */
  addBalance(period: Balance): void {
    this.balances.set(period.period_end, newer(this.balances.get(period.period_end), period));
    if (this.latestBalanceEnd === null || period.period_end > this.latestBalanceEnd) {
      this.latestBalanceEnd = period.period_end;
    }
  }

  /** The latest TTM period, unless the latest annual period ends later; else the latest annual. */
  latestFlow(): FlowPeriod | null {
    const hasIncome = this.latestEnd.income.annual !== null || this.latestEnd.income.ttm !== null;
    const { ttm, annual } = hasIncome ? this.latestEnd.income : this.latestEnd.cash;
    if (ttm !== null && (annual === null || ttm >= annual)) return this.flowAt("ttm", ttm);
    return annual === null ? null : this.flowAt("annual", annual);
  }

  /** The flow period of `type` ending on `end`, null when neither statement has it. */
  flowAt(type: FlowPeriodType, end: string): FlowPeriod | null {
    const income = this.income.get(key(type, end));
    const cash = this.cash.get(key(type, end));
    const base = income ?? cash;
    if (base === undefined) return null;
    return {
      period_type: type,
      fiscal_year: base.fiscal_year,
      period_end: end,
      currency: base.currency,
      last_filed: base.last_filed,
      income: income?.values ?? null,
      cash_flow: cash?.values ?? null,
    };
  }

  /** The flow period of `period`'s type ending about `years` years before it. */
  flowYearsBefore(period: FlowPeriod, years: number): FlowPeriod | null {
    const end = this.nearestEnd(addYears(period.period_end, -years), (d) => {
      const k = key(period.period_type, d);
      return this.income.has(k) || this.cash.has(k);
    });
    return end === null ? null : this.flowAt(period.period_type, end);
  }

  /** The balance sheet dated exactly `end`. */
  balanceAt(end: string): BalanceValues | null {
    return this.balances.get(end)?.values ?? null;
  }

  /** The balance sheet about `years` years before `end`. */
  balanceYearsBefore(end: string, years: number): BalanceValues | null {
    const found = this.nearestEnd(addYears(end, -years), (d) => this.balances.has(d));
    return found === null ? null : this.balanceAt(found);
  }

  /** The most recent balance sheet. */
  latestBalance(): BalanceValues | null {
    return this.latestBalanceEnd === null ? null : this.balanceAt(this.latestBalanceEnd);
  }

  /** Reporting currency of the most recent balance sheet. */
  latestBalanceCurrency(): string | null {
    return this.latestBalanceEnd === null
      ? null
      : (this.balances.get(this.latestBalanceEnd)?.currency ?? null);
  }

  /** Period ends of all annual periods, oldest first. */
  annualEnds(): string[] {
    const ends = new Set<string>();
    for (const p of this.income.values()) if (p.period_type === "annual") ends.add(p.period_end);
    for (const p of this.cash.values()) if (p.period_type === "annual") ends.add(p.period_end);
    return [...ends].sort();
  }

  private noteFlowEnd(statement: "income" | "cash", type: FlowPeriodType, end: string): void {
    const ends = this.latestEnd[statement];
    const current = ends[type];
    if (current === null || end > current) ends[type] = end;
  }

  /** The date closest to `target` (within the tolerance) for which `exists` holds. */
  private nearestEnd(target: string, exists: (date: string) => boolean): string | null {
    for (let offset = 0; offset <= YEAR_MATCH_TOLERANCE_DAYS; offset++) {
      for (const date of offset === 0 ? [target] : [addDays(target, -offset), addDays(target, offset)]) {
        if (exists(date)) return date;
      }
    }
    return null;
  }
}
