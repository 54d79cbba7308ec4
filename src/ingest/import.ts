import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { tickerKey } from "../domain/tickers.ts";
import { activateSnapshot, type ImportReport, type Manifest } from "../snapshots.ts";
import { computeQuote, type QuoteRow } from "./compute/quote.ts";
import { ImportError } from "./errors.ts";
import { buildSecurities } from "./securities.ts";
import { parseFigiMapping } from "./sources/figi.ts";
import { type PriceRow, parsePrices } from "./sources/prices.ts";
import { type CompanyRecord, type FilingRecord, parseSubmissions } from "./sources/submissions.ts";
import { parseCompanyTickers, parseTickersExchange } from "./sources/tickers.ts";
import type { ParseOptions, ParseResult, SkippedRecord } from "./sources/values.ts";
import { tickerFromFileName } from "./sources/values.ts";
import { writeSnapshot } from "./write.ts";

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
 * ImportError (file and line) on bad input; nothing is activated then.
 */
export async function importSources(
  fromDir: string,
  dataDir: string,
  opts: ImportOptions = {},
): Promise<Manifest> {
  if (!existsSync(fromDir) || !statSync(fromDir).isDirectory()) {
    throw new ImportError(fromDir, null, "source directory does not exist");
  }
  const ctx = new ImportContext(fromDir, opts);
  const edgar = join(fromDir, "edgar");
  const exchangeList = ctx.readOne(
    join(edgar, "company_tickers_exchange.json"),
    "tickers",
    parseTickersExchange,
  );
  const tickerList = ctx.readOne(join(edgar, "company_tickers.json"), "tickers", parseCompanyTickers);
  const { companies, filings } = readSubmissions(ctx, join(edgar, "submissions"));
  const figi = ctx.readAll(join(fromDir, "figi"), ".json", "figi", parseFigiMapping);
  const priceFiles = ctx.files(join(fromDir, "prices"), ".csv");
  const securities = buildSecurities({
    exchangeList,
    tickerList,
    companies,
    figi,
    priceTickers: priceFiles.map((f) => tickerFromFileName(f)),
  });
  let dataAsOf: string | null = null;
  const quotes: QuoteRow[] = [];
  // One file at a time: the price table is streamed into the writer, never held whole.
  const prices = function* (): Generator<PriceRow & { security_id: string }> {
    for (const file of priceFiles) {
      const securityId = tickerKey(tickerFromFileName(file));
      const rows = ctx.parse(file, "prices", parsePrices);
      const quote = computeQuote(securityId, rows);
      if (quote) quotes.push(quote);
      if (quote && (dataAsOf === null || quote.date > dataAsOf)) dataAsOf = quote.date;
      for (const row of rows) yield { ...row, security_id: securityId };
    }
  };
  opts.progress?.("writing snapshot");
  const manifest = await writeSnapshot(
    dataDir,
    { securities: securities.values(), companies, filings, prices: prices(), quotes },
    () => ({
      data_as_of: dataAsOf,
      source: opts.label ?? fromDir,
      calculation_version: {},
      report: ctx.report,
    }),
  );
  if (opts.activate ?? true) activateSnapshot(dataDir, manifest.id);
  return manifest;
}

function readSubmissions(ctx: ImportContext, dir: string) {
  const companies: CompanyRecord[] = [];
  const byAccession = new Map<string, FilingRecord>();
  for (const file of ctx.files(dir, ".json")) {
    const parsed = parseSubmissions(readFileSync(file, "utf8"), ctx.name(file), ctx.parseOptions);
    ctx.count("submissions", file, parsed.filings.length, parsed.skipped);
    if (parsed.company) companies.push(parsed.company);
    for (const f of parsed.filings)
      if (!byAccession.has(f.accession_number)) byAccession.set(f.accession_number, f);
  }
  const first = new Map<string, string>();
  for (const f of byAccession.values()) {
    const seen = first.get(f.cik);
    if (seen === undefined || f.filing_date < seen) first.set(f.cik, f.filing_date);
  }
  const withFirst = companies.map((c) => ({ ...c, first_filing_date: first.get(c.cik) ?? null }));
  return { companies: withFirst, filings: [...byAccession.values()] };
}

type Parser<T> = (text: string, file: string, opts: ParseOptions) => ParseResult<T>;

/** File discovery, parsing and the running import report. */
class ImportContext {
  readonly report: ImportReport = { sources: {}, skipped: [], skipped_total: 0, notes: [] };
  readonly parseOptions: ParseOptions;

  constructor(
    private readonly root: string,
    private readonly opts: ImportOptions,
  ) {
    this.parseOptions = { lenient: opts.lenient ?? false };
  }

  /** Path relative to the source root, as printed in messages. */
  name(file: string): string {
    return relative(this.root, file) || basename(file);
  }

  /** Files with this extension below `dir`, sorted; none when `dir` is absent. */
  files(dir: string, ext: string): string[] {
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((f) => f.toLowerCase().endsWith(ext))
      .map((f) => join(dir, f))
      .sort();
  }

  parse<T>(file: string, source: string, parser: Parser<T>): T[] {
    const result = parser(readFileSync(file, "utf8"), this.name(file), this.parseOptions);
    this.count(source, file, result.rows.length, result.skipped);
    return result.rows;
  }

  readOne<T>(file: string, source: string, parser: Parser<T>): T[] {
    return existsSync(file) ? this.parse(file, source, parser) : [];
  }

  readAll<T>(dir: string, ext: string, source: string, parser: Parser<T>): T[] {
    return this.files(dir, ext).flatMap((file) => this.parse(file, source, parser));
  }

  count(source: string, file: string, records: number, skipped: SkippedRecord[]): void {
    const entry = this.report.sources[source] ?? { files: 0, records: 0 };
    this.report.sources[source] = entry;
    entry.files++;
    entry.records += records;
    this.report.skipped_total += skipped.length;
    // The manifest lists the first skipped records; the total counts them all.
    for (const s of skipped.slice(0, Math.max(0, 1000 - this.report.skipped.length))) {
      this.report.skipped.push({ file: this.name(file), line: s.line, reason: s.reason });
    }
    if (entry.files % 100 === 0) this.opts.progress?.(`${source}: ${entry.files} files`);
  }
}
