/**
 * Ticker identity, and EDGAR's identifiers (CIK, accession number). Share-class separators
 * `.`, `-` and `/` are equivalent (BRK.B = BRK-B = brk/b), and case does not matter: every
 * lookup goes through `tickerKey`.
 */

/** Longest ticker a request may name; longer input is a 400, not a lookup. */
export const MAX_TICKER_LENGTH = 20;
/**
 * A ticker in any case: 1 to 10 characters, runs of letters and digits joined by single
 * separators, the class separators `.` `-` `/` or `_` (Alpha Vantage's `ADT_OLD` for a delisted
 * symbol); the longest real ones (`ONDS_TEMP`, `GRAF-UN`) have 9 and 7. ASCII only, tested
 * before upper-casing, so that no other script's letter becomes a Latin one ("ß" → "SS").
 */
const TICKER = /^(?=.{1,10}$)[A-Za-z0-9]+(?:[._/-][A-Za-z0-9]+)*$/;

/**
 * A ticker as stored: trimmed, upper case, separators as written. Null when the text is no
 * ticker (see `TICKER`): a path (`../x`), a space, markup, a control or non-ASCII character,
 * more than 10 characters.
 */
export function normalizeTicker(text: string): string | null {
  const trimmed = text.trim();
  return TICKER.test(trimmed) ? trimmed.toUpperCase() : null;
}

/** The canonical lookup key: upper case, `.` as the only class separator. */
export function tickerKey(ticker: string): string {
  return ticker.trim().toUpperCase().replace(/[-/]/g, ".");
}

/** True when the text could be a ticker at all (`normalizeTicker`), so is worth a lookup. */
export function isTickerLike(text: string): boolean {
  return normalizeTicker(text) !== null;
}

/** A CIK as SEC files name it: 10 digits, zero-padded. Null when not a CIK. */
export function normalizeCik(value: unknown): string | null {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  if (!/^\d{1,10}$/.test(text)) return null;
  return text.padStart(10, "0");
}

/** An EDGAR accession number as EDGAR writes it: `0000320193-24-000123`. */
export function isAccessionNumber(text: string): boolean {
  return /^\d{10}-\d{2}-\d{6}$/.test(text);
}
