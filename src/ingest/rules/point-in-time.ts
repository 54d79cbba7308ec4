/**
 * Point-in-time fundamentals: what was public at a date. A statement period becomes known on
 * its `first_filed` date (the first filing that reported it) and a shares-outstanding value
 * on its `filed` date; nothing filed after the date is used. Dates are visited in
 * non-decreasing order and each period is added once, so walking M month ends over P periods
 * costs O(M + P) after one sort (docs/methodology.md, "Point in time").
 */

import { daysBetween } from "../../domain/dates.ts";
import type { StatementPeriod } from "../../domain/statements.ts";
import type { BalanceValues, CompanyStatements, SharesObservation } from "./inputs.ts";
import { fieldValue } from "./line-items.ts";
import { AFTER_EVERY_SPLIT, NO_SPLITS, perShareOnBasis, type ShareBasis, sharesOnBasis } from "./shares.ts";
import { type FlowPeriod, type FlowPeriodType, StatementBook } from "./statement-book.ts";

/**
 * How many days after its end the latest full-year flow period is still current. A quarterly
 * filer's TTM is replaced every quarter, its last one at most ~5 months old; a filer of annual
 * reports only (20-F) files months after its year ends, so its latest year can be ~16 months
 * old. Past this the company stopped filing, or the data stops (Tesla's companyfacts end in
 * 2022): its statements are not combined with that day's price (docs/methodology.md).
 */
const CURRENT_FOR_DAYS: Readonly<Record<FlowPeriodType, number>> = { ttm: 365, annual: 545 };

/** Whether a full-year flow period is still the company's current one on `date`. */
export function isCurrent(flow: Pick<FlowPeriod, "period_type" | "period_end">, date: string): boolean {
  return daysBetween(flow.period_end, date) <= CURRENT_FOR_DAYS[flow.period_type];
}

/** What was known about a company at one date. */
export interface KnownFundamentals {
  /** Latest full-year flow period (TTM, else annual) first filed on or before the date. */
  flow: FlowPeriod | null;
  /** The same kind of period one year before `flow` (for EPS growth). */
  prior_flow: FlowPeriod | null;
  /** Latest balance sheet first filed on or before the date. */
  balance: BalanceValues | null;
  /** Shares outstanding on the closes' share basis (see sharesAt). */
  shares: number | null;
  /** Diluted EPS of `flow` on the closes' share basis (the statements carry it after every split). */
  eps: number | null;
  /** Reporting currency of the statements (flow period, else balance sheet). */
  currency: string | null;
}

/** Nothing known: every fundamentals-based figure is null. */
export const NOTHING_KNOWN: KnownFundamentals = {
  flow: null,
  prior_flow: null,
  balance: null,
  shares: null,
  eps: null,
  currency: null,
};

interface FilingEvent {
  filed: string;
  add: (book: StatementBook) => void;
}

function filingEvents(statements: CompanyStatements): FilingEvent[] {
  const event = <P extends StatementPeriod>(p: P, add: (b: StatementBook, p: P) => void): FilingEvent => ({
    filed: p.first_filed,
    add: (b) => add(b, p),
  });
  return [
    ...statements.income_statement.map((p) => event(p, (b, q) => b.addIncome(q))),
    ...statements.cash_flow_statement.map((p) => event(p, (b, q) => b.addCashFlow(q))),
    ...statements.balance_sheet.map((p) => event(p, (b, q) => b.addBalance(q))),
  ].sort((a, b) => (a.filed < b.filed ? -1 : a.filed > b.filed ? 1 : 0));
}

/** Walks forward in time over one company's filings, answering "what was known at date D". */
export class PointInTimeFundamentals {
  private readonly book = new StatementBook();
  private readonly events: FilingEvent[];
  private readonly observations: SharesObservation[];
  private nextEvent = 0;
  private nextObservation = 0;
  private latestObservation: SharesObservation | null = null;
  private lastDate = "";
  private known: KnownFundamentals | null = null;

  constructor(
    statements: CompanyStatements,
    shares: readonly SharesObservation[],
    private readonly basis: ShareBasis = NO_SPLITS,
  ) {
    this.events = filingEvents(statements);
    this.observations = shares
      .filter((o) => Number.isFinite(o.value) && o.value > 0)
      .sort((a, b) => (a.filed < b.filed ? -1 : a.filed > b.filed ? 1 : 0));
  }

  /** Fundamentals known on `date`. Dates must not decrease between calls. */
  at(date: string): KnownFundamentals {
    if (date < this.lastDate) throw new RangeError(`dates must not decrease: ${date} after ${this.lastDate}`);
    this.lastDate = date;
    let changed = this.known === null;
    for (; this.nextEvent < this.events.length; this.nextEvent++) {
      const event = this.events[this.nextEvent];
      if (event === undefined || event.filed > date) break;
      event.add(this.book);
      changed = true;
    }
    for (; this.nextObservation < this.observations.length; this.nextObservation++) {
      const o = this.observations[this.nextObservation];
      if (o === undefined || o.filed > date) break;
      if (this.latestObservation === null || o.date >= this.latestObservation.date)
        this.latestObservation = o;
      changed = true;
    }
    if (changed || this.known === null) this.known = this.summarize();
    const flow = this.known.flow;
    if (flow !== null && !isCurrent(flow, date)) {
      // Stale statements: only the share count (which moves slowly) still gives a market cap.
      return { ...NOTHING_KNOWN, shares: this.known.shares, currency: this.known.currency };
    }
    return this.known;
  }

  private summarize(): KnownFundamentals {
    const flow = this.book.latestFlow();
    return {
      flow,
      prior_flow: flow === null ? null : this.book.flowYearsBefore(flow, 1),
      balance: this.book.latestBalance(),
      shares: this.sharesAt(flow),
      eps: perShareOnBasis(fieldValue(flow?.income, "diluted_eps"), AFTER_EVERY_SPLIT, this.basis),
      currency: flow?.currency ?? this.book.latestBalanceCurrency(),
    };
  }

  /**
   * The latest shares-outstanding value (by as-of date) filed so far, unless it is more than
   * a year older than the known flow period's end; else the diluted average shares of that
   * period; both converted to the closes' share basis. A count that stops while the
   * statements go on has stopped being reported, typically a classless cover count that
   * ended when the filer began to report its count by share class (which companyfacts, without
   * dimensions, does not carry): the statements' average shares count every class.
   */
  private sharesAt(flow: FlowPeriod | null): number | null {
    const o = this.latestObservation;
    const stale = o !== null && flow !== null && daysBetween(o.date, flow.period_end) > STALE_COUNT_DAYS;
    if (o !== null && !stale) return sharesOnBasis(o.value, o.date, this.basis);
    const diluted = fieldValue(flow?.income, "diluted_average_shares");
    if (flow === null || diluted === null || diluted <= 0)
      return o === null ? null : sharesOnBasis(o.value, o.date, this.basis);
    return sharesOnBasis(diluted, AFTER_EVERY_SPLIT, this.basis);
  }
}

/** A share count this much older than the latest statements' period end has stopped being reported. */
const STALE_COUNT_DAYS = 365;
