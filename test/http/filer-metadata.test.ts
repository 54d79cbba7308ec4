/**
 * Profiles from the filer-metadata table: variants/listed_filer_metadata.csv imported as
 * edgar/listed_filer_metadata.csv, next to the SEC ticker lists and one submissions file
 * (Alzamend Neuro, ALZN). A listed company without a submissions file gets its profile from
 * the table; one with a submissions file keeps the file's. Expected values are quoted from the
 * table's lines and the submissions file.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, linkedFixtures } from "../helpers/env.ts";
import { type Json, serverOverImport } from "./endpoint-helpers.ts";

const root = FIXTURES ?? "";

const sources = () =>
  linkedFixtures("stockd-filer-metadata-", {
    "edgar/company_tickers.json": "edgar/company_tickers.json",
    "edgar/company_tickers_exchange.json": "edgar/company_tickers_exchange.json",
    "edgar/submissions/CIK0001677077.json": "edgar/submissions/CIK0001677077.json",
    "edgar/listed_filer_metadata.csv": "variants/listed_filer_metadata.csv",
  });

describe.skipIf(!FIXTURES)("profiles from the listed-filer metadata table (STOCKD_FIXTURES)", () => {
  const fixtures = serverOverImport(FIXTURES ? sources() : "");
  const profile = (symbol: string) =>
    fixtures.get<{ identity: Json; general: Json }>(`/stocks/${symbol}/profile`);

  test("ABT, with no submissions file, gets the table's line 3", async () => {
    // ABBOTT LABORATORIES,0000001800,1994-02-14,ABBOTT PARK,IL,IL,...,Large accelerated filer,,
    // 360698440,operating,['NYSE'],1231,...,2246676100,2834,Pharmaceutical Preparations,IL,IL,['ABT']
    const { identity, general } = await profile("ABT");
    expect(identity).toMatchObject({
      cik: "0000001800",
      exchange: "NYSE",
      company_name: "ABBOTT LABORATORIES",
    });
    expect(general).toMatchObject({
      country_iso: "US",
      company_country: "United States",
      sic: "2834",
      sic_description: "Pharmaceutical Preparations",
      fiscal_year_end: "1231",
      state_of_incorporation: "IL",
      entity_type: "operating",
      filer_category: "Large accelerated filer",
      phone: "2246676100",
      first_filing_date: null,
    });
  });

  test("SHOP: a Canadian province names the country; the fiscal year end is the table's", async () => {
    // line 5593: SHOPIFY INC.,0001594805,...,OTTAWA,A6,"Ontario, Canada",...,7372,
    // Services-Prepackaged Software,Z4,Canada (Federal Level),['SHOP']
    const { general } = await profile("SHOP");
    expect(general).toMatchObject({
      country_iso: "CA",
      company_country: "Ontario, Canada",
      sic: "7372",
      fiscal_year_end: "1231",
    });
  });

  test("ALZN keeps its submissions file's record over the table's row", async () => {
    const file = JSON.parse(readFileSync(join(root, "edgar/submissions/CIK0001677077.json"), "utf8")) as {
      category: string;
      phone: string;
      filings: { recent: { filingDate: string[] } };
    };
    // The table (line 5932) says "Non-accelerated filer<br>Smaller reporting company".
    expect(file.category).toBe("<br>Emerging growth company");
    const { general } = await profile("ALZN");
    expect(general.filer_category).toBe("Emerging growth company");
    expect(general.phone).toBe(file.phone);
    expect(general.first_filing_date).toBe([...file.filings.recent.filingDate].sort()[0] as string);
  });
});
