/**
 * SEC EDGAR as the SEC asks to be used (docs/sync.md): a declared User-Agent on every request,
 * one pace for www.sec.gov and data.sec.gov together (5 a second by default, never above 10),
 * and on a 403 "Request Rate Threshold Exceeded" page or a 429 a pause of all SEC requests
 * (10 minutes by default: the block lifts only after 10 minutes under the threshold).
 */
import type { SyncSettings } from "../config.ts";
import type { Logger } from "../log.ts";
import { HttpSource, Limiter, type Verdict } from "./http.ts";

/** The SEC's two hosts; `STOCKD_SEC_URL` stands for both (their paths do not collide). */
const WWW = "https://www.sec.gov";
const DATA = "https://data.sec.gov";

/** Largest bodies accepted: the importer's own limits (docs/sources.md, "Size"). */
export const MAX_JSON_BYTES = 256 * 1024 * 1024;
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;
/** A bulk archive (companyfacts.zip is about 1.4 GB in 2026). */
export const MAX_ARCHIVE_BYTES = 16 * 1024 * 1024 * 1024;

/** The SEC's answer to an undeclared client: retrying cannot help, the User-Agent must change. */
const UNDECLARED = /Undeclared Automated Tool/i;
const THRESHOLD = /Request Rate Threshold Exceeded/i;

/** Classifies an SEC answer: throttles pause every SEC request, an undeclared-tool page stops the run. */
export function classifySec(pauseMs: number) {
  return (status: number, body: string): Verdict => {
    if (status === 429) return { kind: "throttled", pauseMs, reason: "429 Too Many Requests" };
    if (status === 403 && THRESHOLD.test(body))
      return { kind: "throttled", pauseMs, reason: "403 Request Rate Threshold Exceeded" };
    if (status === 403 && UNDECLARED.test(body))
      return {
        kind: "fatal",
        reason: "the SEC refuses this User-Agent as an undeclared tool (name and e-mail needed)",
      };
    return { kind: "ok" };
  };
}

/** The SEC client of one run. */
export class SecClient {
  readonly http: HttpSource;

  constructor(
    private readonly settings: SyncSettings,
    userAgent: string,
    log: Logger,
  ) {
    this.http = new HttpSource({
      name: "sec",
      limiter: new Limiter(settings.secRequestsPerSecond),
      headers: { "user-agent": userAgent },
      timeoutMs: settings.requestTimeoutMs,
      backoffMs: settings.retryBackoffMs,
      classify: classifySec(settings.secPauseMs),
      log,
    });
  }

  /** The URL of a www.sec.gov path (`/files/...`, `/Archives/...`). */
  www(path: string): string {
    return `${this.settings.secUrl ?? WWW}${path}`;
  }

  /** The URL of a data.sec.gov path (`/submissions/...`, `/api/xbrl/...`). */
  data(path: string): string {
    return `${this.settings.secUrl ?? DATA}${path}`;
  }
}

/** The SEC's URLs and the mirror paths their bodies go to (docs/sources.md). */
export const secFiles = {
  tickersExchange: {
    path: "/files/company_tickers_exchange.json",
    mirror: "edgar/company_tickers_exchange.json",
  },
  tickers: { path: "/files/company_tickers.json", mirror: "edgar/company_tickers.json" },
  submissionsZip: {
    path: "/Archives/edgar/daily-index/bulkdata/submissions.zip",
    mirror: "edgar/submissions.zip",
  },
  companyfactsZip: {
    path: "/Archives/edgar/daily-index/xbrl/companyfacts.zip",
    mirror: "edgar/companyfacts.zip",
  },
  submissions: (cik: string) => ({
    path: `/submissions/CIK${cik}.json`,
    mirror: `edgar/submissions/CIK${cik}.json`,
  }),
  /** A paged submissions file named by `filings.files[].name`. */
  submissionsPage: (name: string) => ({ path: `/submissions/${name}`, mirror: `edgar/submissions/${name}` }),
  companyfacts: (cik: string) => ({
    path: `/api/xbrl/companyfacts/CIK${cik}.json`,
    mirror: `edgar/companyfacts/CIK${cik}.json`,
  }),
  /** One document of a filing (its folder is the accession without dashes). */
  filingDocument: (cik: string, accession: string, document: string) => {
    const folder = accession.replaceAll("-", "");
    return {
      path: `/Archives/edgar/data/${Number(cik)}/${folder}/${document}`,
      mirror: `edgar/form4/${folder}/${document}`,
    };
  },
  /** A filing's full submission text (every document inline). */
  filingText: (cik: string, accession: string) => ({
    path: `/Archives/edgar/data/${Number(cik)}/${accession}.txt`,
    mirror: `edgar/form4/${accession}.txt`,
  }),
  dailyIndex: (day: string) => {
    const [y, m, d] = day.split("-");
    const quarter = Math.floor((Number(m) - 1) / 3) + 1;
    return { path: `/Archives/edgar/daily-index/${y}/QTR${quarter}/master.${y}${m}${d}.idx`, mirror: null };
  },
};
