/** Lookups over one demo company's daily closes (ascending dates, as writePrices returns them). */
export class PriceSeries {
  private readonly dates: string[];
  private readonly closes: number[];

  constructor(closes: ReadonlyMap<string, number>) {
    this.dates = [...closes.keys()];
    this.closes = [...closes.values()];
    if (this.dates.length === 0) throw new Error("a demo price series needs at least one close");
  }

  /** The last trading day of the history. */
  get lastDate(): string {
    return this.dates[this.dates.length - 1] as string;
  }

  /** Index of the first trading day on or after `date` (length when none). */
  private lowerBound(date: string): number {
    let lo = 0;
    let hi = this.dates.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.dates[mid] as string) < date) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The close on `date` or the last one before it; before the history, the first close. */
  closeOn(date: string): number {
    const i = this.lowerBound(date);
    if (this.dates[i] === date) return this.closes[i] as number;
    return this.closes[Math.max(0, i - 1)] as number;
  }

  /** Mean close over [start, end]; a span without trading days gives the close at `end`. */
  average(start: string, end: string): number {
    let sum = 0;
    let n = 0;
    for (let i = this.lowerBound(start); i < this.dates.length && (this.dates[i] as string) <= end; i++) {
      sum += this.closes[i] as number;
      n++;
    }
    return n === 0 ? this.closeOn(end) : sum / n;
  }

  /** The first trading day on or after `date`, or null past the history. */
  tradingDayOnOrAfter(date: string): string | null {
    return this.dates[this.lowerBound(date)] ?? null;
  }
}
