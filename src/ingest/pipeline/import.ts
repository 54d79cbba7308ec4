import { existsSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { CALCULATION_VERSION } from "../../domain/calculation-version.ts";
import { normalizeCik, tickerKey } from "../../domain/tickers.ts";
import type { SecurityRow } from "../../snapshot/rows.ts";
import { activateSnapshot, type Manifest } from "../../snapshot/store.ts";
import { ImportContext } from "../context.ts";
import { ImportError } from "../errors.ts";
import { calendarRowsOfSecurities } from "../rules/calendar-securities.ts";
import { EARNINGS_VERSION, ESTIMATES_VERSION } from "../rules/earnings.ts";
import { symbolsFiledByIssuers } from "../rules/filed-symbols.ts";
import {
  choosePriceFiles,
  csvPriceFilesFirst,
  isJsonPriceFile,
  type PriceFileCandidate,
} from "../rules/price-sources.ts";
import { type ReleaseFilings, reportAndReleaseDatesByCik } from "../rules/results-releases.ts";
import type { FilingSummary } from "../rules/statements.ts";
import {
  filersWithoutSubmissions,
  mainSubmissionFilesFirst,
  mergeSubmissions,
} from "../rules/submissions.ts";
import { withXbrlFacts } from "../rules/xbrl-filings.ts";
import { alphaVantageSymbol, isOtherJson } from "../sources/alphavantage-daily.ts";
import { parseFigiMapping } from "../sources/figi.ts";
import { parseFilerMetadata } from "../sources/filer-metadata.ts";
import {
  isSubmissionText,
  type OwnershipFiling,
  parseOwnershipDocument,
  parseSubmissionText,
} from "../sources/form4.ts";
import { selectInsiderTrades } from "../sources/form4-select.ts";
import { acceptanceInUtc, parseSubmissions, type SubmissionsFile } from "../sources/submissions.ts";
import { parseCompanyTickers, parseTickersExchange } from "../sources/tickers.ts";
import { tickerFromFileName } from "../sources/value-readers.ts";
import { SnapshotWriter } from "../writing/write.ts";
import type { CompanyJob, CompanyResult, SecurityJob } from "./company-pass.ts";
import { CompanyPool } from "./company-pool.ts";
import { documentPath, type EdgarDocument, edgarDocuments, readDocument } from "./edgar-documents.ts";
import { type MarketSources, readMarketSources } from "./market-sources.ts";
import { buildSecurities } from "./securities.ts";

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
 * Imports a source directory (laid out as docs/sources.md says) into a new snapshot and activates it. Throws
 * ImportError (file and line) on bad input; nothing is activated then. The large sources
 * (companyfacts, prices) are read one company at a time and streamed into the writer, with
 * every derived document of that company computed on the way.
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
    ctx.status("writing snapshot files");
    const manifest = await writer.finish({
      data_as_of: dataAsOf,
      source: opts.label ?? fromDir,
      calculation_version: {
        ...CALCULATION_VERSION,
        earnings: EARNINGS_VERSION,
        estimates: ESTIMATES_VERSION,
      },
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
  const priceFiles = priceFilesByTicker(ctx);
  const ownership = readOwnershipDocuments(ctx, join(edgar, "form4"));
  const exchangeList = ctx.readOne(
    join(edgar, "company_tickers_exchange.json"),
    "tickers",
    parseTickersExchange,
  );
  const tickerList = ctx.readOne(join(edgar, "company_tickers.json"), "tickers", parseCompanyTickers);
  const listedFilers = ctx.readOne(
    join(edgar, "listed_filer_metadata.csv"),
    "filer_metadata",
    parseFilerMetadata,
  );
  const factDocuments = edgarDocuments(ctx, "companyfacts");
  const named = new Set([
    ...[...exchangeList, ...tickerList, ...listedFilers].map((row) => row.cik),
    ...filersOfOwnership(ownership ?? []),
    ...factDocuments.map(cikOfDocument),
  ]);
  const { companies, filings } = readSubmissions(
    ctx,
    edgarDocuments(ctx, "submissions", (cik) => named.has(cik)),
  );
  companies.push(...filersWithoutSubmissions(companies, listedFilers));
  const securities = buildSecurities({
    exchangeList,
    tickerList,
    companies,
    filedSymbols: symbolsFiledByIssuers(ownership ?? []),
    figi: ctx.readAll(join(ctx.root, "figi"), ".json", "figi", parseFigiMapping),
    priceTickers: [...priceFiles.keys()],
  });
  await writer.append("securities", securities.values());
  await writer.append("companies", companies);
  const market = readMarketSources(ctx, priceFiles);
  await writeMarketTables(writer, market, securities);
  await writeInsiderTrades(ctx, writer, ownership, join(edgar, "form4"));
  const sics = new Map(companies.map((c) => [c.cik, c.sic]));
  const jobs = companyJobs(
    market,
    securities,
    factDocuments,
    priceFiles,
    reportAndReleaseDatesByCik(filings),
    sics,
  );
  const pool = new CompanyPool(ctx.root, ctx.parseOptions.lenient ?? false);
  try {
    const written = new CompanyWriter(ctx, writer);
    await pool.run(jobs, (result) => written.write(result));
    if (written.dataAsOf !== null) await writer.append("derived", await pool.finishUndated(written.dataAsOf));
    await writer.append("filings", withXbrlFacts(filings, written.xbrlFilings));
    noteUnread(ctx);
    return written.dataAsOf;
  } finally {
    pool.close();
  }
}

/** The issuers and reporting owners that ownership documents name. */
function filersOfOwnership(documents: readonly OwnershipFiling[]): string[] {
  return documents.flatMap((d) => [d.issuer.cik, ...d.owners.flatMap((o) => (o.cik ? [o.cik] : []))]);
}

/** One job per company (its securities grouped by CIK), then companyfacts of no listed security. */
function companyJobs(
  market: MarketSources,
  securities: Map<string, SecurityRow>,
  factDocuments: readonly EdgarDocument[],
  priceFiles: Map<string, string>,
  releaseFilings: Map<string, ReleaseFilings>,
  sics: Map<string, string | null>,
): CompanyJob[] {
  const calendar = Map.groupBy(market.calendar, (c) => tickerKey(c.ticker));
  const securityJob = (s: SecurityRow): SecurityJob => ({
    securityId: s.security_id,
    symbol: s.ticker,
    priceCurrency: s.currency_code,
    priceFile: priceFiles.get(s.ticker_key) ?? null,
    market: {
      dividends: market.dividends.get(s.ticker_key) ?? null,
      calendar: calendar.get(s.ticker_key) ?? [],
      reportDates: (s.cik ? releaseFilings.get(s.cik)?.reports : undefined) ?? [],
      resultsDates: (s.cik ? releaseFilings.get(s.cik)?.results : undefined) ?? [],
      estimates: market.estimates.get(s.ticker_key) ?? null,
      history: market.histories.get(s.ticker_key) ?? null,
      growth: market.growth.get(s.ticker_key) ?? null,
    },
  });
  const factFiles = new Map(factDocuments.map((d) => [cikOfDocument(d), d]));
  const byCik = Map.groupBy([...securities.values()], (s) => s.cik ?? `ticker:${s.ticker_key}`);
  const jobs: CompanyJob[] = [];
  for (const [cik, group] of byCik)
    jobs.push({
      index: jobs.length,
      facts: factFiles.get(cik) ?? null,
      sic: sics.get(cik) ?? null,
      securities: group.map(securityJob),
    });
  for (const [cik, facts] of factFiles)
    if (!byCik.has(cik)) jobs.push({ index: jobs.length, facts, sic: sics.get(cik) ?? null, securities: [] });
  return jobs;
}

/** Writes the company pass's results, in company order, and keeps what the later tables need. */
class CompanyWriter {
  readonly xbrlFilings = new Map<string, FilingSummary>();
  dataAsOf: string | null = null;

  constructor(
    private readonly ctx: ImportContext,
    private readonly writer: SnapshotWriter,
  ) {}

  async write(result: CompanyResult): Promise<void> {
    for (const args of result.counts) this.ctx.count(...args);
    const statements = result.statements;
    if (statements) {
      await this.writer.appendValues("balance_sheet", statements.balance_sheet);
      await this.writer.appendValues("cash_flow_statement", statements.cash_flow_statement);
      await this.writer.appendValues("income_statement", statements.income_statement);
      await this.writer.appendValues("shares_outstanding", statements.shares_outstanding);
      for (const f of statements.filings) this.xbrlFilings.set(f.accession_number, f);
    }
    for (const security of result.securities) {
      if (security.prices) {
        await this.writer.appendPrices(security.securityId, security.prices);
        const last = security.prices.lastDate;
        if (last && (this.dataAsOf === null || last > this.dataAsOf)) this.dataAsOf = last;
      }
      if (security.quote.length > 0) await this.writer.appendValues("quotes", security.quote);
      await this.writer.appendValues("derived", security.derived);
    }
  }
}

/**
 * The price file of each ticker (by ticker key): `prices/<TICKER>.csv`, or an Alpha Vantage
 * series (`.json`) of the symbol its "Meta Data" names, else its file name. Which file wins a
 * ticker is `choosePriceFiles`'s (a CSV over a JSON); the file passed over is named in the
 * report's notes.
 */
function priceFilesByTicker(ctx: ImportContext): Map<string, string> {
  const candidates: PriceFileCandidate[] = [];
  for (const file of csvPriceFilesFirst(ctx.files(join(ctx.root, "prices"), ".csv", ".json"))) {
    const json = isJsonPriceFile(file);
    const head = json ? ctx.guard(file, "prices", () => ctx.head(file)) : "";
    if (head === null) continue;
    if (json && isOtherJson(head)) {
      ctx.passOver(file);
      continue;
    }
    const ticker =
      (json ? alphaVantageSymbol(head) : null) ??
      ctx.guard(file, "prices", () => tickerFromFileName(ctx.name(file)));
    if (ticker !== null) candidates.push({ file, ticker });
  }
  const { byTickerKey, notRead } = choosePriceFiles(candidates);
  for (const { file, ticker, heldBy } of notRead)
    ctx.note(`${ctx.name(file)}: not read; ${ctx.name(heldBy)} holds the prices of ${ticker}`);
  return byTickerKey;
}

/** Reads every submissions document (`rules/submissions.ts` decides what is kept), then puts acceptance times in UTC. */
function readSubmissions(ctx: ImportContext, documents: readonly EdgarDocument[]) {
  const byPath = new Map(documents.map((d) => [documentPath(d), d]));
  const parts: SubmissionsFile[] = [];
  for (const file of mainSubmissionFilesFirst([...byPath.keys()])) {
    const document = byPath.get(file) as EdgarDocument;
    const parsed = ctx.guard(file, "submissions", () =>
      parseSubmissions(readDocument(ctx, document), ctx.name(file), ctx.parseOptions),
    );
    if (!parsed) continue;
    ctx.count("submissions", file, parsed.filings.length, parsed.skipped);
    parts.push(parsed);
  }
  const merged = mergeSubmissions(parts);
  for (const own of Map.groupBy(merged.filings, (f) => f.cik).values()) acceptanceInUtc(own);
  return merged;
}

/** Files named in the report's notes when no source format took them. */
const LISTED_UNREAD = 20;

function noteUnread(ctx: ImportContext): void {
  const { unknown, passedOver } = ctx.unread();
  const note = (files: string[], why: string) => {
    if (files.length === 0) return;
    const more = files.length > LISTED_UNREAD ? `, and ${files.length - LISTED_UNREAD} more` : "";
    ctx.note(
      `${files.length} file${files.length === 1 ? "" : "s"} not read (${why}): ${files.slice(0, LISTED_UNREAD).join(", ")}${more}`,
    );
  };
  note(unknown, "no source format of that name or place");
  note(passedOver, "not in the format of their folder");
}

function cikOfDocument(document: EdgarDocument): string {
  const name = basename(documentPath(document));
  return normalizeCik(/CIK(\d{10})/i.exec(name)?.[1] ?? "") ?? name;
}

/** Dividend history and the earnings calendar, keyed to securities (CIK filled from EDGAR). */
async function writeMarketTables(
  writer: SnapshotWriter,
  market: MarketSources,
  securities: Map<string, SecurityRow>,
) {
  for (const [key, rows] of market.dividends) {
    await writer.append(
      "dividends",
      rows.map((r) => ({ ...r, security_id: key })),
    );
  }
  await writer.append("earnings_calendar", calendarRowsOfSecurities(market.calendar, securities));
}

/**
 * Form 3/4/5 documents: as XML, or inside EDGAR's submission text (`.txt`, `.nc`) that
 * carries them. Null when there are no such files (then the snapshot has no insider trades
 * table, rather than an empty one).
 */
function readOwnershipDocuments(ctx: ImportContext, dir: string): OwnershipFiling[] | null {
  // A .txt or .nc is read by what it holds: EDGAR's submission text, or an ownership document
  // saved under that name; anything else (a README) is left.
  const kinds = ctx.files(dir, ".xml", ".txt", ".nc").flatMap((file) => {
    if (file.toLowerCase().endsWith(".xml")) return [{ file, submission: false }];
    const head = ctx.guard(file, "form4", () => ctx.head(file));
    if (head === null) return [];
    if (isSubmissionText(head)) return [{ file, submission: true }];
    if (/<ownershipDocument[\s>]/.test(head)) return [{ file, submission: false }];
    ctx.passOver(file);
    return [];
  });
  if (kinds.length === 0) return null;
  return kinds.flatMap(
    ({ file, submission }) =>
      ctx.guard(file, "form4", () =>
        submission
          ? parseSubmissionText(ctx.read(file), ctx.name(file))
          : [parseOwnershipDocument(ctx.read(file), ctx.name(file))],
      ) ?? [],
  );
}

/** Purchases and sales (codes P and S) of non-derivative securities, from the ownership documents. */
async function writeInsiderTrades(
  ctx: ImportContext,
  writer: SnapshotWriter,
  documents: OwnershipFiling[] | null,
  dir: string,
): Promise<void> {
  if (documents === null) return;
  const { rows, report } = selectInsiderTrades(documents);
  // `seq` keeps the selection's order (newest first, then filing and document order) for ties.
  await writer.append(
    "insider_trades",
    rows.map((row, seq) => ({ ...row, seq })),
  );
  ctx.count("form4", dir, rows.length);
  const entry = ctx.report.sources.form4;
  if (entry) entry.files = report.documentsRead;
  ctx.note(
    `form4: ${report.documentsRead} documents, ${report.documentsWithoutTrades} without P/S rows, ${report.duplicatesSkipped} duplicates, ${report.amendmentsApplied} amendments applied`,
  );
}
