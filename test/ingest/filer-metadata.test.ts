/**
 * The filer-metadata table (edgar/listed_filer_metadata.csv): small synthetic inputs for every
 * rule, and the real file in STOCKD_FIXTURES (variants/listed_filer_metadata.csv), whose
 * expected values are quoted with their line.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { countryIso } from "../../src/domain/country.ts";
import { parseFilerMetadata } from "../../src/ingest/sources/filer-metadata.ts";
import { FIXTURES } from "../helpers/env.ts";
import { importErrorOf } from "../helpers/import-error.ts";

const HEADER =
  "name,cik,business_stateOrCountry,business_stateOrCountryDescription,category,entityType,exchanges,fiscalYearEnd,phone,sic,sicDescription,stateOfIncorporation,tickers";

function parse(lines: string[], lenient = false) {
  return parseFilerMetadata([HEADER, ...lines].join("\n"), "edgar/listed_filer_metadata.csv", { lenient });
}

describe("filer metadata CSV", () => {
  test("a row becomes a company record: CIK padded, US state → US, lists paired by position", () => {
    const { rows, skipped } = parse([
      `ACME CORP,1750,IL,IL,Large accelerated filer,operating,"['NYSE', None]",531,630-227-2000,3720,Aircraft & Parts,DE,"['ACME', 'ACME-P']"`,
    ]);
    expect(skipped).toEqual([]);
    expect(rows[0]).toMatchObject({
      cik: "0000001750",
      name: "ACME CORP",
      country_iso: "US",
      country: "United States",
      category: "Large accelerated filer",
      entity_type: "operating",
      fiscal_year_end: "0531",
      sic: "3720",
      state_of_incorporation: "DE",
      tickers: ["ACME", "ACME-P"],
      exchanges: ["NYSE", null],
      website: null,
    });
  });

  test("a place outside the US is named by its description; EDGAR's <br> categories become a list; None or nan is no list", () => {
    const { rows } = parse([
      `NORTH CO,2,A1,"British Columbia, Canada",Non-accelerated filer<br>Smaller reporting company,operating,[None],1231,,,,,['NRTH']`,
      `ISLE CO,3,E9,Cayman Islands,<br>Emerging growth company,other,"[""Nasdaq""]",1231,,,,,ISLE`,
      `EMPTY CO,4,NY,NY,,other,None,1231,,,,,nan`,
    ]);
    expect(rows.map((r) => [r.country_iso, r.country, r.category])).toEqual([
      ["CA", "British Columbia, Canada", "Non-accelerated filer, Smaller reporting company"],
      ["KY", "Cayman Islands", "Emerging growth company"],
      ["US", "United States", null],
    ]);
    expect(rows.map((r) => [r.tickers, r.exchanges])).toEqual([
      [["NRTH"], [null]],
      [["ISLE"], ["Nasdaq"]],
      [[], []],
    ]);
  });

  test("bad values fail with file and line; lenient skips and lists them; a repeated CIK keeps the last row", () => {
    const lines = [
      `GOOD,10,NY,NY,,,[],1231,,,,,[]`,
      `BAD CIK,12345678901,NY,NY,,,[],1231,,,,,[]`,
      `BAD YEAR END,11,NY,NY,,,[],1331,,,,,[]`,
      `BAD LIST,12,NY,NY,,,"['NYSE'",1231,,,,,[]`,
      `GOOD AGAIN,10,NY,NY,,,[],0630,,,,,[]`,
    ];
    const strict = importErrorOf(() => parse(lines));
    expect(String(strict)).toBe('edgar/listed_filer_metadata.csv:3: cik "12345678901" is not a CIK');
    const { rows, skipped } = parse(lines, true);
    expect(rows.map((r) => [r.name, r.fiscal_year_end])).toEqual([["GOOD AGAIN", "0630"]]);
    expect(skipped.map((s) => s.line)).toEqual([3, 4, 5, 2]);
    expect(skipped[1]?.reason).toContain('"1331" is not a month and day');
    expect(skipped[2]?.reason).toContain("is not a list");
    expect(skipped[3]?.reason).toContain("duplicate CIK 0000000010");
  });

  test("a file without cik or name fails at its header, even when lenient", () => {
    const error = importErrorOf(() =>
      parseFilerMetadata("name,sic\nX,1234\n", "edgar/listed_filer_metadata.csv", { lenient: true }),
    );
    expect(String(error)).toBe("edgar/listed_filer_metadata.csv:1: missing required column cik");
  });
});

describe("countryIso", () => {
  test("a country's name, the part before a comma, or a province's country after it", () => {
    expect(countryIso("Taiwan, Province of China")).toBe("TW");
    expect(countryIso("British Columbia, Canada")).toBe("CA");
    expect(countryIso("Korea, Republic of")).toBe("KR");
    expect(countryIso("Atlantis")).toBeNull();
  });
});

describe.skipIf(!FIXTURES)("the real listed-filer metadata (STOCKD_FIXTURES)", () => {
  const file = "variants/listed_filer_metadata.csv";
  // Read in beforeAll: a skipped describe's body still runs, and without the fixtures there is no file.
  let text = "";
  let parsed: ReturnType<typeof parseFilerMetadata> = { rows: [], skipped: [] };
  let byCik = new Map<string, (typeof parsed.rows)[number]>();
  beforeAll(() => {
    text = readFileSync(join(FIXTURES ?? "", file), "utf8");
    parsed = parseFilerMetadata(text, file);
    byCik = new Map(parsed.rows.map((r) => [r.cik, r]));
  });

  test("every row parses strictly, one company per CIK", () => {
    const dataLines = text.split("\n").filter((l) => l.trim() !== "").length - 1;
    expect(parsed.skipped).toEqual([]);
    expect(parsed.rows.length).toBe(dataLines);
    expect(byCik.size).toBe(parsed.rows.length);
  });

  test("line 3: Abbott Laboratories", () => {
    // ABBOTT LABORATORIES,0000001800,...,ABBOTT PARK,IL,IL,...,Large accelerated filer,,360698440,
    // operating,['NYSE'],1231,...,2246676100,2834,Pharmaceutical Preparations,IL,IL,['ABT']
    expect(byCik.get("0000001800")).toMatchObject({
      name: "ABBOTT LABORATORIES",
      country_iso: "US",
      category: "Large accelerated filer",
      fiscal_year_end: "1231",
      phone: "2246676100",
      sic: "2834",
      sic_description: "Pharmaceutical Preparations",
      state_of_incorporation: "IL",
      tickers: ["ABT"],
      exchanges: ["NYSE"],
    });
  });

  test("line 868: a gap in the exchanges keeps CFNBD on OTC", () => {
    // CALIFORNIA FIRST LEASING CORP,0000803016,...,"[None, 'OTC']",0630,...,"['CFNB', 'CFNBD']"
    const row = byCik.get("0000803016");
    expect(row?.tickers).toEqual(["CFNB", "CFNBD"]);
    expect(row?.exchanges).toEqual([null, "OTC"]);
    expect(row?.fiscal_year_end).toBe("0630");
  });

  test("Taiwan Semiconductor has no business state or country: no country", () => {
    // TAIWAN SEMICONDUCTOR MANUFACTURING CO LTD,0001046179,1998-02-11,HSINCHU,,,...
    expect(byCik.get("0001046179")).toMatchObject({
      country_iso: null,
      country: null,
      tickers: ["TSM", "TSMWF"],
    });
  });
});
