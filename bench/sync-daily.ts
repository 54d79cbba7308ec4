#!/usr/bin/env bun
/**
 * The daily-sync benchmark of issue 18: `stockd sync` of the generated universe against the
 * loopback replay server (test/sync/replay.ts) playing the SEC. A first `--all-listed` run
 * loads the universe from the two bulk archives; then one day's master index names a day's
 * worth of filings, and the daily run's requests (by kind) and wall time are printed. Both runs
 * fill the mirror only (`--no-import`): the import of the universe is bench/bulk-archives.ts's
 * measurement.
 *
 *   bun bench/sync-daily.ts [--companies 5000] [--periodic 250] [--form4 700] [--others 3000] [--rate 5]
 *
 * A day's filings for a 5,000-company universe are an assumption from EDGAR's yearly totals
 * (about 70,000 8-Ks and 20,000 10-Qs, about 250,000 Forms 4 a year, most about listed
 * companies): some 250 periodic reports and 700 Forms 4 about the universe, among a few
 * thousand rows of other filers. The universe is bench/lib/universe.ts's, cached in
 * `.bench-cache/bulk-<companies>x20/` (shared with bench/bulk-archives.ts).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { rng } from "../src/demo/universe.ts";
import { latestFinalDay } from "../src/sync/daily-index.ts";
import { cli } from "../test/helpers/cli.ts";
import { ZipWriter } from "../test/helpers/zip-writer.ts";
import { ageFetches, syncEnv } from "../test/sync/helpers.ts";
import { masterIndex, ReplayServer } from "../test/sync/replay.ts";
import { machine } from "./lib/machine.ts";
import { markdownTable } from "./lib/stats.ts";
import { ensureUniverse } from "./lib/universe.ts";

const REPO = resolve(import.meta.dir, "..");
const SUBMISSIONS = "/Archives/edgar/daily-index/bulkdata/submissions.zip";
const COMPANYFACTS = "/Archives/edgar/daily-index/xbrl/companyfacts.zip";
const log = (line: string) => console.error(`[sync-daily] ${line}`);

function options() {
  const { values } = parseArgs({
    options: {
      companies: { type: "string", default: "5000" },
      periodic: { type: "string", default: "250" },
      form4: { type: "string", default: "700" },
      others: { type: "string", default: "3000" },
      rate: { type: "string", default: "5" },
    },
  });
  return {
    companies: Number(values.companies),
    periodic: Number(values.periodic),
    form4: Number(values.form4),
    others: Number(values.others),
    rate: values.rate as string,
  };
}

/** The two EDGAR folders of the universe as the SEC's archives (built once, beside the universe). */
function archivesOf(sources: string): Record<string, string> {
  const dir = `${sources}-zipped`;
  const paths = {
    [SUBMISSIONS]: join(dir, "edgar", "submissions.zip"),
    [COMPANYFACTS]: join(dir, "edgar", "companyfacts.zip"),
  };
  if (existsSync(join(dir, ".complete"))) return paths;
  mkdirSync(join(dir, "edgar"), { recursive: true });
  for (const kind of ["submissions", "companyfacts"]) {
    log(`zipping edgar/${kind}`);
    const zip = new ZipWriter(join(dir, "edgar", `${kind}.zip`));
    for (const name of readdirSync(join(sources, "edgar", kind)).sort())
      zip.add(name, readFileSync(join(sources, "edgar", kind, name)));
    zip.close();
  }
  writeFileSync(join(dir, ".complete"), "");
  return paths;
}

/**
 * The periodic forms of a day, in the shares the fixtures' 40 filers filed them since 2022
 * (8-K 60%, 6-K 18%, 10-Q 15%, 10-K 5%, amendments 1%): 8-K 55% and 8-K/A 5%, 6-K 20%, 10-Q
 * 15%, 10-K 5%. Every 6-K there was filed without XBRL, 99.7% of the others with it.
 */
const PERIODIC_FORMS = [
  ...Array.from({ length: 11 }, () => "8-K"),
  "8-K/A",
  ...Array.from({ length: 4 }, () => "6-K"),
  "10-Q",
  "10-Q",
  "10-Q",
  "10-K",
];

/** A day's filings: periodic reports and Forms 4 of universe companies, and other filers' rows. */
function dayRows(ciks: readonly string[], o: ReturnType<typeof options>): [string, string, string][] {
  const random = rng(20_261_127);
  const pick = () => ciks[Math.floor(random() * ciks.length)] as string;
  const rows: [string, string, string][] = [];
  for (let i = 0; i < o.periodic; i++)
    rows.push([pick(), PERIODIC_FORMS[i % PERIODIC_FORMS.length] as string, accession(1, i)]);
  for (let i = 0; i < o.form4; i++) rows.push([pick(), i % 10 === 0 ? "4/A" : "4", accession(2, i)]);
  for (let i = 0; i < o.others; i++)
    rows.push([String(2_000_000 + i), i % 3 ? "424B2" : "4", accession(3, i)]);
  return rows;
}

/**
 * The submissions the SEC answers after the day for each company that filed a periodic report:
 * its file with the day's filings first, each with its isXBRL (none for a 6-K).
 */
function submissionsAfter(sources: string, day: string, rows: readonly [string, string, string][]) {
  const answers = new Map<string, string>();
  const byCik = Map.groupBy(
    rows.filter(([, form]) => PERIODIC_FORMS.includes(form)),
    ([cik]) => cik,
  );
  for (const [cik, filed] of byCik) {
    const json = JSON.parse(readFileSync(join(sources, "edgar", "submissions", `CIK${cik}.json`), "utf8"));
    const recent = json.filings.recent as Record<string, (string | number)[]>;
    const older = (recent.accessionNumber as string[]).length;
    for (const [, form, accession] of [...filed].reverse())
      for (const [key, values] of Object.entries(recent))
        values.unshift({ accessionNumber: accession, form, filingDate: day }[key] ?? "");
    recent.isXBRL = [
      ...filed.map(([, form]) => (form === "6-K" ? 0 : 1)),
      ...Array.from({ length: older }, () => 1),
    ];
    answers.set(`/submissions/CIK${cik}.json`, JSON.stringify(json));
  }
  return answers;
}

function accession(kind: number, i: number): string {
  return `000${kind}000000-26-${String(i).padStart(6, "0")}`;
}

/** Requests by kind: indexes, submissions, companyfacts, filing documents, the rest. */
function byKind(paths: readonly string[]): Record<string, number> {
  const kinds: Record<string, number> = { index: 0, submissions: 0, companyfacts: 0, documents: 0, other: 0 };
  for (const path of paths) {
    const kind = path.includes("/daily-index/")
      ? "index"
      : path.startsWith("/submissions/")
        ? "submissions"
        : path.startsWith("/api/xbrl/")
          ? "companyfacts"
          : path.startsWith("/Archives/edgar/data/")
            ? "documents"
            : "other";
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  return kinds;
}

async function main(): Promise<void> {
  const o = options();
  const cache = join(REPO, ".bench-cache", `bulk-${o.companies}x20`);
  const universe = ensureUniverse(
    cache,
    { companies: o.companies, years: 20, lastDay: "2025-12-31", prices: false },
    log,
  );
  const indexes = new Map<string, string>();
  const replay = new ReplayServer({ root: universe.dir, indexes, archives: archivesOf(universe.dir) });
  const dataDir = join(REPO, ".bench-cache", `sync-daily-${o.companies}`);
  rmSync(dataDir, { recursive: true, force: true });
  try {
    log("first run: sync --all-listed --no-import (the bulk archives)");
    const first = await cli(["sync", "--all-listed", "--no-import", "--json"], {
      dataDir,
      env: syncEnv(replay, { STOCKD_SEC_REQUESTS_PER_SECOND: "10" }),
      timeoutMs: 3_600_000,
    });
    if (first.code !== 0) throw new Error(`first sync exited ${first.code}: ${first.stderr.slice(-2000)}`);
    const firstRequests = replay.requests.length;

    // A day later: yesterday's files are a day old, and the day's index names its filings.
    ageFetches(dataDir, 2);
    const day = latestFinalDay(new Date());
    const ciks = (
      JSON.parse(readFileSync(join(universe.dir, "edgar", "company_tickers_exchange.json"), "utf8")) as {
        data: [number][];
      }
    ).data.map(([cik]) => String(cik).padStart(10, "0"));
    const rows = dayRows(ciks, o);
    indexes.set(day, masterIndex(day, rows));
    for (const [path, body] of submissionsAfter(universe.dir, day, rows)) replay.answers.set(path, body);
    log(`daily run: sync --since ${day} at ${o.rate} requests/s`);
    const daily = await cli(["sync", "--since", day, "--no-import", "--json"], {
      dataDir,
      env: syncEnv(replay, { STOCKD_SEC_REQUESTS_PER_SECOND: o.rate }),
      timeoutMs: 3_600_000,
    });
    if (daily.code !== 0 && daily.code !== 3)
      throw new Error(`daily sync exited ${daily.code}: ${daily.stderr.slice(-2000)}`);
    const paths = replay.requests.slice(firstRequests).map((r) => r.path);
    const kinds = byKind(paths);
    console.log(`\n## Daily sync, ${o.companies} companies (${machine().nproc} CPUs)\n`);
    console.log(
      markdownTable(
        ["run", "requests", "index", "submissions", "companyfacts", "documents", "wall s"],
        [
          [
            "first (--all-listed: the archives)",
            String(firstRequests),
            "0",
            "-",
            "-",
            "-",
            (first.ms / 1000).toFixed(1),
          ],
          [
            `daily (${o.periodic} periodic, ${o.form4} Forms 4, ${o.others} other rows; ${o.rate}/s)`,
            String(paths.length),
            String(kinds.index),
            String(kinds.submissions),
            String(kinds.companyfacts),
            String(kinds.documents),
            (daily.ms / 1000).toFixed(1),
          ],
        ],
      ),
    );
  } finally {
    replay.stop();
  }
}

await main();
