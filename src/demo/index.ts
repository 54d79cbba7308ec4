/**
 * `stockd demo`: a deterministic, clearly fictional universe written in the real
 * source formats of docs/sources.md and imported through the normal importer. universe.ts names the
 * companies, financials.ts models their economics, and one writer per source turns the model
 * into files: prices and submissions (sources.ts), XBRL companyfacts (xbrl.ts), Form 4
 * (form4.ts), dividends and the earnings calendar (market.ts), estimate and growth signals
 * (signals.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addDays } from "../domain/dates.ts";
import { importSources } from "../ingest/pipeline/import.ts";
import type { Manifest } from "../snapshot/store.ts";
import { buildModel } from "./financials.ts";
import { insiderDocuments, insiderFilings, writeForm4 } from "./insider-filings.ts";
import { writeCalendar, writeDividends } from "./market.ts";
import { type DemoPeriod, demoPeriods, FIRST_YEAR, iso } from "./periods.ts";
import { PriceSeries } from "./price-series.ts";
import { writeEstimates, writeGrowthSignals } from "./signals.ts";
import {
  type DemoFiling,
  tradingDays,
  writeFigi,
  writePrices,
  writeSubmissions,
  writeTickers,
} from "./sources.ts";
import { demoCompanies } from "./universe.ts";
import { writeCompanyFacts } from "./xbrl.ts";

export { type DemoPeriod, demoPeriods } from "./periods.ts";

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

/**
 * Writes the demo universe in the source layout of docs/sources.md into `dir`: prices through the
 * day before `today`, and the filings, facts, insider trades, dividends, calendar and
 * signals known by then. The same day always gives the same bytes.
 */
export function writeDemoSources(dir: string, today = new Date()): void {
  const companies = demoCompanies();
  const lastDay = addDays(iso(today.getTime()), -1);
  const days = tradingDays(`${FIRST_YEAR}-01-02`, lastDay);
  writeTickers(dir, companies);
  writeFigi(dir, companies);
  const built = companies.map((company, index) => {
    const prices = new PriceSeries(writePrices(dir, company, days));
    const periods = demoPeriods(company, lastDay);
    const model = buildModel(company, prices, lastDay);
    const insiders = insiderDocuments(company, index, prices, model.sharesAt("2020-01-01"), lastDay);
    writeSubmissions(dir, company, [...filingsOf(periods), ...insiderFilings(insiders)]);
    writeCompanyFacts(dir, model, periods);
    writeForm4(dir, insiders);
    writeDividends(dir, model);
    return { model, periods };
  });
  const models = built.map((b) => b.model);
  writeCalendar(dir, models, lastDay);
  writeEstimates(dir, models, lastDay);
  writeGrowthSignals(dir, built);
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
