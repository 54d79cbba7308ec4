/** One row of the `quotes` table: the latest session of one security. */
export interface QuoteRow {
  security_id: string;
  date: string;
  open: number | null;
  high: number | null;
  low: number | null;
  close: number;
  volume: number | null;
  previous_close: number | null;
  change: number | null;
  change_percent: number | null;
  fifty_two_week_high: number;
  fifty_two_week_low: number;
}
