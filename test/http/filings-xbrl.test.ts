/**
 * Filing metadata from XBRL over the real server and a snapshot imported from the public
 * fixtures (STOCKD_FIXTURES): /sec_filings rows carry fy, fp, period and amendment_flag of
 * 10-K and 10-Q filings, read in the test from the facts of that accession in the raw
 * edgar/companyfacts/CIK##########.json (each fact names its accn, fy, fp and form), and
 * acceptance_date_time, report_date and the document from the raw
 * edgar/submissions/CIK##########.json (filings.recent columns, plus paged files);
 * /stocks/{symbol}/secfiling rows link the document on the SEC site.
 */

import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { daysBetween } from "../../src/domain/dates.ts";
import { FIXTURES } from "../helpers/env.ts";
import { readCompanyFacts, type SecFact } from "../helpers/raw-companyfacts.ts";
import { type FilingColumns, type Json, readJson, type Submissions } from "../helpers/raw-sources.ts";
import { chargedBy } from "../helpers/responses.ts";
import { serverOverImport } from "../helpers/server.ts";

const root = FIXTURES ?? "";
const AAPL = "0000320193";
const TSLA = "0001318605";

// ---------------------------------------------------------------------------------------------
// Raw files
// ---------------------------------------------------------------------------------------------

/** Every fact of a companyfacts file, by accession number. */
function factsByAccession(cik: string): Map<string, SecFact[]> {
  const file = readCompanyFacts(root, cik);
  const out = new Map<string, SecFact[]>();
  for (const concepts of Object.values(file.facts)) {
    for (const { units } of Object.values(concepts)) {
      for (const list of Object.values(units)) {
        for (const fact of list) {
          const facts = out.get(fact.accn) ?? [];
          facts.push(fact);
          out.set(fact.accn, facts);
        }
      }
    }
  }
  return out;
}

interface SubmissionRow {
  accessionNumber: string;
  filingDate: string;
  reportDate: string;
  acceptanceDateTime: string;
  form: string;
  primaryDocument: string;
}

/** The filings of a submissions file and of its paged files present, as rows. */
function submissionRows(cik: string): SubmissionRow[] {
  const dir = join(root, "edgar", "submissions");
  const main = readJson<Submissions>(join(dir, `CIK${cik}.json`));
  const blocks: FilingColumns[] = [main.filings.recent];
  for (const { name } of main.filings.files) {
    if (existsSync(join(dir, name))) blocks.push(readJson<FilingColumns>(join(dir, name)));
  }
  return blocks.flatMap((c) =>
    c.accessionNumber.map((accessionNumber, i) => ({
      accessionNumber,
      filingDate: c.filingDate[i] as string,
      reportDate: c.reportDate[i] ?? "",
      acceptanceDateTime: c.acceptanceDateTime[i] ?? "",
      form: c.form[i] as string,
      primaryDocument: c.primaryDocument[i] ?? "",
    })),
  );
}

/** Whether a fact is a current-period figure of a filing labelled fp (FY: a year; Qn: a quarter or n quarters). */
function currentPeriodFact(f: SecFact): boolean {
  if (!f.start || f.end > f.filed) return false;
  const length = daysBetween(f.start, f.end) + 1;
  const quarters =
    length >= 75 && length <= 120
      ? 1
      : length >= 160 && length <= 200
        ? 2
        : length >= 245 && length <= 290
          ? 3
          : length >= 350 && length <= 380
            ? 4
            : 0;
  const fp = f.fp ?? "";
  return fp === "FY" ? quarters === 4 : /^Q[1-3]$/.test(fp) && (quarters === 1 || quarters === Number(fp[1]));
}

// ---------------------------------------------------------------------------------------------

interface FilingRow {
  cik: string;
  accession_number: string;
  form: string;
  filing_date: string;
  report_date: string | null;
  acceptance_date_time: string | null;
  fy: number | null;
  fp: string | null;
  period: string | null;
  amendment_flag: boolean | null;
  filing_url: string;
}

describe.skipIf(!FIXTURES)("filing metadata from XBRL (STOCKD_FIXTURES)", () => {
  const fixtures = serverOverImport(root);

  async function get<T = Json>(path: string): Promise<T> {
    const res = await fixtures.server.get(path, fixtures.key);
    expect(res.status, path).toBe(200);
    expect(chargedBy(res), path).toBe(1);
    return (await res.json()) as T;
  }

  /** Every row of a /sec_filings query, over all its pages. */
  async function secFilings(query: string): Promise<FilingRow[]> {
    const rows: FilingRow[] = [];
    for (let page = 1; ; page++) {
      const body = await get<{ data: FilingRow[]; pagination: { total_pages: number } }>(
        `/sec_filings?${query}&per_page=1000&page=${page}`,
      );
      rows.push(...body.data);
      if (page >= body.pagination.total_pages) return rows;
    }
  }

  /** The one (fy, fp, form) all facts of an accession carry in the raw companyfacts file. */
  function labelsOf(facts: SecFact[], accession: string) {
    const labels = new Set(facts.map((f) => JSON.stringify([f.fy, f.fp, f.form])));
    expect([...labels], `${accession}: one fy/fp/form for all its facts`).toHaveLength(1);
    const [fy, fp, form] = JSON.parse([...labels][0] as string) as [number, string, string];
    return { fy, fp, form };
  }

  for (const form of ["10-K", "10-Q"]) {
    test(`AAPL ${form} rows: fy and fp are the accession's own (companyfacts), period and times from submissions`, async () => {
      const byAccession = factsByAccession(AAPL);
      const submitted = submissionRows(AAPL).filter((s) => s.form === form);
      const rows = await secFilings(`ticker=AAPL&form=${form}`);
      // CIK0000320193.json (submissions): 11 10-Ks and 33 10-Qs in filings.recent.
      expect(rows.map((r) => r.accession_number).sort()).toEqual(
        submitted.map((s) => s.accessionNumber).sort(),
      );
      for (const row of rows) {
        const label = `${form} ${row.accession_number}`;
        const facts = byAccession.get(row.accession_number);
        if (!facts) throw new Error(`${label}: no facts in CIK${AAPL}.json`);
        // companyfacts: the fy / fp / form every fact of this accession carries.
        const own = labelsOf(facts, row.accession_number);
        expect(own.form, label).toBe(form);
        expect([row.fy, row.fp], label).toEqual([own.fy, own.fp]);
        expect(row.amendment_flag, label).toBe(own.form.endsWith("/A"));
        // submissions: reportDate, filingDate; acceptanceDateTime as ISO 8601 UTC (its New York
        // reading: see "acceptance_date_time is UTC" below).
        const s = submitted.find((x) => x.accessionNumber === row.accession_number) as SubmissionRow;
        expect(row.period, label).toBe(s.reportDate);
        expect(row.report_date, label).toBe(s.reportDate);
        expect(row.filing_date, label).toBe(s.filingDate);
        expect(row.acceptance_date_time, label).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
        // companyfacts: the period is the latest end of the filing's own current-period figures.
        const ends = facts
          .filter(currentPeriodFact)
          .map((f) => f.end)
          .sort();
        expect(row.period, label).toBe(ends[ends.length - 1] as string);
      }
    });
  }

  test("an AAPL 10-K's fy is the fiscal_year of the annual statement period it reports", async () => {
    const rows = await secFilings("ticker=AAPL&form=10-K");
    const income = await get<{ periods: { fiscal_year: number; snapshot_date: string }[] }>(
      "/stocks/AAPL/income-statement?limit=100",
    );
    for (const row of rows) {
      const period = income.periods.find((p) => p.snapshot_date === row.period);
      expect(period?.fiscal_year, row.accession_number).toBe(row.fy as number);
    }
    // Apple FY2023: the 10-K filed 2023-11-03 (accession 0000320193-23-000106) for 2023-09-30.
    expect(rows.find((r) => r.accession_number === "0000320193-23-000106")).toMatchObject({
      fy: 2023,
      fp: "FY",
      period: "2023-09-30",
      amendment_flag: false,
    });
  });

  test("TSLA 10-K/A rows: fy and fp of the amendment's own facts, amendment_flag true", async () => {
    const byAccession = factsByAccession(TSLA);
    const rows = await secFilings("ticker=TSLA&form=10-K/A");
    const withFacts = rows.filter((r) => byAccession.has(r.accession_number));
    // edgar/submissions/CIK0001318605.json + paged file: the Part III amendments of 2019–2021.
    expect(withFacts.length).toBeGreaterThanOrEqual(3);
    for (const row of withFacts) {
      const own = labelsOf(byAccession.get(row.accession_number) ?? [], row.accession_number);
      expect(own.form).toBe("10-K/A");
      expect([row.fy, row.fp, row.amendment_flag], row.accession_number).toEqual([own.fy, own.fp, true]);
    }
  });

  test("TSLA 10-K/A rows: period is the report period (submissions reportDate)", async () => {
    const submitted = submissionRows(TSLA);
    const byAccession = factsByAccession(TSLA);
    const rows = (await secFilings("ticker=TSLA&form=10-K/A")).filter((r) =>
      byAccession.has(r.accession_number),
    );
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const row of rows) {
      const s = submitted.find((x) => x.accessionNumber === row.accession_number);
      expect(row.period, row.accession_number).toBe(s?.reportDate ?? "");
    }
  });

  test("AAPL filings without XBRL facts (Forms 4, 8-K, ...) carry no fy, fp or period; their amendment flag is the form's", async () => {
    const byAccession = factsByAccession(AAPL);
    const rows = await secFilings("ticker=AAPL&form=4");
    expect(rows.length).toBeGreaterThan(100);
    for (const row of rows) {
      expect(byAccession.has(row.accession_number)).toBe(false);
      expect([row.fy, row.fp, row.period, row.amendment_flag], row.accession_number).toEqual([
        null,
        null,
        null,
        row.form.endsWith("/A"),
      ]);
    }
  });

  test("TSLA's 10-K/A of 2025 has no XBRL facts (its companyfacts end in 2022): flagged as an amendment by its form", async () => {
    const rows = await secFilings("ticker=TSLA&form=10-K/A");
    const recent = rows.filter((r) => r.filing_date >= "2023-01-01");
    expect(recent.length).toBeGreaterThan(0);
    for (const row of recent) {
      expect(factsByAccession(TSLA).has(row.accession_number), row.accession_number).toBe(false);
      expect([row.fy, row.amendment_flag], row.accession_number).toEqual([null, true]);
    }
  });

  test("acceptance_date_time is UTC: TSLA's file gives it; AAPL's gives New York time labelled Z, 4 or 5 hours earlier", async () => {
    const HOUR = 3_600_000;
    for (const [ticker, cik] of [
      ["AAPL", AAPL],
      ["TSLA", TSLA],
    ] as const) {
      const submitted = new Map(submissionRows(cik).map((s) => [s.accessionNumber, s]));
      const rows = await secFilings(`ticker=${ticker}`);
      expect(rows.length).toBe(submitted.size);
      for (const row of rows) {
        const s = submitted.get(row.accession_number);
        expect(s, row.accession_number).toBeDefined();
        if (!s?.acceptanceDateTime) {
          expect(row.acceptance_date_time).toBeNull();
          continue;
        }
        const shift = Date.parse(row.acceptance_date_time as string) - Date.parse(s.acceptanceDateTime);
        if (ticker === "TSLA") expect(shift, row.accession_number).toBe(0);
        else {
          // New York is UTC−4 from March to early November, UTC−5 otherwise.
          const month = Number(s.acceptanceDateTime.slice(5, 7));
          if (month >= 4 && month <= 10) expect(shift, row.accession_number).toBe(4 * HOUR);
          else if (month === 12 || month <= 2) expect(shift, row.accession_number).toBe(5 * HOUR);
          else expect([4 * HOUR, 5 * HOUR], row.accession_number).toContain(shift);
        }
      }
    }
  });

  test("every filer's acceptance times, main and paged files alike, are read in the zone that fits EDGAR's hours", async () => {
    const newYork = new Intl.DateTimeFormat("en-US", {
      timeZone: "America/New_York",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    const minuteInNewYork = (iso: string) => {
      const [h, m] = newYork.format(new Date(iso)).split(":").map(Number);
      return (h ?? 0) * 60 + (m ?? 0);
    };
    const minuteAsWritten = (iso: string) => Number(iso.slice(11, 13)) * 60 + Number(iso.slice(14, 16));
    // EDGAR accepts filings from 06:00 to 22:00 New York time.
    const outside = (minute: number) => minute < 6 * 60 || minute > 22 * 60;
    const files = readdirSync(join(root, "edgar", "submissions"));
    const ciks = [...new Set(files.map((f) => /CIK(\d{10})/.exec(f)?.[1]).filter((c) => c !== undefined))];
    let checked = 0;
    for (const cik of ciks) {
      const times = (await secFilings(`cik=${cik}`))
        .map((r) => r.acceptance_date_time)
        .filter((t): t is string => t !== null && !t.endsWith("T00:00:00.000Z"));
      if (times.length < 20) continue;
      checked++;
      // As served (UTC, seen in New York) against the other reading (its clock as New York's).
      const served = times.filter((t) => outside(minuteInNewYork(t))).length;
      const other = times.filter((t) => outside(minuteAsWritten(t))).length;
      expect(
        served,
        `CIK${cik}: ${served} of ${times.length} outside EDGAR's hours, ${other} read the other way`,
      ).toBeLessThan(Math.max(other, 1));
    }
    expect(checked).toBeGreaterThan(25);
    // Old filings carry midnight exactly, a placeholder: served as the file gives it.
    const paged = await secFilings("cik=1009672&end=2001-12-31");
    expect(paged.some((r) => r.acceptance_date_time?.endsWith("T00:00:00.000Z"))).toBe(true);
  });

  test("one filing listed under two CIKs has one acceptance time, the one its SGML header gives (New York)", async () => {
    // variants/sgml/0000320193-22-000061.txt: ACCEPTANCE-DATETIME 20220506183057, New York
    // time (EDT, UTC−4). AAPL's file says 2022-05-06T18:30:57.000Z, the owner's (CIK 1462356)
    // 2022-05-06T22:30:57.000Z.
    const sgml = readFileSync(join(root, "variants", "sgml", "0000320193-22-000061.txt"), "utf8");
    expect(/ACCEPTANCE-DATETIME>?\s*(\d{14})/.exec(sgml)?.[1]).toBe("20220506183057");
    const rows = await secFilings("accession_number=0000320193-22-000061");
    expect(rows.map((r) => r.cik).sort()).toEqual(["0000320193", "0001462356"]);
    for (const row of rows) expect(row.acceptance_date_time, row.cik).toBe("2022-05-06T22:30:57.000Z");
  });

  test("/stocks/AAPL/secfiling filing_url is the document on sec.gov, for every form", async () => {
    const submitted = submissionRows(AAPL);
    for (const form of ["10-K", "10-Q", "8-K", "4", "DEF 14A"]) {
      const body = await get<{
        symbol: string;
        form_type: string;
        filings: { accession_number: string; filing_url: string }[];
      }>(`/stocks/AAPL/secfiling?form_type=${encodeURIComponent(form)}&limit=100`);
      expect([body.symbol, body.form_type]).toEqual(["AAPL", form]);
      expect(body.filings.length, form).toBeGreaterThan(0);
      for (const f of body.filings) {
        const s = submitted.find((x) => x.accessionNumber === f.accession_number);
        if (!s) throw new Error(`${f.accession_number} is not in CIK${AAPL}.json`);
        expect(s.form).toBe(form);
        // https://www.sec.gov/Archives/edgar/data/<cik without zeros>/<accession without dashes>/<primaryDocument>
        const url = `https://www.sec.gov/Archives/edgar/data/320193/${s.accessionNumber.replace(/-/g, "")}/${s.primaryDocument}`;
        expect(f.filing_url, f.accession_number).toBe(url);
      }
    }
    // The same link on /sec_filings.
    const tenK = await secFilings("ticker=AAPL&form=10-K");
    for (const row of tenK) {
      const s = submitted.find((x) => x.accessionNumber === row.accession_number) as SubmissionRow;
      expect(row.filing_url).toBe(
        `https://www.sec.gov/Archives/edgar/data/320193/${s.accessionNumber.replace(/-/g, "")}/${s.primaryDocument}`,
      );
    }
  });
});
