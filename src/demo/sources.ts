import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type DemoCompany, rng } from "./universe.ts";

/** Weekdays from `start` through `end` (YYYY-MM-DD); holidays are not modelled. */
export function tradingDays(start: string, end: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(start); t <= Date.parse(end); t += 86_400_000) {
    const day = new Date(t).getUTCDay();
    if (day !== 0 && day !== 6) days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

/** Writes `text` to `path`, creating its directory. */
export function write(path: string, text: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
}

/** `edgar/company_tickers_exchange.json` in the SEC's layout. */
export function writeTickers(dir: string, companies: DemoCompany[]): void {
  const data = companies.flatMap((c) => c.tickers.map((t) => [Number(c.cik), c.name, t, c.exchange]));
  write(
    join(dir, "edgar", "company_tickers_exchange.json"),
    JSON.stringify({ fields: ["cik", "name", "ticker", "exchange"], data }),
  );
}

/** Daily prices as a Yahoo-style CSV: a geometric random walk with the company's drift and volatility. */
export function writePrices(dir: string, company: DemoCompany, days: string[]): Map<string, number> {
  const random = rng(company.seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const dt = 1 / 252;
  let close = company.startPrice;
  const closes = new Map<string, number>();
  const lines = ["Date,Open,High,Low,Close,Adj Close,Volume"];
  for (const day of days) {
    const open = close * (1 + gauss() * 0.004);
    close =
      close *
      Math.exp(
        (company.drift - company.volatility ** 2 / 2) * dt + company.volatility * Math.sqrt(dt) * gauss(),
      );
    const high = Math.max(open, close) * (1 + random() * 0.01);
    const low = Math.min(open, close) * (1 - random() * 0.01);
    const volume = Math.round((company.sharesOutstanding / 200) * (0.5 + random()));
    const r = (x: number) => x.toFixed(4);
    lines.push(`${day},${r(open)},${r(high)},${r(low)},${r(close)},${r(close)},${volume}`);
    closes.set(day, Number(r(close)));
  }
  for (const ticker of company.tickers) write(join(dir, "prices", `${ticker}.csv`), `${lines.join("\n")}\n`);
  return closes;
}

/** An OpenFIGI `/mapping` response for the universe, with fictional identifiers. */
export function writeFigi(dir: string, companies: DemoCompany[]): void {
  const jobs = companies.flatMap((c, i) =>
    c.tickers.map((ticker, j) => {
      const id = (n: number) => `BBG0DEMO${String(n).padStart(4, "0")}`;
      return {
        data: [
          {
            figi: id(i * 10 + j),
            name: c.name.toUpperCase(),
            ticker,
            exchCode: "US",
            compositeFIGI: id(i * 10 + j),
            securityType: "Common Stock",
            marketSector: "Equity",
            shareClassFIGI: id(5000 + i * 10 + j),
            securityType2: "Common Stock",
          },
        ],
      };
    }),
  );
  write(join(dir, "figi", "openfigi-mapping.json"), JSON.stringify(jobs));
}

export interface DemoFiling {
  accessionNumber: string;
  filingDate: string;
  reportDate: string;
  form: string;
  primaryDocument: string;
  description: string;
}

/** `edgar/submissions/CIK##########.json`: company facts and its filings, newest first. */
export function writeSubmissions(dir: string, company: DemoCompany, filings: DemoFiling[]): void {
  const sorted = [...filings].sort((a, b) => b.filingDate.localeCompare(a.filingDate));
  const col = <K extends keyof DemoFiling>(k: K) => sorted.map((f) => f[k]);
  const address = {
    street1: "1 Demo Way",
    street2: null,
    city: "DEMOVILLE",
    stateOrCountry: company.state,
    zipCode: "00000",
    stateOrCountryDescription: company.state,
    isForeignLocation: 0,
  };
  const doc = {
    cik: company.cik,
    entityType: "operating",
    sic: company.sic,
    sicDescription: company.sicDescription,
    name: company.name,
    tickers: company.tickers,
    exchanges: company.tickers.map(() => company.exchange),
    ein: "000000000",
    description: `${company.name} is a fictional company in the stockd demo data set.`,
    website: `https://${company.tickers[0]?.toLowerCase().replace(/[^a-z]/g, "")}.demo.invalid`,
    investorWebsite: "",
    category: "Large accelerated filer",
    fiscalYearEnd: company.fiscalYearEnd,
    stateOfIncorporation: "DE",
    addresses: { mailing: address, business: address },
    phone: "555-0100",
    filings: {
      recent: {
        accessionNumber: col("accessionNumber"),
        filingDate: col("filingDate"),
        reportDate: col("reportDate"),
        acceptanceDateTime: sorted.map((f) => `${f.filingDate}T21:05:00.000Z`),
        form: col("form"),
        primaryDocument: col("primaryDocument"),
        primaryDocDescription: col("description"),
      },
      files: [],
    },
  };
  write(join(dir, "edgar", "submissions", `CIK${company.cik}.json`), JSON.stringify(doc));
}
