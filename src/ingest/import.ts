import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { StatementPeriod } from "../domain/statements.ts";
import { tickerKey } from "../domain/tickers.ts";
import { activateSnapshot, type Manifest } from "../snapshots.ts";
import { computeQuote } from "./compute/quote.ts";
import { computeStatements, type FilingSummary } from "./compute/statements.ts";
import { ImportContext } from "./context.ts";
import { ImportError } from "./errors.ts";
import { buildSecurities } from "./securities.ts";
import { parseCompanyFacts } from "./sources/companyfacts.ts";
import { parseFigiMapping } from "./sources/figi.ts";
import { parseOwnershipDocument } from "./sources/form4.ts";
import { selectInsiderTrades } from "./sources/form4-select.ts";
import { parsePrices } from "./sources/prices.ts";
import { type CompanyRecord, type FilingRecord, parseSubmissions } from "./sources/submissions.ts";
import { parseCompanyTickers, parseTickersExchange } from "./sources/tickers.ts";
import { parseJson, tickerFromFileName } from "./sources/values.ts";
import { SnapshotWriter } from "./write.ts";

export interface ImportOptions {
  lenient?: boolean;
  /** Called with a short status line as the import advances. */
  progress?: (message: string) => void;
  /** What the manifest names as the source (default: the directory). */
  label?: string;
  /** Make the new snapshot the served one (default true). */
  activate?: boolean;
}

/**
 * Imports a source directory (DESIGN §5) into a new snapshot and activates it. Throws
 * ImportError (file and line) on bad input; nothing is activated then. Large sources
 * (prices, companyfacts) are read one file at a time and streamed into the writer.
 */
export async function importSources(
  fromDir: string,
  dataDir: string,
  opts: ImportOptions = {},
): Promise<Manifest> {
  if (!existsSync(fromDir) || !statSync(fromDir).isDirectory()) {
    throw new ImportError(fromDir, null, "source directory does not exist");
  }
  const ctx = new ImportContext(fromDir, opts.lenient ?? false, opts.progress);
  const writer = await SnapshotWriter.open(dataDir);
  try {
    const dataAsOf = await importAll(ctx, writer);
    const manifest = await writer.finish({
      data_as_of: dataAsOf,
      source: opts.label ?? fromDir,
      calculation_version: {},
      report: ctx.report,
    });
    if (opts.activate ?? true) activateSnapshot(dataDir, manifest.id);
    return manifest;
  } catch (error) {
    writer.abort();
    throw error;
  }
}

/** Every source in turn; returns the last price date. */
async function importAll(ctx: ImportContext, writer: SnapshotWriter): Promise<string | null> {
  const edgar = join(ctx.root, "edgar");
  const { companies, filings } = readSubmissions(ctx, join(edgar, "submissions"));
  const priceFiles = ctx.files(join(ctx.root, "prices"), ".csv");
  const securities = buildSecurities({
    exchangeList: ctx.readOne(join(edgar, "company_tickers_exchange.json"), "tickers", parseTickersExchange),
    tickerList: ctx.readOne(join(edgar, "company_tickers.json"), "tickers", parseCompanyTickers),
    companies,
    figi: ctx.readAll(join(ctx.root, "figi"), ".json", "figi", parseFigiMapping),
    priceTickers: priceFiles.map((f) => tickerFromFileName(f)),
  });
  await writer.append("securities", securities.values());
  await writer.append("companies", companies);
  const xbrlFilings = await importCompanyFacts(ctx, writer, join(edgar, "companyfacts"));
  await writer.append("filings", withXbrl(filings, xbrlFilings));
  await importInsiderTrades(ctx, writer, join(edgar, "form4"));
  return importPrices(ctx, writer, priceFiles);
}

function readSubmissions(ctx: ImportContext, dir: string) {
  const companies: (CompanyRecord & { first_filing_date: string | null })[] = [];
  const byAccession = new Map<string, FilingRecord>();
  for (const file of ctx.files(dir, ".json")) {
    const parsed = parseSubmissions(ctx.read(file), ctx.name(file), ctx.parseOptions);
    ctx.count("submissions", file, parsed.filings.length, parsed.skipped);
    if (parsed.company) companies.push({ ...parsed.company, first_filing_date: null });
    for (const f of parsed.filings)
      if (!byAccession.has(f.accession_number)) byAccession.set(f.accession_number, f);
  }
  const first = new Map<string, string>();
  for (const f of byAccession.values()) {
    const seen = first.get(f.cik);
    if (seen === undefined || f.filing_date < seen) first.set(f.cik, f.filing_date);
  }
  for (const c of companies) c.first_filing_date = first.get(c.cik) ?? null;
  return { companies, filings: [...byAccession.values()] };
}

/** Statements and cover share counts per company; returns the XBRL facts of each filing. */
async function importCompanyFacts(ctx: ImportContext, writer: SnapshotWriter, dir: string) {
  const byAccession = new Map<string, FilingSummary>();
  for (const file of ctx.files(dir, ".json")) {
    const facts = parseCompanyFacts(parseJson(ctx.read(file), ctx.name(file)), ctx.name(file));
    const computed = computeStatements(facts);
    const { cik } = facts;
    const rows = (periods: readonly StatementPeriod[]) =>
      periods.map(({ values, ...period }) => ({ ...period, ...values }));
    await writer.append("balance_sheet", rows(computed.balance_sheet));
    await writer.append("cash_flow_statement", rows(computed.cash_flow_statement));
    await writer.append("income_statement", rows(computed.income_statement));
    await writer.append(
      "shares_outstanding",
      computed.shares_outstanding.map((s) => ({ cik, ...s })),
    );
    for (const f of computed.filings) byAccession.set(f.accession_number, f);
    const periods =
      computed.balance_sheet.length + computed.cash_flow_statement.length + computed.income_statement.length;
    ctx.count("companyfacts", file, periods);
  }
  return byAccession;
}

/** Adds fy, fp, report period and amendment flag of 10-K/10-Q filings from their XBRL facts. */
function withXbrl(filings: FilingRecord[], xbrl: Map<string, FilingSummary>) {
  return filings.map((f) => {
    const x = xbrl.get(f.accession_number);
    return {
      ...f,
      fy: x?.fy ?? null,
      fp: x?.fp ?? null,
      period: x?.period ?? null,
      amendment_flag: x?.amendment_flag ?? null,
    };
  });
}

/** Form 3/4/5 documents: purchases and sales (codes P and S) of non-derivative securities. */
async function importInsiderTrades(ctx: ImportContext, writer: SnapshotWriter, dir: string): Promise<void> {
  const files = ctx.files(dir, ".xml");
  if (files.length === 0) return;
  const documents = files.map((file) => parseOwnershipDocument(ctx.read(file), ctx.name(file)));
  const { rows, report } = selectInsiderTrades(documents);
  await writer.append("insider_trades", rows);
  ctx.count("form4", dir, rows.length);
  const entry = ctx.report.sources.form4;
  if (entry) entry.files = report.documentsRead;
  ctx.note(
    `form4: ${report.documentsRead} documents, ${report.documentsWithoutTrades} without P/S rows, ${report.duplicatesSkipped} duplicates, ${report.amendmentsApplied} amendments applied`,
  );
}

/** One price file at a time: the price table is streamed, never held whole. */
async function importPrices(
  ctx: ImportContext,
  writer: SnapshotWriter,
  files: string[],
): Promise<string | null> {
  let dataAsOf: string | null = null;
  for (const file of files) {
    const securityId = tickerKey(tickerFromFileName(file));
    const rows = ctx.parse(file, "prices", parsePrices);
    await writer.append(
      "prices",
      rows.map((row) => ({ ...row, security_id: securityId })),
    );
    const quote = computeQuote(securityId, rows);
    if (quote) await writer.append("quotes", [quote]);
    if (quote && (dataAsOf === null || quote.date > dataAsOf)) dataAsOf = quote.date;
  }
  return dataAsOf;
}
