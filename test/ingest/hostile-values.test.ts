/**
 * Values the importer refuses, whatever file brings them: tickers that are no ticker, numbers
 * that are no price or volume, dates out of bounds, and CSV records too long to cut into cells.
 * Each runs the real importer on a temporary source directory: a strict import fails with
 * `file:line: message` and leaves the served snapshot as it was; a lenient one skips the
 * record and lists it.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, truncateSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ImportError } from "../../src/ingest/errors.ts";
import { importSources } from "../../src/ingest/pipeline/import.ts";
import { listSnapshotIds, type Manifest, readCurrent } from "../../src/snapshot/store.ts";
import { tempDir } from "../helpers/env.ts";

const PRICES = "Date,Open,High,Low,Close,Adj Close,Volume";
const GOOD_PRICES = `${PRICES}\n2024-01-02,10,11,9,10.5,10.5,1000\n2024-01-03,10.5,11,10,10.8,10.8,1200\n`;
const TICKERS = (...tickers: string[]) =>
  JSON.stringify(
    Object.fromEntries(tickers.map((ticker, i) => [i, { cik_str: i + 1, ticker, title: "Co" }])),
  );

/** "after <date>, a week from today" (the date moves with the clock). */
const AFTER_A_WEEK = String.raw`is after \d{4}-\d{2}-\d{2}, a week from today`;
const AFTER_A_YEAR = String.raw`is after \d{4}-\d{2}-\d{2}, a year from today`;

/** Files by path; null leaves out a file of the base source dir. */
type Files = Record<string, string | null>;

/** A source dir of one listed ticker (GOOD) and its prices, with `files` added or replacing. */
function sourceDir(files: Files = {}): string {
  const dir = tempDir("stockd-hostile-");
  const all: Files = {
    "prices/GOOD.csv": GOOD_PRICES,
    "edgar/company_tickers.json": TICKERS("GOOD"),
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    if (text === null) continue;
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/**
 * Imports a good source dir, then one with `files`: the second must fail with `expected` (the
 * whole `file:line: message`, or a pattern of it) and leave the first snapshot served.
 */
async function expectRefused(files: Files, expected: string | RegExp): Promise<void> {
  const dataDir = tempDir();
  const good = await importSources(sourceDir(), dataDir);
  const error = await importSources(sourceDir(files), dataDir).catch((e: unknown) => e);
  expect(error, "the import fails with an ImportError").toBeInstanceOf(ImportError);
  if (typeof expected === "string") expect(String(error)).toBe(expected);
  else expect(String(error)).toMatch(expected);
  expect(readCurrent(dataDir), "the served snapshot is the one before").toBe(good.id);
  expect(listSnapshotIds(dataDir), "no other snapshot is kept").toEqual([good.id]);
}

function importLenient(files: Files): Promise<Manifest> {
  return importSources(sourceDir(files), tempDir(), { lenient: true });
}

/** An Alpha Vantage daily adjusted series of `symbol`; each day's prices all `close`. */
function alphaVantage(symbol: string, days: Record<string, Record<string, string>>): string {
  const series = Object.fromEntries(
    Object.entries(days).map(([date, day]) => {
      const close = day["4. close"] ?? "100";
      const prices = { "1. open": close, "2. high": close, "3. low": close, "4. close": close };
      const rest = { "5. adjusted close": close, "6. volume": "100", "7. dividend amount": "0.0000" };
      return [date, { ...prices, ...rest, "8. split coefficient": "1.0", ...day }];
    }),
  );
  return JSON.stringify({ "Meta Data": { "2. Symbol": symbol }, "Time Series (Daily)": series });
}

describe("tickers", () => {
  test("real tickers are kept: share classes in any spelling, warrants, units, digits, Alpha Vantage's _OLD", async () => {
    const real = ["BRK-B", "BRK.A", "brk/c", "GRAF-UN", "ACHR-WT", "ONDS_TEMP", "0700"];
    const manifest = await importSources(
      sourceDir({ "edgar/company_tickers.json": TICKERS(...real), "prices/BRK-B.csv": GOOD_PRICES }),
      tempDir(),
    );
    expect(manifest.report.sources.tickers?.records).toBe(real.length);
    expect(manifest.report.skipped_total).toBe(0);
  });

  const listed: [string, string, string][] = [
    ["a path", "../../x", '"../../x"'],
    ["a space", "A B", '"A B"'],
    ["an emoji", "\u{1F680}", '"\u{1F680}"'],
    ["markup", "<b>X</b>", '"<b>X</b>"'],
    ["a NUL", "A\u0000B", '"A\\u0000B"'],
    ["a letter that upper-cases to Latin ones", "\u00DF", '"\u00DF"'],
    ["11 characters", "ABCDEFGHIJK", '"ABCDEFGHIJK"'],
    ["300 characters (quoted cut)", "X".repeat(300), `"${"X".repeat(40)}..."`],
  ];
  for (const [what, ticker, quoted] of listed) {
    test(`an SEC ticker list naming ${what} fails the import`, async () => {
      await expectRefused(
        { "edgar/company_tickers.json": TICKERS("GOOD", ticker) },
        `edgar/company_tickers.json: ["1"]: ticker ${quoted} is not a ticker symbol`,
      );
    });
  }

  test("a lenient import skips the bad ticker and lists it; the good one is imported", async () => {
    const manifest = await importLenient({ "edgar/company_tickers.json": TICKERS("GOOD", "../../x") });
    expect(manifest.report.sources.tickers?.records).toBe(1);
    expect(manifest.report.skipped).toEqual([
      {
        file: "edgar/company_tickers.json",
        line: null,
        reason: '["1"]: ticker "../../x" is not a ticker symbol',
      },
    ]);
  });

  test("the ticker column of a calendar or growth CSV, at its line: separators join, they do not lead or repeat", async () => {
    await expectRefused(
      { "calendar/c.csv": "ticker,earning_date\nGOOD,2024-07-25\nA/../../X,2024-07-25\n" },
      'calendar/c.csv:3: ticker "A/../../X" is not a ticker symbol',
    );
    await expectRefused(
      { "growth/g.csv": "ticker,as_of_date,dividend_growth_3y\nABCDEFGHIJKLMNOP,2024-06-30,0.05\n" },
      'growth/g.csv:2: ticker "ABCDEFGHIJKLMNOP" is not a ticker symbol',
    );
  });

  test("the tickers of a submissions file and of the filer table", async () => {
    const submissions = (tickers: string[]) =>
      JSON.stringify({
        cik: "1",
        name: "Good Co",
        tickers,
        exchanges: tickers.map(() => "NYSE"),
        filings: { recent: { accessionNumber: [], form: [], filingDate: [] } },
      });
    const file = "edgar/submissions/CIK0000000001.json";
    await expectRefused(
      { [file]: submissions(["GOOD", "../x"]) },
      `${file}: tickers[1]: ticker "../x" is not a ticker symbol`,
    );
    const lenient = await importLenient({ [file]: submissions(["GOOD", "../x"]) });
    expect(lenient.report.skipped).toEqual([
      { file, line: null, reason: 'tickers[1]: ticker "../x" is not a ticker symbol' },
    ]);
    await expectRefused(
      { "edgar/listed_filer_metadata.csv": "cik,name,tickers\n2,Other Co,\"['OK', 'A\u{1F680}']\"\n" },
      'edgar/listed_filer_metadata.csv:2: tickers "A\u{1F680}" is not a ticker symbol',
    );
  });

  test("the name of a dividends or price file, and the symbol of an Alpha Vantage series", async () => {
    await expectRefused(
      { "dividends/A B.csv": "ex_date,amount\n2024-01-02,0.5\n" },
      'dividends/A B.csv: file name "A B.csv" does not name a ticker',
    );
    // Named by its path as the importer found it; ends with its name under the source dir.
    await expectRefused(
      { "prices/<b>.csv": GOOD_PRICES },
      /prices\/<b>\.csv: file name "<b>\.csv" does not name a ticker$/,
    );
    await expectRefused(
      { "prices/HD.json": alphaVantage("../../x", { "2024-01-02": {} }) },
      'prices/HD.json: "Meta Data"."2. Symbol" "../../x" is not a ticker symbol',
    );
  });

  test("an OpenFIGI listing under no ticker identifies nothing: left out and listed, not an error", async () => {
    const mapping = [{ data: [{ ticker: "GOOD*", exchCode: "MM", compositeFIGI: "BBG000000001" }] }];
    const manifest = await importSources(sourceDir({ "figi/m.json": JSON.stringify(mapping) }), tempDir());
    expect(manifest.report.sources.figi?.records).toBe(0);
    expect(manifest.report.skipped).toEqual([
      { file: "figi/m.json", line: null, reason: '[0].data[0]: ticker "GOOD*" is no ticker symbol' },
    ]);
  });
});

describe("prices and volumes", () => {
  const refused: [string, string, string][] = [
    ["an exponent past a double", "2024-01-04,10,11,9,1e400,10,100", 'Close "1e400" is too large a number'],
    ["a Close of 1e308", "2024-01-04,10,11,9,1e308,10,100", "Close 1e+308 is not below 1000000000"],
    ["a volume of 1e13", "2024-01-04,10,11,9,10,10,1e13", "Volume 10000000000000 is not below 1000000000000"],
  ];

  test("NaN is an error, not a gap, as Infinity and hex are", async () => {
    const cases = [
      ["2024-01-04,NaN,11,9,10,10,100", 'Open "NaN" is not a number'],
      ["2024-01-04,10,Infinity,9,10,10,100", 'High "Infinity" is not a number'],
      ["2024-01-04,10,11,0x10,10,10,100", 'Low "0x10" is not a number'],
    ];
    for (const [row, message] of cases)
      await expectRefused({ "prices/GOOD.csv": `${GOOD_PRICES}${row}\n` }, `prices/GOOD.csv:4: ${message}`);
  });

  for (const [what, row, message] of refused) {
    test(`${what} fails at its line`, async () => {
      await expectRefused({ "prices/GOOD.csv": `${GOOD_PRICES}${row}\n` }, `prices/GOOD.csv:4: ${message}`);
    });
  }

  test("an empty cell is still a gap; a lenient import skips NaN rather than serving it as one", async () => {
    const manifest = await importLenient({
      "prices/GOOD.csv": `${GOOD_PRICES}2024-01-04,,,,10,,\n2024-01-05,NaN,11,9,10,10,100\n`,
    });
    expect(manifest.report.sources.prices?.records).toBe(3);
    expect(manifest.report.skipped).toEqual([
      { file: "prices/GOOD.csv", line: 5, reason: 'Open "NaN" is not a number' },
    ]);
  });

  test("Alpha Vantage: NaN, a Close of 1e308, and a split coefficient that makes prices absurd", async () => {
    const file = "prices/GOOD.json";
    await expectRefused(
      { [file]: alphaVantage("GOOD", { "2024-01-02": { "1. open": "NaN" } }), "prices/GOOD.csv": null },
      `${file}: Time Series (Daily).2024-01-02: "1. open" "NaN" is not a number`,
    );
    await expectRefused(
      { [file]: alphaVantage("GOOD", { "2024-01-02": { "4. close": "1e308" } }), "prices/GOOD.csv": null },
      `${file}: Time Series (Daily).2024-01-02: "4. close" 1e+308 is not below 1000000000`,
    );
    const split = { "2024-01-02": {}, "2024-01-03": { "8. split coefficient": "1e-12" } };
    await expectRefused(
      { [file]: alphaVantage("GOOD", split), "prices/GOOD.csv": null },
      `${file}: 2024-01-02: close 100000000000000 is not below 1000000000 once adjusted for splits and dividends`,
    );
  });

  test("yfinance prices put back from a dividend beyond any price fail the file", async () => {
    // Adjusted closes of 9e8, the second day an ex-date of 5e8: the first as traded, 1.4e9.
    const text = "Date,Close,Dividends\n2024-01-02,900000000,0\n2024-01-03,900000000,500000000\n";
    await expectRefused(
      { "prices/GOOD.csv": text },
      /^prices\/GOOD\.csv: 2024-01-02: close 1400000000(\.\d+)? is not below 1000000000 once adjusted for splits and dividends$/,
    );
  });

  test("a dividend amount of 1e11 per share", async () => {
    await expectRefused(
      { "dividends/GOOD.csv": "ex_date,amount\n2024-01-02,0.5\n2024-01-03,99999999999\n" },
      'dividends/GOOD.csv:3: amount "99999999999" is not below 1000000000',
    );
  });
});

describe("dates", () => {
  test("a price dated 9999 fails at its line; lenient, it is skipped and data_as_of stays the last real day", async () => {
    const prices = `${GOOD_PRICES}9999-12-31,10,11,9,10,10,100\n`;
    await expectRefused(
      { "prices/GOOD.csv": prices },
      new RegExp(`^prices/GOOD.csv:4: Date "9999-12-31" ${AFTER_A_WEEK}$`),
    );
    const manifest = await importLenient({ "prices/GOOD.csv": prices });
    expect(manifest.data_as_of).toBe("2024-01-03");
    expect(manifest.report.skipped_total).toBe(1);
  });

  test("a price dated 0001 fails, and so does an Alpha Vantage day of 9999", async () => {
    await expectRefused(
      { "prices/GOOD.csv": `${PRICES}\n0001-01-01,10,11,9,10,10,100\n` },
      'prices/GOOD.csv:2: Date "0001-01-01" is before 1900-01-01',
    );
    await expectRefused(
      { "prices/GOOD.json": alphaVantage("GOOD", { "9999-12-31": {} }), "prices/GOOD.csv": null },
      new RegExp(
        `^prices/GOOD.json: Time Series \\(Daily\\)\\.9999-12-31: date "9999-12-31" ${AFTER_A_WEEK}$`,
      ),
    );
  });

  test("announced dates may lie up to a year ahead: a calendar's 9999 and a dividend's 9999 fail", async () => {
    await expectRefused(
      { "calendar/c.csv": "ticker,earning_date\nGOOD,9999-12-31\n" },
      new RegExp(`^calendar/c.csv:2: earning_date "9999-12-31" ${AFTER_A_YEAR}$`),
    );
    await expectRefused(
      { "calendar/c.csv": "ticker,earning_date,fiscal_quarter_ending\nGOOD,2024-07-25,0001-03\n" },
      'calendar/c.csv:2: fiscal_quarter_ending "0001-03" is before 1900-01-01',
    );
    await expectRefused(
      { "dividends/GOOD.csv": "ex_date,amount\n9999-12-31,0.5\n" },
      new RegExp(`^dividends/GOOD.csv:2: ex_date "9999-12-31" ${AFTER_A_YEAR}$`),
    );
  });

  test("an as-of date, a filing date and a fact's end out of bounds", async () => {
    await expectRefused(
      { "estimates/e.csv": "ticker,as_of_date,eps_est_next_fy\nGOOD,9999-12-31,1\n" },
      new RegExp(`^estimates/e.csv:2: as_of_date "9999-12-31" ${AFTER_A_WEEK}$`),
    );
    const filings = { accessionNumber: ["0000000001-24-000001"], form: ["10-K"], filingDate: ["0001-01-01"] };
    await expectRefused(
      {
        "edgar/submissions/CIK0000000001.json": JSON.stringify({
          cik: "1",
          name: "Good Co",
          filings: { recent: filings },
        }),
      },
      'edgar/submissions/CIK0000000001.json: filings.recent.[0]: filingDate "0001-01-01" is before 1900-01-01',
    );
    const fact = {
      end: "9999-12-31",
      val: 1,
      accn: "0000000001-24-000001",
      fy: 2024,
      fp: "FY",
      form: "10-K",
      filed: "2024-02-01",
    };
    const facts = {
      cik: 1,
      entityName: "Good Co",
      facts: { "us-gaap": { Revenues: { units: { USD: [fact] } } } },
    };
    await expectRefused(
      { "edgar/companyfacts/CIK0000000001.json": JSON.stringify(facts) },
      /^edgar\/companyfacts\/CIK0000000001\.json: facts\.us-gaap\.Revenues\.units\.USD\[0\]\.end "9999-12-31" is not from 1900-01-01 to \d{4}-\d{2}-\d{2}$/,
    );
  });
});

describe("CSV records too long to cut into cells", () => {
  const long = "1".repeat(70_000);

  test("a line longer than 65,536 characters fails the file at its line, quoted or not", async () => {
    await expectRefused(
      { "prices/GOOD.csv": `${GOOD_PRICES}2024-01-04,${long}\n` },
      "prices/GOOD.csv:4: line longer than 65536 characters",
    );
    await expectRefused(
      { "calendar/c.csv": `ticker,earning_date\nGOOD,"2024-07-25${long}"\n` },
      "calendar/c.csv:2: line longer than 65536 characters",
    );
    await expectRefused(
      { "prices/GOOD.csv": `Date,Close,${long}\n` },
      "prices/GOOD.csv:1: line longer than 65536 characters",
    );
  });

  test("a lenient import skips the file and lists it", async () => {
    const manifest = await importLenient({ "dividends/GOOD.csv": `ex_date,amount\n2024-01-02,${long}\n` });
    expect(manifest.report.skipped).toEqual([
      { file: "dividends/GOOD.csv", line: 2, reason: "file skipped: line longer than 65536 characters" },
    ]);
  });
});

describe("files too large to read", () => {
  test("a price file over 64 MiB is refused before it is read; a lenient import skips it", async () => {
    const dataDir = tempDir();
    const good = await importSources(sourceDir(), dataDir);
    const dir = sourceDir();
    // Sparse: its size is over the cap without 64 MiB on disk.
    truncateSync(join(dir, "prices/GOOD.csv"), 64 * 1024 * 1024 + 1);
    const error = await importSources(dir, dataDir).catch((e: unknown) => e);
    expect(String(error)).toBe(
      `prices/GOOD.csv: ${64 * 1024 * 1024 + 1} bytes is over this kind of file's limit of ${64 * 1024 * 1024}`,
    );
    expect(readCurrent(dataDir)).toBe(good.id);
    const manifest = await importSources(dir, dataDir, { lenient: true });
    expect(manifest.report.skipped.map((s) => s.file)).toEqual(["prices/GOOD.csv"]);
  });
});
