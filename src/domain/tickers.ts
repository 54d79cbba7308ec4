/**
 * Ticker identity. Share-class separators `.`, `-` and `/` are equivalent (BRK.B = BRK-B =
 * brk/b), and case does not matter: every lookup goes through `tickerKey`.
 */

/** Longest ticker we resolve; longer input is a 400, not a lookup. */
export const MAX_TICKER_LENGTH = 20;
const TICKER_CHARS = /^[A-Za-z0-9.\-/^=]+$/;

/** The canonical lookup key: upper case, `.` as the only class separator. */
export function tickerKey(ticker: string): string {
  return ticker.trim().toUpperCase().replace(/[-/]/g, ".");
}

/** True when the text could be a ticker at all (length and characters). */
export function isTickerLike(text: string): boolean {
  return text.length > 0 && text.length <= MAX_TICKER_LENGTH && TICKER_CHARS.test(text);
}

/** A CIK as SEC files name it: 10 digits, zero-padded. Null when not a CIK. */
export function normalizeCik(value: unknown): string | null {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  if (!/^\d{1,10}$/.test(text)) return null;
  return text.padStart(10, "0");
}
