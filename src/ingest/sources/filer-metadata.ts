/**
 * A table of filer metadata, `edgar/listed_filer_metadata.csv`: the company header fields of
 * SEC submissions files (name, SIC, fiscal year end, state of incorporation, business
 * address, phone, category, tickers, exchanges), one row per filer, flattened with
 * `business_`/`mailing_` prefixes (datamule's listed-filer metadata, ~8,000 listed filers).
 * It gives a profile to every listed company whose own submissions file is not imported; where
 * that file is imported, the file wins.
 *
 * Columns (header required, any order, case-insensitive; others are ignored): `cik` and `name`
 * required; `sic`, `sicDescription`, `fiscalYearEnd` (MMDD), `stateOfIncorporation`,
 * `entityType`, `category`, `description`, `phone`, `ein`, `website`, `investorWebsite`,
 * `business_stateOrCountry`, `business_stateOrCountryDescription`, and `tickers` and
 * `exchanges` as lists (`['BRK-B', 'BRK-A']`, `["AAPL"]`, or one bare value), paired by
 * position as in the submissions file; each ticker must be one (`readTicker`). A CIK listed
 * twice keeps its last row.
 */

import { normalizeCik } from "../../domain/tickers.ts";
import { ImportError } from "../errors.ts";
import { readCsv } from "./csv.ts";
import { fieldsFromCsv, mapColumns } from "./fields.ts";
import { type CompanyRecord, companyFromFields } from "./submissions.ts";
import {
  FieldError,
  type ParseOptions,
  type ParseResult,
  RecordCollector,
  readTicker,
  shown,
} from "./value-readers.ts";

const ALIASES = {
  cik: ["cik", "cik_str"],
  name: ["name", "title", "company_name"],
  sic: ["sic"],
  sic_description: ["sicdescription", "sic_description"],
  fiscal_year_end: ["fiscalyearend", "fiscal_year_end"],
  state_of_incorporation: ["stateofincorporation", "state_of_incorporation"],
  entity_type: ["entitytype", "entity_type"],
  category: ["category"],
  description: ["description"],
  phone: ["phone"],
  ein: ["ein"],
  website: ["website"],
  investor_website: ["investorwebsite", "investor_website"],
  business_code: ["business_stateorcountry"],
  business_description: ["business_stateorcountrydescription"],
  tickers: ["tickers"],
  exchanges: ["exchanges"],
} as const;

/** An item of a list cell: quoted text, or Python's `None` / JSON's `null` for a gap. */
const ITEM = `(?:'[^']*'|"[^"]*"|None|null)`;
/** `['A', 'B']` (Python's list repr, as the table is written), `["A", null]`, `[]`. */
const LIST = new RegExp(String.raw`^\[\s*(?:${ITEM}(?:\s*,\s*${ITEM})*)?\s*\]$`);
const ITEMS = /'([^']*)'|"([^"]*)"|None|null/g;
/** One bare value stands for a list of one. */
const BARE = /^[^\s,[\]'"]+$/;
const MMDD = /^(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/;

/** Parses one filer-metadata CSV (see the module comment). */
export function parseFilerMetadata(
  text: string,
  file: string,
  opts: ParseOptions = {},
): ParseResult<CompanyRecord> {
  const table = readCsv(text, file);
  const map = mapColumns(table, ALIASES);
  const missing = (["cik", "name"] as const).filter((f) => map[f] === -1);
  if (missing.length > 0) {
    throw new ImportError(file, table.headerLine, `missing required column ${missing.join(", ")}`);
  }
  const out = new RecordCollector<CompanyRecord>(file, opts.lenient === true);
  for (const record of table.records) {
    out.add(record.line, () => {
      const f = fieldsFromCsv(record, table, map);
      const value = (field: keyof typeof ALIASES) => {
        const cell = f.get(field)?.trim();
        return cell ? cell : null;
      };
      const cik = normalizeCik(value("cik") ?? "");
      if (!cik) throw new FieldError(`${f.label("cik")} ${shown(f.get("cik"))} is not a CIK`);
      const name = value("name");
      if (!name) throw new FieldError(`${f.label("name")} is empty`);
      const sic = value("sic");
      if (sic !== null && !/^\d{1,4}$/.test(sic))
        throw new FieldError(`${f.label("sic")} ${shown(sic)} is not a SIC code`);
      return companyFromFields({
        cik,
        name,
        entity_type: value("entity_type"),
        sic,
        sic_description: value("sic_description"),
        category: value("category"),
        fiscal_year_end: monthDay(value("fiscal_year_end"), f.label("fiscal_year_end")),
        state_of_incorporation: value("state_of_incorporation"),
        website: value("website"),
        investor_website: value("investor_website"),
        description: value("description"),
        phone: value("phone"),
        ein: value("ein"),
        tickers: list(value("tickers"), f.label("tickers")).map(
          (t) => t && readTicker(t, f.label("tickers")),
        ),
        exchanges: list(value("exchanges"), f.label("exchanges")),
        // No isForeignLocation column: EDGAR's codes for places outside the US hold a digit.
        business_location: {
          code: value("business_code"),
          description: value("business_description"),
          foreign: false,
        },
      });
    });
  }
  return out.resultKeepingLast(
    (row) => row.cik,
    (row) => `CIK ${row.cik}`,
  );
}

/** A fiscal year end as SEC writes it (MMDD); a spreadsheet's `926` is `0926`. */
function monthDay(value: string | null, column: string): string | null {
  if (value === null) return null;
  const padded = value.padStart(4, "0");
  if (!MMDD.test(padded)) throw new FieldError(`${column} ${shown(value)} is not a month and day (MMDD)`);
  return padded;
}

/** A list cell's items in order; a gap (`None`) stays in its place, so the lists pair up. */
function list(value: string | null, column: string): (string | null)[] {
  if (value === null || /^(none|null|nan)$/i.test(value)) return [];
  if (BARE.test(value)) return [value];
  if (!LIST.test(value)) throw new FieldError(`${column} ${shown(value)} is not a list like ['AAPL']`);
  return [...value.matchAll(ITEMS)].map((m) => (m[1] ?? m[2] ?? "").trim() || null);
}
