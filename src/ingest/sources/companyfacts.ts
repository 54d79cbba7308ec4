/**
 * SEC XBRL "companyfacts" files (`edgar/companyfacts/CIK##########.json`, the format of
 * https://data.sec.gov/api/xbrl/companyfacts/): every non-dimensional numeric fact a company
 * filed, grouped as `facts.{taxonomy}.{Concept}.units.{UNIT}[]`, each fact carrying its own
 * period (`start?`, `end`) and the filing that carried it (`accn`, `fy`, `fp`, `form`, `filed`).
 *
 * Dates are `YYYY-MM-DD`, real calendar dates from 1900 to a week from today (`isoDateProblem`):
 * a filing neither reports nor is filed later than that.
 *
 * Parsing only validates and reshapes; turning facts into statements is
 * `ingest/rules/statements.ts`. Facts are kept in Maps so that a concept named like an
 * Object.prototype member can never be confused with a missing one.
 */
import { normalizeCik } from "../../domain/tickers.ts";
import { ImportError } from "../errors.ts";
import { isObject, isoDateProblem, type JsonObject, latestDate, shown } from "./value-readers.ts";

/** One reported value, exactly as the SEC lists it (dates `YYYY-MM-DD`). */
export interface XbrlFact {
  /** Null for an instant (balance-sheet) fact. */
  start: string | null;
  end: string;
  val: number;
  /** Accession number of the filing that carried the fact. */
  accn: string;
  /** Fiscal year and period (FY, Q1..Q4) of the carrying filing, not of the fact. */
  fy: number | null;
  fp: string | null;
  form: string;
  filed: string;
  frame: string | null;
}

/** One fact as a companyfacts file holds it: the SEC's JSON, before validation (no null dates or frames: absent). */
export type SecFact = Omit<XbrlFact, "start" | "frame"> & { start?: string; frame?: string };

/** A companyfacts file as the SEC writes it (what `parseCompanyFacts` reads). */
export interface SecCompanyFacts {
  facts: Record<
    string,
    Record<string, { label?: string; description?: string; units: Record<string, SecFact[]> }>
  >;
}

/** Facts of one concept by unit (`USD`, `USD/shares`, `shares`, `TWD`, ...). */
export type UnitFacts = Map<string, XbrlFact[]>;

/**
 * Cover-page data of one filing. The SEC API lists numeric facts only, so real files never
 * carry these; they are read when a file does (e.g. one assembled from the filings' XBRL).
 */
export interface DocumentInfo {
  periodEndDate: string | null;
  amendmentFlag: boolean | null;
}

/** A parsed companyfacts file. */
export interface CompanyFacts {
  /** Ten digits, zero-padded. */
  cik: string;
  entityName: string;
  /** taxonomy (`us-gaap`, `ifrs-full`, `dei`, ...) → concept → unit → facts. */
  facts: Map<string, Map<string, UnitFacts>>;
  /** dei:DocumentPeriodEndDate / dei:AmendmentFlag by accession number, when present. */
  documents: Map<string, DocumentInfo>;
}

const DOCUMENT_CONCEPTS = new Set(["DocumentPeriodEndDate", "AmendmentFlag"]);

/** A located problem inside the file; turned into an ImportError naming the file. */
class FactError extends Error {}

/**
 * Validates a decoded companyfacts JSON document and returns its facts. Throws
 * `ImportError(file, null, message)` naming the offending path when the structure is wrong.
 * `cik` may be a number or a zero-padded string; it is normalised to ten digits.
 */
export function parseCompanyFacts(json: unknown, file: string): CompanyFacts {
  if (!isObject(json)) throw new ImportError(file, null, "expected a JSON object");
  const cik = normalizeCik(json.cik);
  if (cik === null) throw new ImportError(file, null, `cik ${shown(json.cik)} is not a CIK`);
  const entityName = typeof json.entityName === "string" ? json.entityName : "";
  // A company that never filed XBRL has `"facts": {}`; an absent `facts` is a broken file.
  if (!isObject(json.facts)) throw new ImportError(file, null, "facts is missing or not an object");
  const result: CompanyFacts = { cik, entityName, facts: new Map(), documents: new Map() };
  const latest = latestDate("recorded");
  for (const [taxonomy, concepts] of Object.entries(json.facts)) {
    const path = `facts.${taxonomy}`;
    if (!isObject(concepts)) throw new ImportError(file, null, `${path} is not an object`);
    try {
      result.facts.set(taxonomy, parseTaxonomy(taxonomy, concepts, path, result.documents, latest));
    } catch (err) {
      if (err instanceof FactError) throw new ImportError(file, null, err.message);
      throw err;
    }
  }
  return result;
}

function parseTaxonomy(
  taxonomy: string,
  concepts: JsonObject,
  path: string,
  documents: Map<string, DocumentInfo>,
  latest: string,
): Map<string, UnitFacts> {
  const out = new Map<string, UnitFacts>();
  for (const [concept, body] of Object.entries(concepts)) {
    const conceptPath = `${path}.${concept}`;
    if (!isObject(body) || !isObject(body.units)) throw new FactError(`${conceptPath}.units is missing`);
    if (taxonomy === "dei" && DOCUMENT_CONCEPTS.has(concept)) {
      readDocumentFacts(concept, body.units, `${conceptPath}.units`, documents, latest);
      continue;
    }
    const units: UnitFacts = new Map();
    for (const [unit, list] of Object.entries(body.units)) {
      const unitPath = `${conceptPath}.units.${unit}`;
      if (!Array.isArray(list)) throw new FactError(`${unitPath} is not an array`);
      units.set(
        unit,
        list.map((raw, i) => parseFact(raw, `${unitPath}[${i}]`, latest)),
      );
    }
    out.set(concept, units);
  }
  return out;
}

/** One fact; `latest` is the latest date it may carry (see the module comment). */
function parseFact(raw: unknown, path: string, latest: string): XbrlFact {
  if (!isObject(raw)) throw new FactError(`${path} is not an object`);
  const val = raw.val;
  if (typeof val !== "number" || !Number.isFinite(val)) throw new FactError(`${path}.val is not a number`);
  const fy = raw.fy ?? null;
  if (fy !== null && !Number.isInteger(fy)) throw new FactError(`${path}.fy is not a year`);
  return {
    start: raw.start === undefined || raw.start === null ? null : dateOf(raw.start, `${path}.start`, latest),
    end: dateOf(raw.end, `${path}.end`, latest),
    val,
    accn: textOf(raw.accn, `${path}.accn`),
    fy: fy as number | null,
    fp: optionalText(raw.fp, `${path}.fp`),
    form: textOf(raw.form, `${path}.form`),
    filed: dateOf(raw.filed, `${path}.filed`, latest),
    frame: optionalText(raw.frame, `${path}.frame`),
  };
}

/** dei:DocumentPeriodEndDate (a date) and dei:AmendmentFlag (a boolean), keyed by accession. */
function readDocumentFacts(
  concept: string,
  units: JsonObject,
  path: string,
  documents: Map<string, DocumentInfo>,
  latest: string,
): void {
  for (const [unit, list] of Object.entries(units)) {
    if (!Array.isArray(list)) throw new FactError(`${path}.${unit} is not an array`);
    for (const [i, raw] of list.entries()) {
      const at = `${path}.${unit}[${i}]`;
      if (!isObject(raw)) throw new FactError(`${at} is not an object`);
      const accn = textOf(raw.accn, `${at}.accn`);
      const info = documents.get(accn) ?? { periodEndDate: null, amendmentFlag: null };
      if (concept === "AmendmentFlag") info.amendmentFlag = raw.val === true || raw.val === "true";
      else info.periodEndDate = dateOf(raw.val, `${at}.val`, latest);
      documents.set(accn, info);
    }
  }
}

function dateOf(value: unknown, path: string, latest: string): string {
  const problem =
    typeof value === "string" ? isoDateProblem(value, latest) : `${shown(value)} is not a date (YYYY-MM-DD)`;
  if (problem !== null) throw new FactError(`${path} ${problem}`);
  return value as string;
}

function textOf(value: unknown, path: string): string {
  if (typeof value !== "string" || value === "") throw new FactError(`${path} is missing`);
  return value;
}

function optionalText(value: unknown, path: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw new FactError(`${path} is not a string`);
  return value;
}
