/** The benchmark's printed report, also written as Markdown (bench/RESULTS.md). */
import type { BillingLine } from "./accounts.ts";
import type { Machine } from "./machine.ts";
import type { Mode } from "./modes.ts";
import type { Summary } from "./scenarios.ts";
import { formatBytes, formatInt, formatMs, markdownTable } from "./stats.ts";

export interface ScaleFigures {
  companies: number;
  years: number;
  priceRows: number;
  sourceBytes: number;
  generatedInS: number | null;
  importMs: number;
  importPeakRss: number;
  importCpuMs: number;
  snapshotBytes: number;
  coldStartsMs: number[];
  coldStartMs: number;
  idleRss: number;
  rssAfterLoad: number;
  /** Of `rssAfterLoad`: anonymous memory and mapped snapshot files. */
  anonAfterLoad: number;
  fileAfterLoad: number;
  serverPeakRss: number;
}

export interface Report {
  date: string;
  mode: Mode;
  machine: Machine;
  code: string;
  loadAfter: string;
  scale: ScaleFigures;
  summaries: Summary[];
  billing: BillingLine[];
}

const verdict = (pass: boolean | null) => (pass === null ? "" : pass ? "✅" : "❌");

export function throughputTable(summaries: readonly Summary[]): string {
  const rows = summaries.map((s) => [
    `\`${s.name}\``,
    formatInt(s.rps),
    formatInt(s.bareRps),
    `${s.ratio.toFixed(s.ratio < 0.1 ? 3 : 2)}×`,
    formatMs(s.p50),
    formatMs(s.p99),
    formatMs(s.bareP99),
    formatInt(s.bodyBytes),
    formatInt(s.non2xx + s.errors),
    s.target ? `≥ ${s.target.ratio}×, p99 ≤ ${s.target.p99Ms} ms ${verdict(s.pass)}` : "",
  ]);
  const header = [
    "endpoint",
    "req/s",
    "bare req/s",
    "ratio",
    "p50",
    "p99",
    "bare p99",
    "body B",
    "non-2xx",
    "target",
  ];
  return markdownTable(header, rows);
}

export function billingTable(lines: readonly BillingLine[]): string {
  const rows = lines.map((b) => [
    b.email,
    formatInt(b.calls),
    formatInt(b.expected),
    formatInt(b.charged),
    `${formatInt(b.ledgerUsage)} (${formatInt(b.ledgerRows)} rows)`,
    `${formatInt(b.ledgerSum)} = ${formatInt(b.balance)}`,
    String(b.reserved),
    verdict(b.ok),
  ]);
  const header = [
    "key",
    "2xx",
    "2xx × cost",
    "charged (credits show)",
    "ledger usage",
    "ledger sum = balance",
    "held",
    "exact",
  ];
  return markdownTable(header, rows);
}

function scaleTable(s: ScaleFigures): string {
  const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const rows: string[][] = [
    [
      "universe",
      `${formatInt(s.companies)} companies × ${s.years} years, ${formatInt(s.priceRows)} price rows, ${s.years * 4} quarters of facts each; sources ${formatBytes(s.sourceBytes)}`,
      "",
    ],
    ["generation", s.generatedInS === null ? "cached" : `${s.generatedInS.toFixed(0)} s`, ""],
    ["import wall time", sec(s.importMs), `≤ 10 min ${verdict(s.importMs <= 600_000)}`],
    ["import peak RSS", formatBytes(s.importPeakRss), `≤ 4 GiB ${verdict(s.importPeakRss <= 4 * 1024 ** 3)}`],
    ["import CPU (user+sys)", sec(s.importCpuMs), ""],
    ["snapshot on disk", formatBytes(s.snapshotBytes), ""],
    [
      "cold start → first authenticated 200",
      `${formatMs(s.coldStartMs)} (runs: ${s.coldStartsMs.map((m) => m.toFixed(0)).join(", ")} ms)`,
      `≤ 2 s ${verdict(s.coldStartMs <= 2000)}`,
    ],
    ["idle RSS after start", formatBytes(s.idleRss), `≤ 1.5 GiB ${verdict(s.idleRss <= 1.5 * 1024 ** 3)}`],
    [
      "RSS after the load runs / server peak",
      `${formatBytes(s.rssAfterLoad)} (anonymous ${formatBytes(s.anonAfterLoad)}, mapped files ${formatBytes(s.fileAfterLoad)}) / ${formatBytes(s.serverPeakRss)}`,
      "",
    ],
  ];
  return markdownTable(["scale", "figure", "target (full universe)"], rows);
}

/** The report as Markdown: tables plus how and where it was measured. */
export function renderReport(r: Report): string {
  const m = r.mode;
  return [
    `## ${r.mode.name} run, ${r.date}`,
    "",
    `Machine: ${r.machine.nproc} cores (${r.machine.cpu}), ${r.machine.memory} RAM, Bun ${r.machine.bun}; shared with other work, load average ${r.machine.loadavg} before and ${r.loadAfter} after the run. Code under test: ${r.code}.`,
    "",
    `Load: ${m.connections} connections, closed loop, keep-alive, generator and servers on the same host; ${m.reps} alternating repetitions of ${m.durationMs / 1000} s (+${m.warmupMs / 1000} s warm-up) per endpoint and per reference, medians; the reference is a bare \`Bun.serve\` in its own process returning a sample response's bytes; symbols (and 1-year windows) drawn at random from the universe, requests spread over ${m.keys} keys.`,
    "",
    throughputTable(r.summaries),
    "",
    `Billing check (every 2xx the generator saw, warm-ups included): ${r.billing.every((b) => b.ok) ? "exact for every key" : "MISMATCH"}.`,
    "",
    billingTable(r.billing),
    "",
    scaleTable(r.scale),
    "",
  ].join("\n");
}
