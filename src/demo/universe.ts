/**
 * The demo universe: a deterministic, clearly fictional set of companies (names say "Demo",
 * CIKs lie above any the SEC has issued). Everything derives from one seeded generator, so
 * the same day always yields the same files.
 */

/** mulberry32: small, fast, deterministic. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface DemoCompany {
  cik: string;
  name: string;
  tickers: string[];
  exchange: "Nasdaq" | "NYSE";
  sic: string;
  sicDescription: string;
  /** MMDD of the fiscal year end, as SEC writes it. */
  fiscalYearEnd: string;
  state: string;
  startPrice: number;
  drift: number;
  volatility: number;
  sharesOutstanding: number;
  /** Quarterly dividend per share at the start, or 0. */
  dividend: number;
  seed: number;
}

const NAMES = [
  ["Demo Widgets Corp", "DWGT", "3571", "Electronic Computers"],
  ["Demo Cloud Systems Inc", "DCLD", "7372", "Services-Prepackaged Software"],
  ["Demo Semiconductor Holdings", "DSEM", "3674", "Semiconductors & Related Devices"],
  ["Demo Motors Inc", "DMTR", "3711", "Motor Vehicles & Passenger Car Bodies"],
  ["Demo Energy Partners", "DNRG", "2911", "Petroleum Refining"],
  ["Demo National Bank Corp", "DBNK", "6021", "National Commercial Banks"],
  ["Demo Mutual Insurance Group", "DINS", "6331", "Fire, Marine & Casualty Insurance"],
  ["Demo Realty Trust", "DRLT", "6798", "Real Estate Investment Trusts"],
  ["Demo Pharma Labs", "DPHR", "2834", "Pharmaceutical Preparations"],
  ["Demo Retail Stores Inc", "DRTL", "5331", "Retail-Variety Stores"],
  ["Demo Beverage Co", "DBEV", "2080", "Beverages"],
  ["Demo Aerospace Corp", "DAER", "3720", "Aircraft & Parts"],
  ["Demo Telecom Networks", "DTEL", "4813", "Telephone Communications"],
  ["Demo Foods International", "DFOO", "2000", "Food and Kindred Products"],
  ["Demo Medical Devices Inc", "DMED", "3841", "Surgical & Medical Instruments"],
  ["Demo Logistics Group", "DLOG", "4213", "Trucking (No Local)"],
  ["Demo Utilities Holding", "DUTL", "4911", "Electric Services"],
  ["Demo Gaming Studios", "DGAM", "7372", "Services-Prepackaged Software"],
  ["Demo Chemicals Corp", "DCHM", "2800", "Chemicals & Allied Products"],
  ["Demo Apparel Brands", "DAPP", "2300", "Apparel & Other Finished Prods"],
  ["Demo Biotech Ventures", "DBIO", "2836", "Biological Products"],
  ["Demo Steel Works", "DSTL", "3312", "Steel Works, Blast Furnaces"],
  ["Demo Payments Inc", "DPAY", "7389", "Services-Business Services, NEC"],
  ["Demo Solar Power Co", "DSUN", "3674", "Semiconductors & Related Devices"],
  ["Demo Media Holdings", "DMDA", "4841", "Cable & Other Pay Television Services"],
  ["Demo Homebuilders Inc", "DHOM", "1531", "Operative Builders"],
  ["Demo Robotics Corp", "DROB", "3559", "Special Industry Machinery"],
  ["Demo Airlines Group", "DAIR", "4512", "Air Transportation, Scheduled"],
] as const;

/** Fiscal year ends used across the universe: December, late September, January, June. */
const FISCAL_YEAR_ENDS = ["1231", "1231", "0930", "0131", "0630", "1231"];
const STATES = ["DE", "CA", "NY", "TX", "WA", "NV"];

/** The demo companies. The last one has two share classes (DHLD-A and DHLD-B). */
export function demoCompanies(): DemoCompany[] {
  const random = rng(20_240_101);
  const companies: DemoCompany[] = NAMES.map(([name, ticker, sic, sicDescription], i) => ({
    cik: String(99_000_001 + i).padStart(10, "0"),
    name,
    tickers: [ticker],
    exchange: i % 3 === 0 ? "NYSE" : "Nasdaq",
    sic,
    sicDescription,
    fiscalYearEnd: FISCAL_YEAR_ENDS[i % FISCAL_YEAR_ENDS.length] as string,
    state: STATES[i % STATES.length] as string,
    startPrice: 10 + Math.round(random() * 190),
    drift: 0.02 + random() * 0.12,
    volatility: 0.18 + random() * 0.3,
    sharesOutstanding: Math.round((50 + random() * 2000) * 1e6),
    dividend: i % 3 === 1 ? 0 : Math.round(random() * 60) / 100,
    seed: 1000 + i,
  }));
  companies.push({
    cik: String(99_000_001 + NAMES.length).padStart(10, "0"),
    name: "Demo Holdings Group",
    tickers: ["DHLD-A", "DHLD-B"],
    exchange: "NYSE",
    sic: "6719",
    sicDescription: "Offices of Holding Companies, NEC",
    fiscalYearEnd: "1231",
    state: "NE",
    startPrice: 120,
    drift: 0.09,
    volatility: 0.16,
    sharesOutstanding: 1_400_000_000,
    dividend: 0,
    seed: 2000,
  });
  return companies;
}
