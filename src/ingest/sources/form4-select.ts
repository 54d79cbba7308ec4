/**
 * Import rules that turn parsed ownership documents into stored insider trades (only
 * transaction codes P and S are served). Pure: filings in, rows out.
 *
 * Rules, in order:
 * 1. Duplicates. A filing is identified by its accession number; a second document with
 *    an accession number already seen is skipped. A document without one (its path carries
 *    none) is a duplicate only if its parsed content is identical to another document's,
 *    with or without an accession number.
 * 2. Amendments. An amendment ("4/A", "5/A", ...) replaces, as a whole, the rows of the
 *    filing it amends. The amended filing is one with the same issuer CIK, the same set of
 *    reporting owners (by CIK, else name), the same periodOfReport and the same base form
 *    ("4/A" amends a "4"). When the amendment gives dateOfOriginalSubmission, filings
 *    signed after that date are not candidates. Among candidates the most recently
 *    submitted one is replaced, so a second amendment replaces the first (it inherits
 *    the original's submission date for later matching). Amendments are applied in
 *    signature-date order. An amendment with no candidate is kept as a filing of its own
 *    and counted as unmatched.
 * 3. Only non-derivative transactions with code P or S become rows. A document with none
 *    is counted (documentsWithoutTrades), not an error.
 * 4. Rows are sorted newest first by transaction_date, then by issuer CIK, accession
 *    number and order within the document, so the output is deterministic.
 */
import type { InsiderTradeRow, OwnershipTransaction } from "../../snapshot/rows.ts";
import type { OwnershipFiling } from "./form4.ts";

/** Transaction codes stored as insider trades: open-market purchase and sale. */
const INSIDER_TRADE_CODES: ReadonlySet<string> = new Set(["P", "S"]);

/** What the selection did, for the import report. */
export interface InsiderTradeReport {
  documentsRead: number;
  duplicatesSkipped: number;
  /** Distinct documents without any P or S transaction (Forms 3, grants, exercises, ...). */
  documentsWithoutTrades: number;
  amendmentsApplied: number;
  /** Amendments whose original was not among the documents; their rows are kept. */
  amendmentsUnmatched: number;
}

/** Result of selectInsiderTrades. */
export interface InsiderTradeSelection {
  rows: InsiderTradeRow[];
  report: InsiderTradeReport;
}

/**
 * Applies the import rules above to a set of parsed ownership documents.
 * The order of `filings` does not matter except among exact duplicates.
 */
export function selectInsiderTrades(filings: readonly OwnershipFiling[]): InsiderTradeSelection {
  const unique = dropDuplicateFilings(filings);
  const { live, applied } = applyAmendments(unique);
  const amendments = unique.filter((filing) => filing.isAmendment).length;
  return {
    rows: sortNewestFirst(live.flatMap(toTradeRows)),
    report: {
      documentsRead: filings.length,
      duplicatesSkipped: filings.length - unique.length,
      documentsWithoutTrades: unique.filter((filing) => !filing.transactions.some(isInsiderTrade)).length,
      amendmentsApplied: applied,
      amendmentsUnmatched: amendments - applied,
    },
  };
}

function isInsiderTrade(transaction: OwnershipTransaction): boolean {
  return INSIDER_TRADE_CODES.has(transaction.transaction_code);
}

function dropDuplicateFilings(filings: readonly OwnershipFiling[]): OwnershipFiling[] {
  const contentOf = ({ file: _file, accessionNumber: _accession, ...content }: OwnershipFiling) =>
    JSON.stringify(content);
  const accessions = new Set<string>();
  const contents = new Set<string>();
  const kept = new Set<OwnershipFiling>();
  // Filings with an accession number first: a copy without one (an XML file named without it,
  // next to the submission text that names it) is the duplicate, whichever comes first.
  const withAccession = filings.filter((f) => f.accessionNumber !== null);
  for (const filing of [...withAccession, ...filings.filter((f) => f.accessionNumber === null)]) {
    const content = contentOf(filing);
    const accession = filing.accessionNumber;
    if (accession !== null ? accessions.has(accession) : contents.has(content)) continue;
    if (accession !== null) accessions.add(accession);
    contents.add(content);
    kept.add(filing);
  }
  return filings.filter((filing) => kept.has(filing));
}

/** A filing whose rows are currently kept, with the submission date of the original it stands for. */
interface LiveFiling {
  filing: OwnershipFiling;
  originDate: string | null;
}

function amendmentKey(filing: OwnershipFiling): string {
  const owners = filing.owners.map((owner) => owner.cik ?? owner.name.toLowerCase()).sort();
  const baseForm = filing.documentType.toUpperCase().replace(/\/A$/, "");
  return [filing.issuer.cik, owners.join(","), filing.periodOfReport, baseForm].join("|");
}

function applyAmendments(filings: readonly OwnershipFiling[]): { live: OwnershipFiling[]; applied: number } {
  const byKey = new Map<string, LiveFiling[]>();
  const entriesFor = (filing: OwnershipFiling): LiveFiling[] => {
    const key = amendmentKey(filing);
    const entries = byKey.get(key) ?? [];
    byKey.set(key, entries);
    return entries;
  };
  for (const filing of filings.filter((f) => !f.isAmendment)) {
    entriesFor(filing).push({ filing, originDate: filing.signatureDate });
  }
  let applied = 0;
  for (const amendment of filings.filter((f) => f.isAmendment).sort(bySubmission)) {
    const entries = entriesFor(amendment);
    const amended = findAmended(entries, amendment.dateOfOriginalSubmission);
    if (amended === undefined) {
      const originDate = amendment.dateOfOriginalSubmission ?? amendment.signatureDate;
      entries.push({ filing: amendment, originDate });
    } else {
      amended.filing = amendment;
      applied++;
    }
  }
  const live = [...byKey.values()].flat().map((entry) => entry.filing);
  return { live: live.sort(bySubmission), applied };
}

/** The most recently submitted entry not submitted after `cutoff` (when given). */
function findAmended(entries: readonly LiveFiling[], cutoff: string | null): LiveFiling | undefined {
  const candidates = entries.filter(
    (entry) => cutoff === null || entry.originDate === null || entry.originDate <= cutoff,
  );
  return candidates
    .sort((a, b) => compareNullable(a.originDate, b.originDate) || bySubmission(a.filing, b.filing))
    .at(-1);
}

function bySubmission(a: OwnershipFiling, b: OwnershipFiling): number {
  return (
    compareNullable(a.signatureDate, b.signatureDate) ||
    compareNullable(a.accessionNumber, b.accessionNumber) ||
    a.file.localeCompare(b.file)
  );
}

/** Ascending, null first (an unknown date or number sorts as the oldest). */
function compareNullable(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

function toTradeRows(filing: OwnershipFiling): InsiderTradeRow[] {
  return filing.transactions.filter(isInsiderTrade).map((transaction) => ({
    ...transaction,
    cik: filing.issuer.cik,
    ticker: filing.issuer.tradingSymbol,
    accession_number: filing.accessionNumber,
  }));
}

function sortNewestFirst(rows: InsiderTradeRow[]): InsiderTradeRow[] {
  // Array.prototype.sort is stable, so rows of one filing keep their document order.
  return rows.sort(
    (a, b) =>
      compareNullable(b.transaction_date, a.transaction_date) ||
      compareNullable(a.cik, b.cik) ||
      compareNullable(a.accession_number, b.accession_number),
  );
}
