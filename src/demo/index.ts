import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importSources } from "../ingest/import.ts";
import type { Manifest } from "../snapshots.ts";
import {
  type DemoFiling,
  tradingDays,
  writeFigi,
  writePrices,
  writeSubmissions,
  writeTickers,
} from "./sources.ts";
import { type DemoCompany, demoCompanies } from "./universe.ts";

/** First year of demo history. */
const FIRST_YEAR = 2013;

/** One fiscal period of a demo company and the filing that reports it. */
export interface DemoPeriod {
  fy: number;
  fp: "Q1" | "Q2" | "Q3" | "FY";
  start: string;
  end: string;
  filed: string;
  form: "10-Q" | "10-K";
  accession: string;
}

const iso = (t: number) => new Date(t).toISOString().slice(0, 10);

/** The last day of the month `months` after the month of `date` (YYYY-MM-DD). */
function monthEnd(date: string, months: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  return iso(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months + 1, 0));
}

/**
 * Fiscal quarters and years whose filing date is on or before `until`. A fiscal year is
 * named by the calendar year it ends in (a January year end makes FY2024 end 2024-01-31).
 */
export function demoPeriods(company: DemoCompany, until: string): DemoPeriod[] {
  const periods: DemoPeriod[] = [];
  const mm = company.fiscalYearEnd.slice(0, 2);
  let seq = 1;
  const accession = (year: string) => `${company.cik}-${year.slice(2, 4)}-${String(seq++).padStart(6, "0")}`;
  for (let fy = FIRST_YEAR; ; fy++) {
    const yearEnd = monthEnd(`${fy}-${mm}-01`, 0);
    const previousEnd = monthEnd(`${fy - 1}-${mm}-01`, 0);
    const start = iso(Date.parse(previousEnd) + 86_400_000);
    if (start > until) break;
    const quarters: [DemoPeriod["fp"], string][] = [
      ["Q1", monthEnd(previousEnd, 3)],
      ["Q2", monthEnd(previousEnd, 6)],
      ["Q3", monthEnd(previousEnd, 9)],
      ["FY", yearEnd],
    ];
    for (const [fp, end] of quarters) {
      const filed = iso(Date.parse(end) + (fp === "FY" ? 60 : 40) * 86_400_000);
      if (filed > until) return periods;
      const qStart = fp === "Q1" || fp === "FY" ? start : iso(Date.parse(monthEnd(end, -3)) + 86_400_000);
      periods.push({
        fy,
        fp,
        start: qStart,
        end,
        filed,
        form: fp === "FY" ? "10-K" : "10-Q",
        accession: accession(filed),
      });
    }
  }
  return periods;
}

function filingsOf(periods: DemoPeriod[]): DemoFiling[] {
  return periods.map((p) => ({
    accessionNumber: p.accession,
    filingDate: p.filed,
    reportDate: p.end,
    form: p.form,
    primaryDocument: `demo-${p.end.replaceAll("-", "")}.htm`,
    description: p.form === "10-K" ? "Annual report" : "Quarterly report",
  }));
}

/** Writes the demo universe in the source layout of DESIGN §5 into `dir`. */
export function writeDemoSources(dir: string, today = new Date()): void {
  const companies = demoCompanies();
  const lastDay = iso(today.getTime() - 86_400_000);
  const days = tradingDays(`${FIRST_YEAR}-01-02`, lastDay);
  writeTickers(dir, companies);
  writeFigi(dir, companies);
  for (const company of companies) {
    writePrices(dir, company, days);
    writeSubmissions(dir, company, filingsOf(demoPeriods(company, lastDay)));
  }
}

/** Builds the demo sources in a temporary directory and imports them through the real importer. */
export async function buildDemo(dataDir: string, progress?: (message: string) => void): Promise<Manifest> {
  const dir = mkdtempSync(join(tmpdir(), "stockd-demo-"));
  try {
    progress?.("generating demo sources");
    writeDemoSources(dir);
    return await importSources(dir, dataDir, { progress, label: "demo" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
