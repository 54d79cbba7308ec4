/** One result of a `stockd doctor` check. `fail` makes doctor exit 1; `warn` does not. */
export interface Finding {
  check: "data_dir" | "snapshot" | "staging" | "accounts";
  status: "ok" | "warn" | "fail";
  message: string;
}

export const ok = (check: Finding["check"], message: string): Finding => ({ check, status: "ok", message });
export const warn = (check: Finding["check"], message: string): Finding => ({
  check,
  status: "warn",
  message,
});
export const fail = (check: Finding["check"], message: string): Finding => ({
  check,
  status: "fail",
  message,
});

/** At most `max` items, then one line saying how many more there were. */
export function capped<T>(items: readonly T[], max: number, line: (item: T) => string): string[] {
  const lines = items.slice(0, max).map(line);
  if (items.length > max) lines.push(`... and ${items.length - max} more`);
  return lines;
}
