/**
 * Rows of the snapshot tables that both sides handle whole: the importer builds them, the read
 * side serves them. One definition each, so the two cannot drift (columns: tables.ts).
 */

/** One row of the `securities` table. */
export interface SecurityRow {
  security_id: string;
  ticker: string;
  ticker_key: string;
  cik: string | null;
  name: string;
  exchange: string | null;
  security_type: string | null;
  currency_code: string | null;
  composite_figi: string | null;
  share_class_figi: string | null;
  active: boolean;
  /**
   * Position in the SEC's ticker lists (0 first), which the SEC orders by market value, largest
   * first: the exchange list's position, else the plain list's after the whole exchange list.
   * Search's tie-break towards the larger company. Null for a security no list names.
   */
  list_rank: number | null;
}

/** One row of the `filings` table: a filing's metadata from the submissions, XBRL fields where it has them. */
export interface FilingRow {
  cik: string;
  accession_number: string;
  form: string;
  filing_date: string;
  report_date: string | null;
  acceptance_date_time: string | null;
  primary_document: string | null;
  primary_doc_description: string | null;
  fy: number | null;
  fp: string | null;
  period: string | null;
  amendment_flag: boolean | null;
}

/** One non-derivative transaction of an ownership filing (Form 3, 4 or 5; any transaction code). */
export interface OwnershipTransaction {
  /** YYYY-MM-DD. */
  transaction_date: string;
  /** SEC transaction code: P (open-market purchase), S (sale), A, M, G, F, ... */
  transaction_code: string;
  shares: number | null;
  /** Price per share; null when the filer gave only a footnote. */
  price: number | null;
  /** shares × price rounded to cents; null when either is missing. */
  value: number | null;
  /** Reporting owners' names, joined with "; " for a joint filing. */
  owner_name: string;
  /** Distinct owner titles (see ownerTitle in ingest/sources/form4.ts), joined with "; " for a joint filing. */
  owner_title: string;
  /** "A" (acquired) or "D" (disposed). */
  acquired_disposed: "A" | "D" | null;
  shares_owned_after: number | null;
  security_title: string | null;
}

/** One row of the `insider_trades` table: one P or S transaction plus the filing it came from. */
export interface InsiderTradeRow extends OwnershipTransaction {
  /** Issuer CIK, 10 digits. */
  cik: string;
  /** issuerTradingSymbol as filed (may be an old symbol, e.g. FB for Meta). */
  ticker: string | null;
  accession_number: string | null;
}
