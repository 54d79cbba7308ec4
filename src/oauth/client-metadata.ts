import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import type { IncomingMessage } from "node:http";
import { request } from "node:https";
import { BlockList, isIP } from "node:net";
import { hasControlCharacters, MAX_REDIRECT_URI_LENGTH, redirectUriProblem } from "./redirect-uris.ts";
import { MAX_CLIENT_NAME, MAX_REDIRECT_URIS } from "./register.ts";
import type { OAuthClient } from "./seam.ts";

/**
 * Client-ID metadata documents (the MCP authorization spec's preferred registration): a client
 * whose `client_id` is an https URL publishes its metadata there, and the authorization server
 * fetches it. Off unless configured (`oauth_client_metadata_documents`): it makes this server
 * fetch URLs a stranger names, which an offline server cannot and a careless one must not.
 * The fetch is guarded: https only, public addresses only (checked when connecting, so a
 * name that resolves differently later gains nothing), no redirects, a size and a time cap.
 */

/** A document larger than this is refused. */
export const MAX_DOCUMENT_BYTES = 64 * 1024;
/** The whole fetch (connection, TLS, body) must end within this. */
export const FETCH_TIMEOUT_MS = 5_000;
/** A document is kept at most this long (less when its Cache-Control says so). */
const MAX_CACHE_MS = 3600_000;
/** Documents kept at once. */
const MAX_CACHED = 1_000;

/** What a fetch gave: the document's text and how long it may be kept, or why there is none. */
export type Fetched = { ok: true; body: string; maxAgeMs: number } | { ok: false; problem: string };

/** Fetches a client's metadata document (the guarded https fetch, or a test's stand-in). */
export type DocumentFetcher = (url: URL) => Promise<Fetched>;

/** Whether a `client_id` is a metadata document's URL: https, a path, nothing else odd. */
export function isClientMetadataUrl(clientId: string): boolean {
  if (clientId.length > MAX_REDIRECT_URI_LENGTH || !clientId.startsWith("https://")) return false;
  const url = URL.parse(clientId);
  return (
    url !== null &&
    url.href === clientId &&
    url.pathname !== "/" &&
    url.hash === "" &&
    url.username === "" &&
    url.password === ""
  );
}

/**
 * The client a metadata document describes, fetched and checked (cached as its headers allow):
 * its `client_id` must be the URL it was fetched from, its redirect URIs valid, the client
 * public (no secret to present). Returns the client or the reason it cannot be used.
 */
export class ClientMetadataDocuments {
  private readonly cache = new Map<string, { client: OAuthClient; until: number }>();

  constructor(
    private readonly fetcher: DocumentFetcher,
    private readonly now: () => Date,
  ) {}

  async client(clientId: string): Promise<OAuthClient | string> {
    const at = this.now().getTime();
    const cached = this.cache.get(clientId);
    if (cached && cached.until > at) return cached.client;
    const fetched = await this.fetcher(new URL(clientId));
    if (!fetched.ok) return fetched.problem;
    const client = clientOf(clientId, fetched.body, this.now());
    if (typeof client === "string") return client;
    if (fetched.maxAgeMs > 0) {
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(clientId, { client, until: at + Math.min(fetched.maxAgeMs, MAX_CACHE_MS) });
    }
    return client;
  }
}

/** A document's client, or what is wrong with it. */
function clientOf(clientId: string, text: string, now: Date): OAuthClient | string {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return "the document is not JSON";
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    return "the document is not a JSON object";
  const fields = doc as Record<string, unknown>;
  if (fields.client_id !== clientId) return "the document's client_id is not the URL it was fetched from";
  const uris = fields.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS)
    return `the document must list 1 to ${MAX_REDIRECT_URIS} redirect_uris`;
  for (const uri of uris)
    if (typeof uri !== "string" || redirectUriProblem(uri) !== null)
      return `the redirect URI ${JSON.stringify(uri).slice(0, 80)} is not allowed`;
  const method = fields.token_endpoint_auth_method ?? "none";
  if (method !== "none") return "this server takes public clients only (token_endpoint_auth_method none)";
  const name = fields.client_name;
  const clientName =
    typeof name === "string" &&
    name.trim() !== "" &&
    name.length <= MAX_CLIENT_NAME &&
    !hasControlCharacters(name)
      ? name.trim()
      : null;
  const grants = Array.isArray(fields.grant_types)
    ? fields.grant_types
    : ["authorization_code", "refresh_token"];
  const grantTypes = ["authorization_code", "refresh_token"].filter((g) => grants.includes(g));
  return {
    client_id: clientId,
    client_name: clientName,
    redirect_uris: uris as string[],
    grant_types: grantTypes.includes("authorization_code") ? grantTypes : ["authorization_code"],
    metadata: { client_id: clientId, client_id_metadata_document: true },
    created_at: now.toISOString(),
  };
}

/** Addresses a fetch must never reach: this machine, private networks, link-local, reserved ranges. */
const NOT_PUBLIC = (() => {
  const list = new BlockList();
  for (const [net, prefix] of [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.0.0.0", 24],
    ["192.0.2.0", 24],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15],
    ["198.51.100.0", 24],
    ["203.0.113.0", 24],
    ["224.0.0.0", 3],
  ] as const)
    list.addSubnet(net, prefix, "ipv4");
  for (const [net, prefix] of [
    ["::", 127],
    ["64:ff9b::", 96],
    ["100::", 64],
    ["2001:db8::", 32],
    ["fc00::", 7],
    ["fe80::", 10],
    ["ff00::", 8],
  ] as const)
    list.addSubnet(net, prefix, "ipv6");
  return list;
})();

/** Whether an IP address is a public unicast address (IPv4-mapped IPv6 judged as its IPv4). */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? "ipv4" : "ipv6");
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/** A DNS lookup that yields only allowed addresses, so the connection itself can reach no other. */
function guardedLookup(allowed: (address: string) => boolean) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true }, (error, addresses) => {
      if (error) return callback(error, "");
      if (addresses.length === 0 || !addresses.every((a) => allowed(a.address)))
        return callback(new Error(`${hostname} resolves to an address that is not public`), "");
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

/** `Cache-Control: max-age=N` in ms (0 when absent, or when the response may not be stored). */
function maxAgeOf(cacheControl: string | undefined): number {
  if (!cacheControl || /no-store|no-cache/i.test(cacheControl)) return 0;
  const seconds = Number(/max-age=(\d{1,9})/i.exec(cacheControl)?.[1] ?? "0");
  return seconds * 1000;
}

/** What a guarded fetcher may be told besides its defaults (tests: a loopback server and its certificate). */
export interface FetcherOptions {
  /** Which addresses it may connect to; public ones by default. */
  allowed?: (address: string) => boolean;
  /** Certificate authorities to trust instead of the system's. */
  ca?: string;
}

/**
 * The guarded fetch of a metadata document over https: a literal IP that is not allowed is
 * refused before connecting, a name must resolve to allowed addresses only, 200 only (a
 * redirect is refused, not followed), at most MAX_DOCUMENT_BYTES, within FETCH_TIMEOUT_MS.
 */
export function documentFetcher(options: FetcherOptions = {}): DocumentFetcher {
  const allowed = options.allowed ?? isPublicAddress;
  const lookup = guardedLookup(allowed);
  return (url) =>
    new Promise((resolve) => {
      const host = url.hostname.replace(/^\[|\]$/g, "");
      if (url.protocol !== "https:")
        return resolve({ ok: false, problem: "the document must be served over https" });
      if (isIP(host) !== 0 && !allowed(host))
        return resolve({ ok: false, problem: "the document's host is not a public address" });
      const done = (result: Fetched) => {
        clearTimeout(timer);
        resolve(result);
      };
      const req = request(
        url,
        {
          method: "GET",
          headers: { accept: "application/json" },
          lookup: lookup as never,
          ...(options.ca ? { ca: options.ca } : {}),
        },
        (res) => readDocument(res, done),
      );
      const timer = setTimeout(() => {
        req.destroy();
        done({ ok: false, problem: `fetching the document took longer than ${FETCH_TIMEOUT_MS} ms` });
      }, FETCH_TIMEOUT_MS);
      req.on("error", (error) =>
        done({ ok: false, problem: `the document could not be fetched: ${error.message}` }),
      );
      req.end();
    });
}

/** A response's document: 200 only, at most MAX_DOCUMENT_BYTES; `done` is told once. */
function readDocument(res: IncomingMessage, done: (result: Fetched) => void): void {
  if (res.statusCode !== 200) {
    res.destroy();
    done({
      ok: false,
      problem: `fetching the document answered ${res.statusCode} (redirects are not followed)`,
    });
    return;
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  res.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > MAX_DOCUMENT_BYTES) {
      res.destroy();
      done({ ok: false, problem: `the document is larger than ${MAX_DOCUMENT_BYTES} bytes` });
      return;
    }
    chunks.push(chunk);
  });
  res.on("end", () =>
    done({
      ok: true,
      body: Buffer.concat(chunks).toString("utf8"),
      maxAgeMs: maxAgeOf(res.headers["cache-control"]),
    }),
  );
  res.on("error", () => done({ ok: false, problem: "the document could not be read" }));
}

/** The fetcher of a serving stockd: public addresses only, the system's certificate authorities. */
export const fetchDocument: DocumentFetcher = documentFetcher();
