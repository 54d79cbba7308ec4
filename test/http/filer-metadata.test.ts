/**
 * Profiles from the filer-metadata table: variants/listed_filer_metadata.csv imported as
 * edgar/listed_filer_metadata.csv, next to the SEC ticker lists and one submissions file
 * (Alzamend Neuro, ALZN). A listed company without a submissions file gets its profile from
 * the table; one with a submissions file keeps the file's. Expected values are quoted from the
 * table's lines and the submissions file. The table's SIC code also decides which company is a
 * REIT, whose statements then carry funds from operations: Realty Income (O) and Abbott (ABT)
 * get the same synthetic companyfacts file (no real one of theirs is among the fixtures).
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, fixtureSources } from "../helpers/env.ts";
import type { Json } from "../helpers/raw-sources.ts";
import { serverOverImport } from "../helpers/server.ts";
import { type SyntheticFact, syntheticFactsJson } from "../helpers/synthetic-companyfacts.ts";

const root = FIXTURES ?? "";

/** One year of a REIT's figures (synthetic): net income, D&A, a property sale gain, an impairment. */
const FY2023: SyntheticFact[] = [
  ["NetIncomeLoss", 872_000],
  ["Revenues", 4_079_000],
  ["DepreciationDepletionAndAmortization", 1_895_000],
  ["GainsLossesOnSalesOfInvestmentRealEstate", 26_000],
  ["ImpairmentOfRealEstate", 88_000],
].map(([concept, val]) => ({
  concept: concept as string,
  start: "2023-01-01",
  end: "2023-12-31",
  val: val as number,
}));

function sources(): string {
  const dir = fixtureSources("stockd-filer-metadata-", {
    "edgar/company_tickers.json": "edgar/company_tickers.json",
    "edgar/company_tickers_exchange.json": "edgar/company_tickers_exchange.json",
    "edgar/submissions/CIK0001677077.json": "edgar/submissions/CIK0001677077.json",
    "edgar/listed_filer_metadata.csv": "variants/listed_filer_metadata.csv",
  });
  mkdirSync(join(dir, "edgar/companyfacts"));
  for (const cik of ["0000726728", "0000001800"])
    writeFileSync(
      join(dir, `edgar/companyfacts/CIK${cik}.json`),
      JSON.stringify(syntheticFactsJson(FY2023, cik)),
    );
  return dir;
}

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

  test("O, a REIT by the table's SIC code (6798), has funds from operations; ABT (2834) has none", async () => {
    // line 543: REALTY INCOME CORP,0000726728,...,6798,Real Estate Investment Trusts,MD,MD,['O']
    expect((await profile("O")).general).toMatchObject({ sic: "6798", industry_template: "reit" });
    const cashFlow = async (symbol: string) =>
      (
        await fixtures.get<{ periods: { cash_flow_statement: Json }[] }>(
          `/stocks/${symbol}/cash-flow-statement`,
        )
      ).periods[0]?.cash_flow_statement;
    expect(await cashFlow("O")).toMatchObject({ ffo: 872_000 + 1_895_000 + 88_000 - 26_000 });
    expect(await cashFlow("ABT")).toMatchObject({
      ffo: null,
      cash_flow_depreciation_depletion_amortization: 1_895_000,
    });
  });
});
