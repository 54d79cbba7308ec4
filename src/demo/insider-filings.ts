/**
 * Insider filings (SEC Form 4) of a few demo companies from 2022 on: each company has a chief
 * executive (officer and director), a chief financial officer, an outside director and a
 * 10% owner (a fund). Per calendar quarter, after the earnings release, some of them trade:
 * the CEO sells under a 10b5-1 plan (sometimes after exercising options: codes M, S), the
 * CFO sells and has shares withheld for tax (S, F), the director buys (P), the fund buys or
 * sells blocks (P, S). Each March the CEO receives a stock award (A), a filing without any
 * P or S row. One filing of DWGT's CFO over-states the shares sold
 * tenfold and is replaced by a 4/A three weeks later.
 */
import { join } from "node:path";
import { addDays } from "../domain/dates.ts";
import { type Insider, type OwnershipDoc, renderOwnershipXml, type Trade } from "./ownership-xml.ts";
import { weekdayOnOrAfter } from "./periods.ts";
import type { PriceSeries } from "./price-series.ts";
import { type DemoFiling, write } from "./sources.ts";
import { type DemoCompany, rng } from "./universe.ts";

/** Companies whose insiders file; the first one also has the amended filing. */
const FORM4_TICKERS: readonly string[] = ["DWGT", "DCLD", "DBNK", "DPHR"];
const FIRST_TRADE_YEAR = 2022;
const AMENDED_AFTER = "2022-01-01";

const FIRST_NAMES = ["Avery", "Jordan", "Riley", "Morgan", "Casey", "Quinn", "Taylor", "Rowan"];
const LAST_NAMES = [
  "Example",
  "Sample",
  "Placeholder",
  "Mockridge",
  "Testa",
  "Demoulin",
  "Fictor",
  "Dummett",
];
const FUNDS = ["Northwind", "Bluefield", "Granite", "Harbor", "Summit", "Maple"];

/** Holdings at the start, as fractions of the shares outstanding: CEO, CFO, director, fund. */
const STAKES = [0.004, 0.0006, 0.0002, 0.11] as const;

function insidersOf(index: number, shares: number): Insider[] {
  const person = (k: number) =>
    `${LAST_NAMES[(index * 3 + k) % LAST_NAMES.length]} ${FIRST_NAMES[(index + k * 5) % FIRST_NAMES.length]} ${"ABCD"[k]}.`;
  const base = (k: 0 | 1 | 2 | 3) => ({
    cik: String(99_100_001 + index * 10 + k).padStart(10, "0"),
    name: person(k),
    director: false,
    officer: false,
    tenPercent: false,
    title: null,
    holdings: Math.round((shares * STAKES[k]) / 100) * 100,
  });
  return [
    { ...base(0), director: true, officer: true, title: "Chief Executive Officer" },
    { ...base(1), officer: true, title: "Chief Financial Officer" },
    { ...base(2), director: true },
    { ...base(3), name: `${FUNDS[index % FUNDS.length]} Demo Capital LP`, tenPercent: true },
  ];
}

/** A filing before its accession number is known. */
type Draft = Omit<OwnershipDoc, "accession" | "signatureDate" | "periodOfReport" | "originalSubmission">;

interface Schedule {
  company: DemoCompany;
  prices: PriceSeries;
  random: () => number;
  drafts: Draft[];
}

/** Adds a filing of `owner` with the given transactions; shares owned after each are tracked. */
function file(s: Schedule, owner: Insider, rows: Omit<Trade, "after">[], extra: Partial<Draft> = {}): void {
  const trades = rows.map((row) => {
    owner.holdings += row.direction === "A" ? row.shares : -row.shares;
    return { ...row, after: owner.holdings };
  });
  s.drafts.push({
    company: s.company,
    owner,
    documentType: "4",
    trades,
    option: null,
    plan: false,
    remarks: "",
    ...extra,
  });
}

/** The trading-day price of a trade: the close, give or take half a percent. */
function priceOn(s: Schedule, date: string): number {
  return Math.round(s.prices.closeOn(date) * (0.995 + 0.01 * s.random()) * 100) / 100;
}

const lot = (x: number, size = 10) => Math.max(size, Math.round(x / size) * size);

type Row = Omit<Trade, "after">;

/** The CEO's plan sale: two lots, sometimes after exercising options (M) at 40% of the price. */
function ceoSale(s: Schedule, ceo: Insider, date: string, exercises: boolean): void {
  const exercise = exercises ? lot(ceo.holdings * 0.02) : 0;
  const strike = Math.round(s.prices.closeOn(date) * 40) / 100;
  const rows: Row[] = [];
  if (exercise > 0) rows.push({ code: "M", date, shares: exercise, price: strike, direction: "A" });
  for (let k = 0; k < 2; k++) {
    rows.push({ code: "S", date, shares: lot(ceo.holdings * 0.01), price: priceOn(s, date), direction: "D" });
  }
  const option = exercise > 0 ? { exercisePrice: strike, shares: exercise } : null;
  file(s, ceo, rows, { plan: true, option });
}

/** Shares withheld for tax at vesting (F), then a sale. */
function cfoSale(s: Schedule, cfo: Insider, date: string): void {
  file(s, cfo, [
    { code: "F", date, shares: lot(cfo.holdings * 0.01), price: priceOn(s, date), direction: "D" },
    { code: "S", date, shares: lot(cfo.holdings * 0.03), price: priceOn(s, date), direction: "D" },
  ]);
}

function directorPurchase(s: Schedule, director: Insider, date: string): void {
  const shares = lot(1000 + 9000 * s.random(), 100);
  file(s, director, [{ code: "P", date, shares, price: priceOn(s, date), direction: "A" }]);
}

function fundBlock(s: Schedule, fund: Insider, date: string, buys: boolean): void {
  const shares = lot(fund.holdings * 0.015, 100);
  const row: Row = {
    code: buys ? "P" : "S",
    date,
    shares,
    price: priceOn(s, date),
    direction: buys ? "A" : "D",
  };
  file(s, fund, [row]);
}

/** The trades of one quarter's open window, starting on `open`. */
function quarterTrades(s: Schedule, [ceo, cfo, director, fund]: Insider[], open: string): void {
  const day = (offset: number) => s.prices.tradingDayOnOrAfter(addDays(open, offset)) ?? open;
  const [ceoDraw, exerciseDraw, cfoDraw, directorDraw, fundDraw] = [1, 2, 3, 4, 5].map(() => s.random());
  if (ceo && (ceoDraw ?? 1) < 0.45) ceoSale(s, ceo, day(0), (exerciseDraw ?? 1) < 0.4);
  if (cfo && (cfoDraw ?? 1) < 0.3) cfoSale(s, cfo, day(2));
  if (director && (directorDraw ?? 1) < 0.2) directorPurchase(s, director, day(4));
  if (fund && (fundDraw ?? 1) < 0.2) fundBlock(s, fund, day(6), (fundDraw ?? 1) < 0.13);
}

function award(s: Schedule, ceo: Insider | undefined, year: number): void {
  if (ceo === undefined) return;
  const date = s.prices.tradingDayOnOrAfter(`${year}-03-01`) ?? `${year}-03-01`;
  file(s, ceo, [{ code: "A", date, shares: lot(ceo.holdings * 0.01), price: 0, direction: "A" }]);
}

/** Splits the first CFO sale after AMENDED_AFTER into a mistyped original and its 4/A. */
function withAmendment(docs: OwnershipDoc[]): OwnershipDoc[] {
  const i = docs.findIndex(
    (d) => d.owner.title === "Chief Financial Officer" && d.signatureDate >= AMENDED_AFTER,
  );
  const correct = docs[i];
  if (correct === undefined) return docs;
  const mistyped = correct.trades.map((t) => (t.code === "S" ? { ...t, shares: t.shares * 10 } : t));
  const amendment: OwnershipDoc = {
    ...correct,
    documentType: "4/A",
    originalSubmission: correct.signatureDate,
    signatureDate: weekdayOnOrAfter(addDays(correct.signatureDate, 21)),
    remarks: "This amendment corrects the number of shares sold, over-stated in the original filing.",
  };
  return [...docs.slice(0, i), { ...correct, trades: mistyped }, amendment, ...docs.slice(i + 1)];
}

/**
 * The Form 4 filings of `company` (index `index` in the universe) signed on or before
 * `until`, oldest first, with accession numbers `<issuer CIK>-<YY>-1NNNNN`.
 */
export function insiderDocuments(
  company: DemoCompany,
  index: number,
  prices: PriceSeries,
  sharesOutstanding: number,
  until: string,
): OwnershipDoc[] {
  const ticker = company.tickers[0] ?? "";
  if (!FORM4_TICKERS.includes(ticker)) return [];
  const s: Schedule = { company, prices, random: rng(company.seed * 31 + 4), drafts: [] };
  const insiders = insidersOf(index, sharesOutstanding);
  for (let year = FIRST_TRADE_YEAR; year <= Number(until.slice(0, 4)); year++) {
    for (let quarter = 0; quarter < 4; quarter++) {
      const open = addDays(
        `${year}-${String(1 + 3 * quarter).padStart(2, "0")}-01`,
        35 + Math.floor(s.random() * 20),
      );
      quarterTrades(s, insiders, open);
      if (quarter === 0) award(s, insiders[0], year);
    }
  }
  const dated = s.drafts.map((d) => {
    const periodOfReport = d.trades.map((t) => t.date).sort()[0] as string;
    const signatureDate = weekdayOnOrAfter(addDays(periodOfReport, 2));
    return { ...d, periodOfReport, signatureDate, originalSubmission: null, accession: "" };
  });
  const docs = (ticker === FORM4_TICKERS[0] ? withAmendment(dated) : dated)
    .filter((d) => d.signatureDate <= until)
    .sort((a, b) => a.signatureDate.localeCompare(b.signatureDate));
  return docs.map((d, i) => ({
    ...d,
    accession: `${company.cik}-${d.signatureDate.slice(2, 4)}-${String(100_001 + i)}`,
  }));
}

/** `edgar/form4/<TICKER>_form4_<accession>.xml` for each document. */
export function writeForm4(dir: string, docs: readonly OwnershipDoc[]): void {
  for (const doc of docs) {
    const ticker = doc.company.tickers[0] ?? "";
    write(join(dir, "edgar", "form4", `${ticker}_form4_${doc.accession}.xml`), renderOwnershipXml(doc));
  }
}

/** The documents as filings of the issuer's submissions. */
export function insiderFilings(docs: readonly OwnershipDoc[]): DemoFiling[] {
  return docs.map((d) => ({
    accessionNumber: d.accession,
    filingDate: d.signatureDate,
    reportDate: d.periodOfReport,
    form: d.documentType,
    primaryDocument: "xslF345X05/form4.xml",
    description: d.documentType === "4/A" ? "FORM 4/A" : "FORM 4",
  }));
}
