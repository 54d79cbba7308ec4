import { existsSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { CALCULATION_VERSION } from "../../domain/calculation-version.ts";
import { daysBetween } from "../../domain/dates.ts";
import { normalizeCik, normalizeTicker, tickerKey } from "../../domain/tickers.ts";
import type { SecurityRow } from "../../snapshot/rows.ts";
import { activateSnapshot, type Manifest } from "../../snapshot/store.ts";
import { ImportContext } from "../context.ts";
import { ImportError } from "../errors.ts";
import { EARNINGS_VERSION, ESTIMATES_VERSION, REPORT_AFTER_ANNOUNCEMENT_DAYS } from "../rules/earnings.ts";
import type { FilingSummary } from "../rules/statements.ts";
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
import {
  acceptanceInUtc,
  type CompanyRecord,
  type FilingRecord,
  parseSubmissions,
} from "../sources/submissions.ts";
import { parseCompanyTickers, parseTickersExchange } from "../sources/tickers.ts";
import { tickerFromFileName } from "../sources/values.ts";
import { SnapshotWriter } from "../writing/write.ts";
import type { CompanyJob, CompanyResult, SecurityJob } from "./company-pass.ts";
import { CompanyPool } from "./company-pool.ts";
import { type MarketSources, readMarketSources } from "./market-sources.ts";
import { buildSecurities, type FiledSymbol } from "./securities.ts";

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
  const { companies, filings } = readSubmissions(ctx, join(edgar, "submissions"));
  addListedFilers(ctx, companies, join(edgar, "listed_filer_metadata.csv"));
  const priceFiles = priceFilesByTicker(ctx);
  const ownership = readOwnershipDocuments(ctx, join(edgar, "form4"));
  const securities = buildSecurities({
    exchangeList: ctx.readOne(join(edgar, "company_tickers_exchange.json"), "tickers", parseTickersExchange),
    tickerList: ctx.readOne(join(edgar, "company_tickers.json"), "tickers", parseCompanyTickers),
    companies,
    filedSymbols: filedSymbols(ownership ?? []),
    figi: ctx.readAll(join(ctx.root, "figi"), ".json", "figi", parseFigiMapping),
    priceTickers: [...priceFiles.keys()],
  });
  await writer.append("securities", securities.values());
  await writer.append("companies", companies);
  const market = readMarketSources(ctx, priceFiles);
  await writeMarketTables(writer, market, securities);
  await writeInsiderTrades(ctx, writer, ownership, join(edgar, "form4"));
  const sics = new Map(companies.map((c) => [c.cik, c.sic]));
  const jobs = companyJobs(ctx, market, securities, priceFiles, releaseFilingsByCik(filings), sics);
  const pool = new CompanyPool(ctx.root, ctx.parseOptions.lenient ?? false);
  try {
    const written = new CompanyWriter(ctx, writer);
    await pool.run(jobs, (result) => written.write(result));
    if (written.dataAsOf !== null) await writer.append("derived", await pool.finishUndated(written.dataAsOf));
    await writer.append("filings", withXbrl(filings, written.xbrlFilings));
    noteUnread(ctx);
    return written.dataAsOf;
  } finally {
    pool.close();
  }
}

/** One job per company (its securities grouped by CIK), then companyfacts of no listed security. */
function companyJobs(
  ctx: ImportContext,
  market: MarketSources,
  securities: Map<string, SecurityRow>,
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
  const factFiles = new Map(
    ctx.files(join(ctx.root, "edgar", "companyfacts"), ".json").map((f) => [cikOfFile(f), f]),
  );
  const byCik = Map.groupBy([...securities.values()], (s) => s.cik ?? `ticker:${s.ticker_key}`);
  const jobs: CompanyJob[] = [];
  for (const [cik, group] of byCik)
    jobs.push({
      index: jobs.length,
      factsFile: factFiles.get(cik) ?? null,
      sic: sics.get(cik) ?? null,
      securities: group.map(securityJob),
    });
  for (const [cik, file] of factFiles)
    if (!byCik.has(cik))
      jobs.push({ index: jobs.length, factsFile: file, sic: sics.get(cik) ?? null, securities: [] });
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
 * series (`.json`) of the symbol its "Meta Data" names, else its file name. A CSV wins over a
 * JSON of the same ticker; the file passed over is named in the report's notes.
 */
function priceFilesByTicker(ctx: ImportContext): Map<string, string> {
  const out = new Map<string, string>();
  const files = ctx.files(join(ctx.root, "prices"), ".csv", ".json");
  const csvFirst = [...files.filter((f) => !isJson(f)), ...files.filter(isJson)];
  for (const file of csvFirst) {
    const json = isJson(file);
    const head = json ? ctx.guard(file, "prices", () => ctx.head(file)) : "";
    if (head === null) continue;
    if (json && isOtherJson(head)) {
      ctx.passOver(file);
      continue;
    }
    const ticker =
      (json ? alphaVantageSymbol(head) : null) ??
      ctx.guard(file, "prices", () => tickerFromFileName(ctx.name(file)));
    if (ticker === null) continue;
    const key = tickerKey(ticker);
    const taken = out.get(key);
    if (taken) ctx.note(`${ctx.name(file)}: not read; ${ctx.name(taken)} holds the prices of ${ticker}`);
    else out.set(key, file);
  }
  return out;
}

const isJson = (file: string) => file.toLowerCase().endsWith(".json");

type CompanyWithFilings = CompanyRecord & { first_filing_date: string | null };

function readSubmissions(ctx: ImportContext, dir: string) {
  const companies: CompanyWithFilings[] = [];
  const byFiling = new Map<string, FilingRecord>();
  // Main files before paged ones: the recent list's copy of a filing is the one kept.
  const files = ctx
    .files(dir, ".json")
    .sort((a, b) => Number(a.includes("-submissions-")) - Number(b.includes("-submissions-")));
  for (const file of files) {
    const parsed = ctx.guard(file, "submissions", () =>
      parseSubmissions(ctx.read(file), ctx.name(file), ctx.parseOptions),
    );
    if (!parsed) continue;
    ctx.count("submissions", file, parsed.filings.length, parsed.skipped);
    if (parsed.company) companies.push({ ...parsed.company, first_filing_date: parsed.listedFrom });
    // A filing is listed under each of its filers (an insider's Form 4 under the issuer and
    // under the owner): one row per filer; a filer's own repeat of it is dropped.
    for (const f of parsed.filings) {
      const key = `${f.cik}|${f.accession_number}`;
      if (!byFiling.has(key)) byFiling.set(key, f);
    }
  }
  const first = new Map<string, string>();
  const byCik = new Map<string, FilingRecord[]>();
  for (const f of byFiling.values()) {
    const seen = first.get(f.cik);
    if (seen === undefined || f.filing_date < seen) first.set(f.cik, f.filing_date);
    const own = byCik.get(f.cik);
    if (own) own.push(f);
    else byCik.set(f.cik, [f]);
  }
  for (const own of byCik.values()) acceptanceInUtc(own);
  // The first filing: the earliest imported, or the earliest a main file lists in paged
  // files that are not at hand.
  for (const c of companies) {
    const dates = [first.get(c.cik), c.first_filing_date].filter((d): d is string => d != null);
    c.first_filing_date = dates.sort()[0] ?? null;
  }
  return { companies, filings: [...byFiling.values()] };
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

/** Companies of the filer-metadata table whose own submissions file was not imported. */
function addListedFilers(ctx: ImportContext, companies: CompanyWithFilings[], file: string): void {
  const known = new Set(companies.map((c) => c.cik));
  for (const c of ctx.readOne(file, "filer_metadata", parseFilerMetadata)) {
    if (!known.has(c.cik)) companies.push({ ...c, first_filing_date: null });
  }
}

/**
 * By CIK, the dates of its periodic reports (10-K, 10-Q, 20-F, 40-F; amendments excluded) and
 * of the results announcements that released them: of the 8-Ks with item 2.02 ("Results of
 * Operations and Financial Condition") filed up to 45 days before a report, the latest. Other
 * 8-Ks under that item are no earnings release (Tesla's quarterly deliveries, two days
 * after the quarter; its results come three weeks later, a day before the 10-Q), and one
 * filed within three days after another is its follow-up (Expedia's post-earnings 8-K of
 * 2020-07-31, a day after its results): the first of such a run is the release. Both
 * ascending.
 */
function releaseFilingsByCik(filings: readonly FilingRecord[]): Map<string, ReleaseFilings> {
  const reports = new Map<string, string[]>();
  const announcements = new Map<string, string[]>();
  for (const f of filings) {
    const into = /^(10-K|10-Q|20-F|40-F)$/.test(f.form)
      ? reports
      : f.form === "8-K" && (f.items ?? "").split(",").includes("2.02")
        ? announcements
        : null;
    if (into === null) continue;
    const dates = into.get(f.cik) ?? [];
    dates.push(f.filing_date);
    into.set(f.cik, dates);
  }
  const out = new Map<string, ReleaseFilings>();
  for (const [cik, dates] of reports) {
    dates.sort();
    const candidates = firstOfRuns(announcements.get(cik) ?? [], FOLLOW_UP_DAYS);
    // `candidates` ascend: the last one in the window is the latest.
    const results = dates
      .map((d) =>
        candidates.filter((a) => a <= d && daysBetween(a, d) <= REPORT_AFTER_ANNOUNCEMENT_DAYS).at(-1),
      )
      .filter((a): a is string => a !== undefined);
    out.set(cik, { reports: dates, results: [...new Set(results)].sort() });
  }
  return out;
}

interface ReleaseFilings {
  reports: string[];
  results: string[];
}

/** An announcement this many days or fewer after another is its follow-up. */
const FOLLOW_UP_DAYS = 3;

/** Of dates that follow each other by `days` or fewer, the first of each run; ascending. */
function firstOfRuns(dates: readonly string[], days: number): string[] {
  const out: string[] = [];
  let previous: string | null = null;
  for (const d of [...dates].sort()) {
    if (previous === null || daysBetween(previous, d) > days) out.push(d);
    previous = d;
  }
  return out;
}

function cikOfFile(file: string): string {
  return normalizeCik(/CIK(\d{10})/i.exec(basename(file))?.[1] ?? "") ?? basename(file);
}

/**
 * Adds fy, fp and report period of periodic filings from their XBRL facts, and the amendment
 * flag: the XBRL facts' (dei:AmendmentFlag), else the form type's (EDGAR names every
 * amendment `<form>/A`).
 */
function withXbrl(filings: FilingRecord[], xbrl: Map<string, FilingSummary>) {
  return filings.map((f) => {
    const x = xbrl.get(f.accession_number);
    return {
      ...f,
      fy: x?.fy ?? null,
      fp: x?.fp ?? null,
      // Facts with no report period (a 10-K/A of cover facts only): the submissions report date.
      period: x ? (x.period ?? f.report_date) : null,
      amendment_flag: x?.amendment_flag ?? f.form.endsWith("/A"),
    };
  });
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
  const calendar = market.calendar.map((row) => {
    const security = securities.get(tickerKey(row.ticker));
    return {
      ...row,
      security_id: security?.security_id ?? tickerKey(row.ticker),
      cik: row.cik ?? security?.cik ?? null,
    };
  });
  await writer.append("earnings_calendar", calendar);
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

/** Symbols that stand for no security: what filers write when the issuer has none. */
const NO_SYMBOL = new Set(["NONE", "N/A", "NA"]);

/**
 * The trading symbols issuers filed under, with the issuer's CIK and name, newest filing
 * first: a delisted company (LNKD, YHOO) or an old symbol (FB for Meta) is reachable by the
 * symbol its insiders' filings name.
 */
function filedSymbols(documents: readonly OwnershipFiling[]): FiledSymbol[] {
  return documents
    .filter((d) => d.issuer.tradingSymbol !== null)
    .toSorted((a, b) => b.periodOfReport.localeCompare(a.periodOfReport))
    .flatMap((d) => {
      const ticker = normalizeTicker(d.issuer.tradingSymbol as string);
      return ticker === null || NO_SYMBOL.has(ticker)
        ? []
        : [{ ticker, cik: d.issuer.cik, name: d.issuer.name ?? (d.issuer.tradingSymbol as string) }];
    });
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
