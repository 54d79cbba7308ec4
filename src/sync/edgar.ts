/**
 * The EDGAR stage of a sync (docs/sync.md):
 * 1. the SEC's two ticker lists, at most twice a day;
 * 2. the universe: CIKs of the tickers asked for, or every listed company (`--all-listed`);
 * 3. a baseline of each company not yet in the mirror: its submissions (and their paged
 *    files), companyfacts and ownership documents filed since `form4Since` (for
 *    `--all-listed`, the two bulk archives instead);
 * 4. the daily master indexes after the watermark: companies of the universe that filed a
 *    periodic report get their submissions again, and their companyfacts unless the
 *    submissions list each of those filings without XBRL; new Form 3/4/5 filings about them
 *    are fetched. The watermark moves a day at a time, only once that
 *    day's files are all in the mirror; a day that failed is read again next run.
 */
import { addDays } from "../domain/dates.ts";
import { isAccessionNumber, tickerKey } from "../domain/tickers.ts";
import { parseOwnershipDocument, parseSubmissionText } from "../ingest/sources/form4.ts";
import { parseTickersExchange } from "../ingest/sources/tickers.ts";
import type { Logger } from "../log.ts";
import {
  coversDay,
  daysAfter,
  type IndexRow,
  isOwnershipForm,
  isPeriodicForm,
  latestFinalDay,
  parseMasterIndex,
} from "./daily-index.ts";
import { type Download, FetchFailedError } from "./http.ts";
import { BadBodyError, type BodyKind, type Mirror, sha256 } from "./mirror.ts";
import type { SyncProgress } from "./progress.ts";
import { MAX_ARCHIVE_BYTES, MAX_DOCUMENT_BYTES, MAX_JSON_BYTES, type SecClient, secFiles } from "./sec.ts";
import type { SyncState } from "./state.ts";

/** What the user asked of this run. */
export interface EdgarPlan {
  /** Tickers to add to the universe (resolved through the SEC's lists). */
  tickers: readonly string[];
  /** Every SEC-listed company. */
  allListed: boolean;
  /** Reads the daily indexes again from this day (YYYY-MM-DD) instead of the watermark. */
  since: string | null;
  /** Ownership documents of a new company are fetched back to this day. */
  form4Since: string;
  now: Date;
}

/** What the stage did. */
export interface EdgarResult {
  universe: number;
  companies: number;
  documents: number;
  indexDays: number;
  watermark: string | null;
  /** Items that failed this run (each is tried again next run). */
  failures: string[];
  /** Whether any mirror file changed. */
  changed: boolean;
}

/** A ticker the SEC's lists do not name. */
export class UnknownTickerError extends Error {
  override name = "UnknownTickerError";
}

/** The watermark of the daily indexes: the last day fully read. */
export const INDEX_WATERMARK = "edgar.daily_index";
const ALL_LISTED = "universe.all_listed";
/** The last final day when the first baseline began. */
const BASELINE_FROM = "edgar.baseline_from";
/** Ticker lists are fetched again once they are this old. */
const LISTS_MAX_AGE_MS = 12 * 3_600_000;
/** Companies fetched at once (the limiter still paces every request). */
const CONCURRENCY = 3;

interface Filing {
  cik: string;
  accession: string;
  form: string;
  /** The document to fetch (the raw XML), or null to fetch the full submission text. */
  document: string | null;
}

type Outcome = "written" | "unchanged" | "missing";

export class EdgarStage {
  private readonly result: EdgarResult = {
    universe: 0,
    companies: 0,
    documents: 0,
    indexDays: 0,
    watermark: null,
    failures: [],
    changed: false,
  };
  private universe = new Set<string>();

  constructor(
    private readonly sec: SecClient,
    private readonly mirror: Mirror,
    private readonly state: SyncState,
    private readonly progress: SyncProgress,
    private readonly log: Logger,
  ) {}

  async run(plan: EdgarPlan): Promise<EdgarResult> {
    this.progress.enter("tickers");
    this.progress.start("ticker lists");
    await this.tickerLists(plan.now);
    this.resolveUniverse(plan);
    // Cold start: the baseline holds everything filed before it began, so the indexes start
    // from the day the first attempt began (a baseline that takes several runs misses nothing).
    const coldStart = this.state.watermark(INDEX_WATERMARK) === null;
    const baselineFrom = this.state.watermark(BASELINE_FROM) ?? latestFinalDay(plan.now);
    if (coldStart) this.state.setWatermark(BASELINE_FROM, baselineFrom);
    this.progress.enter("baseline");
    const baselineOk = await this.baseline(plan);
    if (coldStart && baselineOk) this.state.setWatermark(INDEX_WATERMARK, baselineFrom);
    this.progress.enter("daily");
    if (this.state.watermark(INDEX_WATERMARK) !== null) await this.dailyIndexes(plan);
    this.result.watermark = this.state.watermark(INDEX_WATERMARK);
    return this.result;
  }

  /** Fetches both ticker lists unless fetched within the last 12 hours. */
  private async tickerLists(now: Date): Promise<void> {
    for (const [file, kind] of [
      [secFiles.tickersExchange, "tickers-exchange"],
      [secFiles.tickers, "tickers"],
    ] as const) {
      const url = this.sec.www(file.path);
      const last = this.state.fetched(url);
      if (
        last &&
        this.mirror.has(file.mirror) &&
        now.getTime() - Date.parse(last.fetchedAt) < LISTS_MAX_AGE_MS
      )
        continue;
      await this.fetchInto(url, file.mirror, kind, MAX_JSON_BYTES);
    }
  }

  /** Adds the tickers asked for to the universe (by CIK: a renamed ticker keeps its company). */
  private resolveUniverse(plan: EdgarPlan): void {
    if (!this.mirror.has(secFiles.tickersExchange.mirror))
      throw new FetchFailedError("the SEC's company_tickers_exchange.json is not in the mirror");
    const rows = parseTickersExchange(
      this.mirror.read(secFiles.tickersExchange.mirror),
      "company_tickers_exchange.json",
      {
        lenient: true,
      },
    ).rows;
    const byTicker = new Map(rows.map((r) => [tickerKey(r.ticker), r.cik]));
    const unknown = plan.tickers.filter((t) => !byTicker.has(tickerKey(t)));
    if (unknown.length > 0)
      throw new UnknownTickerError(`not in the SEC's ticker lists: ${unknown.join(", ")}`);
    this.state.addToUniverse(plan.tickers.map((t) => byTicker.get(tickerKey(t)) as string));
    if (plan.allListed) this.state.setWatermark(ALL_LISTED, "1");
    if (this.state.watermark(ALL_LISTED) === "1")
      this.state.addToUniverse(rows.filter((r) => r.exchange !== null).map((r) => r.cik));
    this.universe = new Set(this.state.universe());
    this.result.universe = this.universe.size;
    if (this.universe.size === 0)
      throw new UnknownTickerError("no universe yet: name --tickers or --all-listed");
  }

  /** Fetches what is missing of each company; for `--all-listed`, the bulk archives first. Returns whether all succeeded. */
  private async baseline(plan: EdgarPlan): Promise<boolean> {
    const failuresBefore = this.result.failures.length;
    const allListed = this.state.watermark(ALL_LISTED) === "1";
    if (allListed) await this.bulkArchives();
    const bulk = allListed && this.mirror.has(secFiles.submissionsZip.mirror);
    // A company is in the mirror once its submissions and companyfacts were both answered
    // (a 404 counts); one that failed half-way is fetched again.
    const missing = bulk
      ? []
      : [...this.universe].filter(
          (cik) =>
            this.state.fetched(this.sec.data(secFiles.submissions(cik).path)) === null ||
            this.state.fetched(this.sec.data(secFiles.companyfacts(cik).path)) === null,
        );
    this.progress.start("companies", missing.length);
    await pool(missing, CONCURRENCY, async (cik) => {
      await this.company(cik, plan.form4Since);
      this.progress.step();
    });
    return this.result.failures.length === failuresBefore;
  }

  /** Downloads submissions.zip and companyfacts.zip into the mirror's edgar/ once. */
  private async bulkArchives(): Promise<void> {
    for (const file of [secFiles.submissionsZip, secFiles.companyfactsZip]) {
      if (this.mirror.has(file.mirror)) continue;
      this.progress.start(`downloading ${file.mirror}`);
      const url = this.sec.www(file.path);
      // A download cut off (here, or in an earlier run) goes on from where it stopped.
      const download: Download = {
        path: this.mirror.partialFile(file.mirror),
        validator: this.state.downloadValidator(url),
        began: (validator) => this.state.setDownloadValidator(url, validator),
      };
      const fetched = await this.sec.http.get(url, { maxBytes: MAX_ARCHIVE_BYTES, toFile: download });
      this.mirror.commitFile(download.path, file.mirror, "zip");
      this.state.setDownloadValidator(url, null);
      this.state.recordFetch({
        url,
        status: fetched.status,
        sha256: null,
        bytes: fetched.bytes,
        etag: fetched.headers.get("etag"),
        lastModified: fetched.headers.get("last-modified"),
        path: file.mirror,
      });
      this.result.changed = true;
    }
  }

  /**
   * One company's submissions (and new paged files), companyfacts and, for a baseline (a
   * `form4Since`), its ownership documents. For a day's filings (`filed`), the companyfacts only
   * when one of them may carry XBRL facts: the fresh submissions list it with `isXBRL` 1, or do
   * not say (a filing without XBRL adds no fact to companyfacts).
   */
  private async company(
    cik: string,
    form4Since: string | null,
    filed: readonly string[] = [],
  ): Promise<void> {
    // A baseline resumed after a crash takes what it already fetched from the mirror.
    const baseline = form4Since !== null;
    try {
      const submissions = secFiles.submissions(cik);
      const submissionsUrl = this.sec.data(submissions.path);
      const outcome =
        (baseline ? this.known(submissionsUrl, submissions.mirror) : null) ??
        (await this.fetchInto(submissionsUrl, submissions.mirror, "submissions", MAX_JSON_BYTES, [404]));
      // The day's filings ask for the companyfacts unless the submissions list each without XBRL.
      let factsWanted = true;
      if (outcome !== "missing") {
        const json = JSON.parse(this.mirror.read(submissions.mirror)) as SubmissionsJson;
        factsWanted = filed.length === 0 || filed.some((accession) => xbrlFlag(json, accession) !== 0);
        for (const page of json.filings?.files ?? []) {
          const file = secFiles.submissionsPage(page.name);
          if (!this.mirror.has(file.mirror))
            await this.fetchInto(this.sec.data(file.path), file.mirror, "submissions", MAX_JSON_BYTES, [404]);
        }
        if (form4Since !== null)
          for (const filing of ownershipFilings(cik, json, form4Since)) await this.ownership(filing);
      }
      const facts = secFiles.companyfacts(cik);
      const factsUrl = this.sec.data(facts.path);
      // 404: the company files no XBRL, a normal outcome.
      if (factsWanted && (!baseline || this.known(factsUrl, facts.mirror) === null))
        await this.fetchInto(factsUrl, facts.mirror, "companyfacts", MAX_JSON_BYTES, [404]);
      this.result.companies++;
    } catch (error) {
      this.fail(`CIK ${cik}`, error);
    }
  }

  /** What an earlier fetch of `url` left: its file in the mirror, a 404, or null (nothing usable). */
  private known(url: string, path: string): Outcome | null {
    const last = this.state.fetched(url);
    if (last?.status === 404) return "missing";
    return last && this.mirror.has(path) ? "unchanged" : null;
  }

  /** Reads each daily index after the watermark (or `since`) up to the last final day. */
  private async dailyIndexes(plan: EdgarPlan): Promise<void> {
    const watermark = this.state.watermark(INDEX_WATERMARK) as string;
    const from = plan.since === null ? watermark : addDays(plan.since, -1);
    const days = daysAfter(from, latestFinalDay(plan.now));
    this.progress.start("daily indexes", days.length);
    for (const day of days) {
      const failuresBefore = this.result.failures.length;
      await this.indexDay(day);
      this.progress.step();
      // A failed day holds the watermark: the next run reads it again.
      if (this.result.failures.length > failuresBefore) break;
      if (day > (this.state.watermark(INDEX_WATERMARK) ?? "")) this.state.setWatermark(INDEX_WATERMARK, day);
      this.result.indexDays++;
    }
  }

  private async indexDay(day: string): Promise<void> {
    const url = this.sec.www(secFiles.dailyIndex(day).path);
    let rows: IndexRow[];
    try {
      const fetched = await this.sec.http.get(url, { maxBytes: MAX_DOCUMENT_BYTES, accept: [403, 404] });
      const text = new TextDecoder().decode(fetched.body);
      // Weekends have no index (404), holidays answer S3's NoSuchKey or AccessDenied (403).
      if (fetched.status === 404 || (fetched.status === 403 && /NoSuchKey|AccessDenied/.test(text))) return;
      if (fetched.status !== 200) throw new FetchFailedError(`${url}: HTTP ${fetched.status}`);
      rows = parseMasterIndex(text, `master index of ${day}`);
    } catch (error) {
      this.fail(`daily index ${day}`, error);
      return;
    }
    // The companies to fetch again, each with the day's periodic filings it made.
    const refresh = new Map<string, string[]>();
    const filings = new Map<string, Filing>();
    for (const row of rows) {
      if (!this.universe.has(row.cik)) continue;
      if (isPeriodicForm(row.form)) {
        const last = this.state.fetched(this.sec.data(secFiles.submissions(row.cik).path));
        if (!last || !coversDay(last.fetchedAt, day))
          refresh.set(row.cik, [...(refresh.get(row.cik) ?? []), row.accession]);
      } else if (isOwnershipForm(row.form) && !filings.has(row.accession))
        filings.set(row.accession, {
          cik: row.cik,
          accession: row.accession,
          form: row.form,
          document: null,
        });
    }
    this.progress.start(`daily index ${day}`, refresh.size + filings.size);
    await pool([...refresh], CONCURRENCY, async ([cik, filed]) => {
      await this.company(cik, null, filed);
      this.progress.step();
    });
    await pool([...filings.values()], CONCURRENCY, async (filing) => {
      try {
        await this.ownership(filing);
      } catch (error) {
        this.fail(`filing ${filing.accession}`, error);
      }
      this.progress.step();
    });
  }

  /**
   * One ownership filing, once: its XML document (the submissions' primary document without
   * its `xsl…/` rendering folder), else its full submission text. Kept only when its issuer is
   * in the universe (a company of the universe can also be a reporting owner).
   */
  private async ownership(filing: Filing): Promise<void> {
    const known = this.state.filing(filing.accession);
    if (known && (known.state !== "missing" || (known.nextRetryAt ?? "") > new Date().toISOString())) return;
    const text = secFiles.filingText(filing.cik, filing.accession);
    const candidates: { path: string; mirror: string; kind: BodyKind }[] = [];
    if (filing.document !== null)
      candidates.push({
        ...secFiles.filingDocument(filing.cik, filing.accession, filing.document),
        kind: "ownership-xml",
      });
    candidates.push({ ...text, kind: "ownership-text" });
    for (const candidate of candidates) {
      const url = this.sec.www(candidate.path);
      const fetched = await this.sec.http.get(url, { maxBytes: MAX_DOCUMENT_BYTES, accept: [404] });
      if (fetched.status === 404) continue;
      const issuers = issuersOf(fetched.body, candidate.mirror, candidate.kind);
      if (issuers !== null && !issuers.some((cik) => this.universe.has(cik))) {
        this.state.recordFiling(filing.accession, filing.cik, filing.form, "skipped", null);
        return;
      }
      try {
        this.mirror.write(candidate.mirror, candidate.kind, fetched.body);
      } catch (error) {
        if (!(error instanceof BadBodyError)) throw error;
        // A document the importer would refuse is left out, and tried again later.
        this.log.warn("sync document refused", { accession: filing.accession, error: error.message });
        continue;
      }
      this.recordBody(url, fetched.status, fetched.body, fetched.headers, candidate.mirror);
      this.state.recordFiling(filing.accession, filing.cik, filing.form, "fetched", candidate.mirror);
      this.result.documents++;
      this.result.changed = true;
      return;
    }
    this.state.recordFiling(filing.accession, filing.cik, filing.form, "missing", null);
  }

  /**
   * GETs `url` into the mirror at `path` after checking it as `kind`; validators of the last
   * fetch are sent back, and an unchanged body is not written again.
   */
  private async fetchInto(
    url: string,
    path: string,
    kind: BodyKind,
    maxBytes: number,
    accept: readonly number[] = [],
  ): Promise<Outcome> {
    const last = this.state.fetched(url);
    const conditional: Record<string, string> = {};
    if (last?.etag && this.mirror.has(path)) conditional["if-none-match"] = last.etag;
    if (last?.lastModified && this.mirror.has(path)) conditional["if-modified-since"] = last.lastModified;
    const fetched = await this.sec.http.get(url, { maxBytes, accept, headers: conditional });
    if (fetched.status === 404 || fetched.status === 304) {
      this.state.recordFetch({ ...(last ?? emptyRecord(url)), status: fetched.status, url });
      return fetched.status === 404 ? "missing" : "unchanged";
    }
    const hash = sha256(fetched.body);
    const unchanged = last?.sha256 === hash && this.mirror.has(path);
    if (!unchanged) {
      this.mirror.write(path, kind, fetched.body);
      this.result.changed = true;
    }
    this.recordBody(url, fetched.status, fetched.body, fetched.headers, path, hash);
    return unchanged ? "unchanged" : "written";
  }

  private recordBody(
    url: string,
    status: number,
    body: Uint8Array,
    headers: Headers,
    path: string,
    hash = sha256(body),
  ) {
    this.state.recordFetch({
      url,
      status,
      sha256: hash,
      bytes: body.byteLength,
      etag: headers.get("etag"),
      lastModified: headers.get("last-modified"),
      path,
    });
  }

  /** Records a failed item and goes on; a stopped source (a block, a refused User-Agent) ends the run. */
  private fail(what: string, error: unknown): void {
    if (!(error instanceof FetchFailedError || error instanceof BadBodyError || error instanceof SyntaxError))
      throw error;
    this.result.failures.push(`${what}: ${error.message}`);
    this.log.warn("sync item failed", { item: what, error: error.message });
  }
}

interface SubmissionsJson {
  filings?: {
    recent?: {
      accessionNumber?: string[];
      form?: string[];
      filingDate?: string[];
      primaryDocument?: string[];
      isXBRL?: number[];
    };
    files?: { name: string }[];
  };
}

/** A filing's `isXBRL` (1: it has XBRL data, 0: none) as its submissions list it; null when they do not say. */
function xbrlFlag(json: SubmissionsJson, accession: string): number | null {
  const recent = json.filings?.recent;
  const at = recent?.accessionNumber?.indexOf(accession) ?? -1;
  return at < 0 ? null : (recent?.isXBRL?.[at] ?? null);
}

/** The ownership filings a submissions file lists since a day, with their raw XML document. */
function ownershipFilings(cik: string, json: SubmissionsJson, since: string): Filing[] {
  const recent = json.filings?.recent;
  const out: Filing[] = [];
  for (const [i, form] of (recent?.form ?? []).entries()) {
    const accession = recent?.accessionNumber?.[i];
    const filed = recent?.filingDate?.[i] ?? "";
    // The number goes into an SEC URL and the mirror's paths: only EDGAR's own form passes.
    if (!accession || !isAccessionNumber(accession) || !isOwnershipForm(form) || filed < since) continue;
    // `xslF345X05/doc.xml` is the HTML rendering of `doc.xml`, which holds the XML itself.
    const document = (recent?.primaryDocument?.[i] ?? "").replace(/^xsl[^/]*\//, "");
    out.push({ cik, accession, form, document: /^[A-Za-z0-9_.-]+\.xml$/.test(document) ? document : null });
  }
  return out;
}

/** The issuer CIKs of an ownership document or submission text; null when it is none (refused on write). */
function issuersOf(body: Uint8Array, file: string, kind: BodyKind): string[] | null {
  const text = new TextDecoder().decode(body);
  try {
    if (kind === "ownership-xml") return [parseOwnershipDocument(text, file).issuer.cik];
    return parseSubmissionText(text, file).map((f) => f.issuer.cik);
  } catch {
    return null;
  }
}

function emptyRecord(url: string) {
  return { url, status: 0, sha256: null, bytes: 0, etag: null, lastModified: null, path: null };
}

/**
 * Runs `work` over `items`, at most `limit` at once. After a throw no new item starts; the
 * first error is thrown once the items under way have ended.
 */
export async function pool<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (failure === null && next < items.length) {
      try {
        await work(items[next++] as T);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
}
