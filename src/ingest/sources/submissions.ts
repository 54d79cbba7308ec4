/**
 * SEC submissions API files: `CIK##########.json` (company facts + `filings.recent`) and the
 * paged `CIK##########-submissions-NNN.json` files that hold older filings (the same
 * columnar arrays at top level). Duplicate accession numbers are dropped by the importer.
 *
 * `acceptanceDateTime` is UTC in most files, but some copies carry EDGAR's New York wall
 * clock with a `Z` (the same filing listed under two CIKs four or five hours apart; Apple's
 * 10-K "accepted" at 06:01Z, 02:01 in New York, when EDGAR is closed). EDGAR accepts filings
 * from 06:00 to 22:00 New York time, so the importer reads all the files of one CIK the way
 * that puts their times in those hours (`acceptanceInUtc`): as New York time when more than
 * twice as many fall outside them read as UTC. Midnight exactly is the placeholder of old
 * filings (no time recorded): it votes for neither reading and is kept as it is.
 *
 * Every ticker must be one (`readTicker`): a bad one is a bad record (strict) or, when lenient,
 * a gap in its place (the exchanges stay paired) listed as skipped. Dates lie from 1900 to a
 * week from today (`readDate`), and so does the day of an acceptance time.
 */
import { basename } from "node:path";
import type { Company } from "../../domain/company.ts";
import { countryIso } from "../../domain/country.ts";
import { isAccessionNumber, normalizeCik } from "../../domain/tickers.ts";
import type { FilingRow } from "../../snapshot/rows.ts";
import { ImportError } from "../errors.ts";
import {
  dateRangeProblem,
  FieldError,
  isObject,
  type JsonObject,
  type ParseOptions,
  parseJson,
  RecordCollector,
  readDate,
  readTicker,
  type SkippedRecord,
  shown,
} from "./value-readers.ts";

/** The company part of a submissions file (the first filing date comes from all its filings). */
export interface CompanyRecord extends Omit<Company, "first_filing_date"> {
  /** Tickers (`readTicker`: upper case) and their exchanges, paired by position; null for a gap. */
  tickers: (string | null)[];
  exchanges: (string | null)[];
}

/** A filing as the submissions list it: the `filings` row without the XBRL fields, with its 8-K items. */
export interface FilingRecord extends Omit<FilingRow, "fy" | "fp" | "period" | "amendment_flag"> {
  /** An 8-K's item numbers ("2.02,9.01"), null when none are given; not a snapshot column. */
  items: string | null;
}

export interface SubmissionsFile {
  /** Null for a paged file, which carries filings only. */
  company: CompanyRecord | null;
  filings: FilingRecord[];
  skipped: SkippedRecord[];
  /**
   * The earliest `filingFrom` of the paged files a main file lists (`filings.files`): the date
   * of the company's first filing even when those files are not at hand. Null for a paged file.
   */
  listedFrom: string | null;
}

const PAGED_NAME = /^CIK(\d{10})-submissions-\d+\.json$/i;

/** Parses either kind of submissions file, told apart by its name. */
export function parseSubmissions(text: string, file: string, opts: ParseOptions = {}): SubmissionsFile {
  const json = parseJson(text, file);
  if (!isObject(json)) throw new ImportError(file, null, "expected a JSON object");
  const paged = PAGED_NAME.exec(basename(file));
  if (paged)
    return {
      company: null,
      listedFrom: null,
      ...parseFilingColumns(json, paged[1] as string, file, "", opts),
    };
  const cik = normalizeCik(json.cik);
  if (!cik) throw new ImportError(file, null, `cik ${shown(json.cik)} is not a CIK`);
  const filings = isObject(json.filings) ? json.filings : null;
  if (!filings || !isObject(filings.recent)) throw new ImportError(file, null, "filings.recent is missing");
  const lenient = opts.lenient ?? false;
  const tickers = tickerList(json.tickers, file, lenient);
  const listed = earliestListed(filings.files, file, lenient);
  const parsed = parseFilingColumns(filings.recent, cik, file, "filings.recent.", opts);
  return {
    company: companyRecord(json, cik, tickers.tickers),
    listedFrom: listed.date,
    filings: parsed.filings,
    skipped: [...tickers.skipped, ...listed.skipped, ...parsed.skipped],
  };
}

/**
 * The `tickers` list, each in its place so that the exchanges stay paired: a gap stays null,
 * and so does a bad ticker when lenient (skipped).
 */
function tickerList(list: unknown, file: string, lenient: boolean) {
  const out = new RecordCollector<{ at: number; ticker: string }>(file, lenient);
  const values = positional(list);
  values.forEach((value, at) => {
    if (value !== null) out.add(null, () => ({ at, ticker: readTicker(value, "ticker") }), `tickers[${at}]`);
  });
  const { rows, skipped } = out.result();
  const tickers: (string | null)[] = values.map(() => null);
  for (const { at, ticker } of rows) tickers[at] = ticker;
  return { tickers, skipped };
}

/** The earliest `filingFrom` date of a main file's `filings.files` list (a bad one skipped when lenient). */
function earliestListed(files: unknown, file: string, lenient: boolean) {
  const out = new RecordCollector<string>(file, lenient);
  (Array.isArray(files) ? files : []).forEach((page, i) => {
    const from = isObject(page) ? text(page.filingFrom) : null;
    if (from !== null) out.add(null, () => readDate(from, "filingFrom"), `filings.files[${i}]`);
  });
  const { rows, skipped } = out.result();
  return { date: rows.sort()[0] ?? null, skipped };
}

function companyRecord(json: JsonObject, cik: string, tickers: (string | null)[]): CompanyRecord {
  const addresses = isObject(json.addresses) ? json.addresses : {};
  const business = isObject(addresses.business) ? addresses.business : {};
  return companyFromFields({
    cik,
    name: text(json.name) ?? "",
    entity_type: text(json.entityType),
    sic: text(json.sic),
    sic_description: text(json.sicDescription),
    category: text(json.category),
    fiscal_year_end: text(json.fiscalYearEnd),
    state_of_incorporation: text(json.stateOfIncorporation),
    website: text(json.website),
    investor_website: text(json.investorWebsite),
    description: text(json.description),
    phone: text(json.phone),
    ein: text(json.ein),
    tickers,
    exchanges: positional(json.exchanges),
    business_location: {
      code: text(business.stateOrCountry),
      description: text(business.stateOrCountryDescription),
      foreign: business.isForeignLocation === 1,
    },
  });
}

/** Where a filer's business address is, as EDGAR codes it. */
export interface EdgarLocation {
  /** `stateOrCountry`: two letters for a US state, a letter and a digit for other places. */
  code: string | null;
  /** `stateOrCountryDescription`: the state code again, or a name ("British Columbia, Canada"). */
  description: string | null;
  /** `isForeignLocation`, where the source has it. */
  foreign: boolean;
}

/**
 * A company record from the header fields of a submissions file, whatever file carried them
 * (the submissions JSON, or a table of them: filer-metadata.ts). The country is the business
 * address's.
 */
export function companyFromFields(
  fields: Omit<CompanyRecord, "country_iso" | "country"> & { business_location: EdgarLocation },
): CompanyRecord {
  const { business_location: where, ...company } = fields;
  const usState = !where.foreign && /^[A-Z]{2}$/.test(where.code ?? "");
  return {
    ...company,
    category: filerCategory(company.category),
    country_iso: usState ? "US" : countryIso(where.description),
    country: usState ? "United States" : where.description,
  };
}

/**
 * EDGAR joins a filer's categories with an HTML line break ("Non-accelerated
 * filer<br>Smaller reporting company", or "<br>Emerging growth company" with the first one
 * empty): a comma-separated list of the ones given.
 */
function filerCategory(category: string | null): string | null {
  const parts = (category ?? "")
    .split(/<br\s*\/?>/i)
    .map((p) => p.trim())
    .filter((p) => p !== "");
  return parts.length > 0 ? parts.join(", ") : null;
}

function parseFilingColumns(cols: JsonObject, cik: string, file: string, path: string, opts: ParseOptions) {
  const column = (name: string, required: boolean): unknown[] => {
    const values = cols[name];
    if (Array.isArray(values)) return values;
    if (required) throw new ImportError(file, null, `${path}${name} is missing or not an array`);
    return [];
  };
  const accession = column("accessionNumber", true);
  const form = column("form", true);
  const filingDate = column("filingDate", true);
  const reportDate = column("reportDate", false);
  const accepted = column("acceptanceDateTime", false);
  const primaryDoc = column("primaryDocument", false);
  const primaryDesc = column("primaryDocDescription", false);
  const items = column("items", false);
  if (form.length !== accession.length || filingDate.length !== accession.length) {
    throw new ImportError(file, null, `${path}accessionNumber, form and filingDate differ in length`);
  }
  const out = new RecordCollector<FilingRecord>(file, opts.lenient ?? false);
  for (let i = 0; i < accession.length; i++) {
    out.add(
      null,
      () => {
        const acc = text(accession[i]);
        if (!acc || !isAccessionNumber(acc))
          throw new FieldError(`accessionNumber ${shown(accession[i])} is malformed`);
        const f = text(form[i]);
        if (!f) throw new FieldError("form is empty");
        return {
          cik,
          accession_number: acc,
          form: f,
          filing_date: readDate(text(filingDate[i]) ?? "", "filingDate"),
          report_date: text(reportDate[i]) ? readDate(text(reportDate[i]) as string, "reportDate") : null,
          acceptance_date_time: timestamp(accepted[i]),
          primary_document: text(primaryDoc[i]),
          primary_doc_description: text(primaryDesc[i]),
          items: text(items[i]),
        };
      },
      `${path}[${i}]`,
    );
  }
  const { rows, skipped } = out.result();
  return { filings: rows, skipped };
}

/** An acceptance time that records one (see the module comment: midnight is a placeholder). */
const recordedTime = (iso: string | null): iso is string => iso !== null && !iso.endsWith("T00:00:00.000Z");

/**
 * One filer's filings, from every submissions file of its CIK, with their acceptance times
 * in UTC: converted from New York time when the times were written that way.
 */
export function acceptanceInUtc(filings: FilingRecord[]): void {
  const times = filings.map((f) => f.acceptance_date_time).filter(recordedTime);
  if (!newYorkLabelled(times)) return;
  for (const f of filings) {
    if (recordedTime(f.acceptance_date_time)) f.acceptance_date_time = fromNewYork(f.acceptance_date_time);
  }
}

/** EDGAR's filing hours, New York time, in minutes of the day (06:00 to 22:00, inclusive). */
const OPEN_MINUTE = 6 * 60;
const CLOSE_MINUTE = 22 * 60;
const NEW_YORK = new Intl.DateTimeFormat("en-US", {
  timeZone: "America/New_York",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

/** The New York wall clock at an instant, as if it were UTC (ms). */
function newYorkWallMs(ms: number): number {
  const p = Object.fromEntries(NEW_YORK.formatToParts(ms).map((x) => [x.type, Number(x.value)]));
  return Date.UTC(p.year ?? 0, (p.month ?? 1) - 1, p.day, p.hour, p.minute, p.second);
}

const outsideHours = (minute: number) => minute < OPEN_MINUTE || minute > CLOSE_MINUTE;
const minuteOf = (wallMs: number) => Math.floor((wallMs % 86_400_000) / 60_000);

/** Whether a file's times are New York wall clock labelled UTC (see the module comment). */
function newYorkLabelled(times: readonly string[]): boolean {
  let asUtc = 0;
  let asNewYork = 0;
  for (const t of times) {
    const ms = Date.parse(t);
    if (outsideHours(minuteOf(newYorkWallMs(ms)))) asUtc++;
    if (outsideHours(minuteOf(ms))) asNewYork++;
  }
  return asUtc > 2 * asNewYork;
}

/** The UTC instant of a New York wall-clock time written as UTC. */
function fromNewYork(iso: string): string {
  const wall = Date.parse(iso);
  // The offset at the instant five hours later is the offset of that wall time, except within
  // an hour of a clock change, which falls outside EDGAR's hours.
  const guess = wall + 5 * 3_600_000;
  return new Date(wall + (guess - newYorkWallMs(guess))).toISOString();
}

function text(value: unknown): string | null {
  if (typeof value === "number") return String(value);
  if (typeof value !== "string") return null;
  const t = value.trim();
  return t === "" ? null : t;
}

/** A list's texts in place (null for anything else), so that two lists stay paired. */
function positional(value: unknown): (string | null)[] {
  return Array.isArray(value) ? value.map(text) : [];
}

function timestamp(value: unknown): string | null {
  const t = text(value);
  if (!t) return null;
  const ms = Date.parse(t);
  if (Number.isNaN(ms)) throw new FieldError(`acceptanceDateTime ${shown(t)} is not a timestamp`);
  const iso = new Date(ms).toISOString();
  // A year past 9999 is written with six digits and a sign: out of bounds too.
  const problem = iso.length === 24 ? dateRangeProblem(iso.slice(0, 10), "recorded") : "is out of bounds";
  if (problem !== null) throw new FieldError(`acceptanceDateTime ${shown(t)} ${problem}`);
  return iso;
}
