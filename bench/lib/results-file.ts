/**
 * bench/RESULTS.md keeps the latest report of each mode between markers; everything outside
 * them (the analysis written by hand) is left as it is.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const HEADER =
  "# Benchmark results\n\nWritten by `npm run bench` (full) and `bun bench/run.ts --mode quick --results bench/RESULTS.md`.\n";

const markers = (mode: string) => [`<!-- bench:${mode}:start -->`, `<!-- bench:${mode}:end -->`] as const;

/** Replaces (or appends) the section of `mode` in `file` with `markdown`. */
export function writeResults(file: string, mode: string, markdown: string): void {
  const text = existsSync(file) ? readFileSync(file, "utf8") : HEADER;
  const [start, end] = markers(mode);
  const section = `${start}\n${markdown.trim()}\n${end}`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  const next =
    from >= 0 && to > from
      ? `${text.slice(0, from)}${section}${text.slice(to + end.length)}`
      : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, next);
}
