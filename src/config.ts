import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseSnapshotSource, type SourceSpec } from "./snapshot/source.ts";

/** Settings of one process, read once at start-up. The only reader of `process.env`. */
export interface Config {
  readonly dataDir: string;
  readonly host: string;
  readonly port: number;
  readonly logLevel: LogLevel;
  /** Bearer token for `GET /metrics`; null leaves /metrics disabled (404). */
  readonly metricsToken: string | null;
  /**
   * The URL clients reach the server at (`https://stocks.example.com`): the OAuth issuer and
   * the base of `/mcp`'s resource (docs/oauth.md). Null: the address the server listens on.
   */
  readonly publicUrl: string | null;
  /**
   * Whether OAuth clients may name a client-ID metadata document's URL as their `client_id`
   * (the server then fetches it; docs/oauth.md). Off: clients register.
   */
  readonly oauthClientMetadataDocuments: boolean;
  /**
   * The shared accounts database of several replicas (`postgres://...`; docs/scale-out.md);
   * null: the SQLite file in the data dir.
   */
  readonly accountsUrl: string | null;
  /** This replica's id on the reservations it holds in the shared accounts database. */
  readonly replicaId: string;
  /** The longest wait for one call to the shared accounts database, ms. */
  readonly accountsTimeoutMs: number;
  /** What sits between the replicas and the shared accounts database (docs/scale-out.md). */
  readonly accountsPooler: AccountsPooler;
  /** The API key `stockd mcp` serves its client with (the client's credentials); null when unset. */
  readonly apiKey: string | null;
  /** The configuration file that was read, if any. */
  readonly configFile: string | null;
  /** How often the server looks for key and credit changes made by other processes. */
  readonly accountsPollMs: number;
  /** The snapshot source a replica follows (docs/scale-out.md); null: the data dir's CURRENT only. */
  readonly snapshotSource: SourceSpec | null;
  /** How often a replica reads the snapshot source's pointer, ms. */
  readonly snapshotPollMs: number;
  /** Complete snapshots a replica following a source keeps in its data dir, the active one included. */
  readonly snapshotsKept: number;
  readonly limits: Limits;
  /** How the per-key rate is counted when several replicas serve (docs/scale-out.md). */
  readonly rateSharing: RateSharing;
  readonly sync: SyncSettings;
}

/** How the per-key rate limit is counted across replicas (docs/scale-out.md). */
export interface RateSharing {
  /** The replicas serving; without Redis each counts `limits / replicas` of its own. */
  readonly replicas: number;
  /** The Redis all replicas count the rate in (the limit then holds exactly); null: none. */
  readonly redisUrl: string | null;
}

/** Settings of `stockd sync` (docs/sync.md): the SEC client and the price provider. */
export interface SyncSettings {
  /** The declared User-Agent every SEC request carries ("Name email"); null when unset. */
  readonly secUserAgent: string | null;
  /**
   * One base URL standing for both www.sec.gov and data.sec.gov (their paths do not collide),
   * or null for the SEC's own two hosts.
   */
  readonly secUrl: string | null;
  /** SEC requests per second, all hosts together; at most 10, as the SEC asks. */
  readonly secRequestsPerSecond: number;
  /** How long all SEC traffic pauses after a 403 rate-threshold page or a 429. */
  readonly secPauseMs: number;
  /** How long one request may go without a byte, body included (a stalled connection fails at it). */
  readonly requestTimeoutMs: number;
  /** The wait before the first retry of a failed request, doubled for each further one. */
  readonly retryBackoffMs: number;
  /** The price provider, or null for none (users drop their own files into the mirror). */
  readonly priceProvider: PriceProviderName | null;
  /** The provider's pace; null for its own default (Alpha Vantage 5, Yahoo 40 a minute). */
  readonly priceRequestsPerMinute: number | null;
  /** The Alpha Vantage key; never logged. */
  readonly alphaVantageKey: string | null;
  readonly alphaVantageUrl: string;
  readonly yahooUrl: string;
}

export type PriceProviderName = "alphavantage" | "yahoo";
const PRICE_PROVIDERS: readonly PriceProviderName[] = ["alphavantage", "yahoo"];
/** The SEC's fair-access ceiling: 10 requests a second per user. */
export const SEC_MAX_REQUESTS_PER_SECOND = 10;

/** Resource limits of the serving process (see http/limits.ts). */
export interface Limits {
  readonly ratePerSecond: number;
  readonly burst: number;
  readonly maxInFlight: number;
  readonly maxInFlightPerUser: number;
  /** Heavy calls (queries over the snapshot's tables) running at once, for all users together. */
  readonly heavySlots: number;
  readonly authFailuresPerMinute: number;
  readonly requestTimeoutMs: number;
}

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error", "silent"];

/** A setting that failed validation; the message names the setting and where it came from. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Command-line values (raw strings); undefined when the flag was not given. */
export interface ConfigOverrides {
  dataDir?: string | undefined;
  host?: string | undefined;
  port?: string | undefined;
  logLevel?: string | undefined;
  /** `--config FILE`: read this file instead of looking for `stockd.toml`. */
  config?: string | undefined;
  userAgent?: string | undefined;
}

type Env = Record<string, string | undefined>;
type FileValues = Record<string, unknown>;

/** One setting as the user sees it: file key, flag, environment variable, default. */
interface Setting {
  readonly flag: keyof ConfigOverrides | null;
  readonly env: string;
  readonly fallback: string | null;
}

/**
 * Every setting, keyed by its name in the config file. The configuration table of
 * docs/operations.md lists exactly these (test/ops/config.test.ts checks it). The metrics token has no flag:
 * a command line is visible to every user of the machine.
 */
export const SETTINGS = {
  data_dir: { flag: "dataDir", env: "STOCKD_DATA_DIR", fallback: "./data" },
  host: { flag: "host", env: "HOST", fallback: "127.0.0.1" },
  port: { flag: "port", env: "PORT", fallback: "8080" },
  log_level: { flag: "logLevel", env: "STOCKD_LOG_LEVEL", fallback: "info" },
  metrics_token: { flag: null, env: "STOCKD_METRICS_TOKEN", fallback: null },
  api_key: { flag: null, env: "STOCKD_API_KEY", fallback: null },
  public_url: { flag: null, env: "STOCKD_PUBLIC_URL", fallback: null },
  accounts_url: { flag: null, env: "STOCKD_ACCOUNTS_URL", fallback: null },
  replica_id: { flag: null, env: "STOCKD_REPLICA_ID", fallback: null },
  accounts_timeout_ms: { flag: null, env: "STOCKD_ACCOUNTS_TIMEOUT_MS", fallback: "2000" },
  accounts_pooler: { flag: null, env: "STOCKD_ACCOUNTS_POOLER", fallback: "none" },
  snapshot_source: { flag: null, env: "STOCKD_SNAPSHOT_SOURCE", fallback: null },
  snapshot_poll_ms: { flag: null, env: "STOCKD_SNAPSHOT_POLL_MS", fallback: "5000" },
  snapshots_kept: { flag: null, env: "STOCKD_SNAPSHOTS_KEPT", fallback: "2" },
  oauth_client_metadata_documents: {
    flag: null,
    env: "STOCKD_OAUTH_CLIENT_METADATA_DOCUMENTS",
    fallback: "false",
  },
  rate_limit_per_second: { flag: null, env: "STOCKD_RATE_LIMIT_PER_SECOND", fallback: "100" },
  rate_limit_burst: { flag: null, env: "STOCKD_RATE_LIMIT_BURST", fallback: "200" },
  rate_limit_replicas: { flag: null, env: "STOCKD_RATE_LIMIT_REPLICAS", fallback: "1" },
  redis_url: { flag: null, env: "STOCKD_REDIS_URL", fallback: null },
  max_in_flight_per_key: { flag: null, env: "STOCKD_MAX_IN_FLIGHT_PER_KEY", fallback: "64" },
  max_in_flight_per_user: { flag: null, env: "STOCKD_MAX_IN_FLIGHT_PER_USER", fallback: "256" },
  heavy_calls_at_once: { flag: null, env: "STOCKD_HEAVY_CALLS_AT_ONCE", fallback: "2" },
  auth_failures_per_minute: { flag: null, env: "STOCKD_AUTH_FAILURES_PER_MINUTE", fallback: "30" },
  request_timeout_ms: { flag: null, env: "STOCKD_REQUEST_TIMEOUT_MS", fallback: "10000" },
  sec_user_agent: { flag: "userAgent", env: "STOCKD_SEC_USER_AGENT", fallback: null },
  sec_url: { flag: null, env: "STOCKD_SEC_URL", fallback: null },
  sec_requests_per_second: { flag: null, env: "STOCKD_SEC_REQUESTS_PER_SECOND", fallback: "5" },
  sec_pause_seconds: { flag: null, env: "STOCKD_SEC_PAUSE_SECONDS", fallback: "600" },
  sync_timeout_ms: { flag: null, env: "STOCKD_SYNC_TIMEOUT_MS", fallback: "60000" },
  sync_backoff_ms: { flag: null, env: "STOCKD_SYNC_BACKOFF_MS", fallback: "500" },
  price_provider: { flag: null, env: "STOCKD_PRICE_PROVIDER", fallback: null },
  price_requests_per_minute: { flag: null, env: "STOCKD_PRICE_REQUESTS_PER_MINUTE", fallback: null },
  alphavantage_api_key: { flag: null, env: "STOCKD_ALPHAVANTAGE_API_KEY", fallback: null },
  alphavantage_url: { flag: null, env: "STOCKD_ALPHAVANTAGE_URL", fallback: "https://www.alphavantage.co" },
  yahoo_url: { flag: null, env: "STOCKD_YAHOO_URL", fallback: "https://query1.finance.yahoo.com" },
} as const satisfies Record<string, Setting>;

type SettingName = keyof typeof SETTINGS;

/** The environment variable naming a config file (like `--config`). */
const CONFIG_ENV = "STOCKD_CONFIG";
/** The file looked for in the data directory, then in the working directory. */
const CONFIG_FILE_NAME = "stockd.toml";

/** A raw value, which source gave it, and a label naming it for error messages. */
interface Raw {
  value: unknown;
  source: "flag" | "env" | "file" | "default";
  where: string;
}

interface ConfigFile {
  path: string;
  values: FileValues;
}

/**
 * Resolves every setting: flags win over the environment, the environment over the config
 * file, the file over defaults. Validates all of them; throws a ConfigError naming the first
 * bad one (the flag, the variable, or the file and key).
 */
export function loadConfig(flags: ConfigOverrides = {}, env: Env = process.env, cwd = process.cwd()): Config {
  const file = readConfigFile(flags, env, cwd);
  const raw = (name: SettingName) => pick(name, flags, env, file);
  const config: Config = {
    dataDir: parseDataDir(raw("data_dir"), file, cwd),
    host: parseHost(raw("host")),
    port: parsePort(raw("port")),
    logLevel: parseLogLevel(raw("log_level")),
    metricsToken: parseMetricsToken(raw("metrics_token")),
    apiKey: parseApiKey(raw("api_key")),
    publicUrl: parsePublicUrl(raw("public_url")),
    accountsUrl: parseAccountsUrl(raw("accounts_url")),
    replicaId: parseReplicaId(raw("replica_id")),
    accountsTimeoutMs: parsePositive(raw("accounts_timeout_ms")),
    accountsPooler: parseAccountsPooler(raw("accounts_pooler")),
    oauthClientMetadataDocuments: parseSwitch(raw("oauth_client_metadata_documents")),
    configFile: file?.path ?? null,
    accountsPollMs: 1000,
    snapshotSource: parseSource(raw("snapshot_source")),
    snapshotPollMs: parsePositive(raw("snapshot_poll_ms")),
    snapshotsKept: parseSnapshotsKept(raw("snapshots_kept")),
    limits: Object.freeze({
      ratePerSecond: parsePositive(raw("rate_limit_per_second")),
      burst: parsePositive(raw("rate_limit_burst")),
      maxInFlight: parsePositive(raw("max_in_flight_per_key")),
      maxInFlightPerUser: parsePositive(raw("max_in_flight_per_user")),
      heavySlots: parsePositive(raw("heavy_calls_at_once")),
      authFailuresPerMinute: parsePositive(raw("auth_failures_per_minute")),
      requestTimeoutMs: parsePositive(raw("request_timeout_ms")),
    }),
    rateSharing: Object.freeze({
      replicas: parsePositive(raw("rate_limit_replicas")),
      redisUrl: parseRedisUrl(raw("redis_url")),
    }),
    sync: Object.freeze({
      secUserAgent: parseUserAgent(raw("sec_user_agent")),
      secUrl: raw("sec_url").value === null ? null : parseBaseUrl(raw("sec_url")),
      secRequestsPerSecond: parseSecRate(raw("sec_requests_per_second")),
      secPauseMs: parseSeconds(raw("sec_pause_seconds")) * 1000,
      requestTimeoutMs: parsePositive(raw("sync_timeout_ms")),
      retryBackoffMs: parsePositive(raw("sync_backoff_ms")),
      priceProvider: parsePriceProvider(raw("price_provider")),
      priceRequestsPerMinute:
        raw("price_requests_per_minute").value === null
          ? null
          : parsePositive(raw("price_requests_per_minute")),
      alphaVantageKey: parseSecret(raw("alphavantage_api_key")),
      alphaVantageUrl: parseBaseUrl(raw("alphavantage_url")),
      yahooUrl: parseBaseUrl(raw("yahoo_url")),
    }),
  };
  return Object.freeze(config);
}

/** The settings among parsed command-line flags (`--name value`; valueless flags are not settings). */
export function configOverrides(flags: ReadonlyMap<string, string | true>): ConfigOverrides {
  const get = (name: string) => {
    const value = flags.get(name);
    return typeof value === "string" ? value : undefined;
  };
  return {
    dataDir: get("data-dir"),
    host: get("host"),
    port: get("port"),
    logLevel: get("log-level"),
    config: get("config"),
    userAgent: get("user-agent"),
  };
}

function pick(name: SettingName, flags: ConfigOverrides, env: Env, file: ConfigFile | null): Raw {
  const setting: Setting = SETTINGS[name];
  const flag = setting.flag ? flags[setting.flag] : undefined;
  if (flag !== undefined) return { value: flag, source: "flag", where: `--${kebab(setting.flag as string)}` };
  // An empty variable counts as unset (`HOST=` in a compose file means "no value").
  const fromEnv = env[setting.env];
  if (fromEnv !== undefined && fromEnv !== "") return { value: fromEnv, source: "env", where: setting.env };
  if (file && Object.hasOwn(file.values, name))
    return { value: file.values[name], source: "file", where: `${file.path}: ${name}` };
  return { value: setting.fallback, source: "default", where: `default ${name}` };
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * The config file: `--config FILE` or `$STOCKD_CONFIG` (which must exist), else the first of
 * `DATA_DIR/stockd.toml` and `./stockd.toml` that exists (DATA_DIR from the flag, the
 * environment or the default). `.json` files are JSON, anything else TOML.
 */
function readConfigFile(flags: ConfigOverrides, env: Env, cwd: string): ConfigFile | null {
  const named = flags.config ?? (env[CONFIG_ENV] || undefined);
  if (named !== undefined) {
    const path = resolve(cwd, named);
    if (!existsSync(path))
      throw new ConfigError(`${flags.config !== undefined ? "--config" : CONFIG_ENV}: no file ${path}`);
    return { path, values: parseConfigFile(path) };
  }
  const dataDir = resolve(cwd, flags.dataDir ?? (env.STOCKD_DATA_DIR || SETTINGS.data_dir.fallback));
  for (const path of [join(dataDir, CONFIG_FILE_NAME), join(cwd, CONFIG_FILE_NAME)]) {
    if (!existsSync(path)) continue;
    const values = parseConfigFile(path);
    if (dirname(path) === dataDir && Object.hasOwn(values, "data_dir"))
      throw new ConfigError(`${path}: data_dir: cannot be set by the config file inside the data dir`);
    return { path, values };
  }
  return null;
}

function parseConfigFile(path: string): FileValues {
  const json = path.endsWith(".json");
  let parsed: unknown;
  try {
    const text = readFileSync(path, "utf8");
    parsed = json ? JSON.parse(text) : Bun.TOML.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^TOML Parse error: /, "") : String(error);
    throw new ConfigError(`${path}: not valid ${json ? "JSON" : "TOML"}: ${reason}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new ConfigError(`${path}: expected a table of settings`);
  for (const key of Object.keys(parsed))
    if (!Object.hasOwn(SETTINGS, key))
      throw new ConfigError(`${path}: ${key}: unknown setting (known: ${Object.keys(SETTINGS).join(", ")})`);
  return parsed as FileValues;
}

/** A relative data dir is relative to the config file that names it, else to the working dir. */
function parseDataDir(raw: Raw, file: ConfigFile | null, cwd: string): string {
  const value = nonEmptyString(raw, "a directory path");
  return resolve(raw.source === "file" && file ? dirname(file.path) : cwd, value);
}

function parseHost(raw: Raw): string {
  return nonEmptyString(raw, "a host name or IP address");
}

function parsePort(raw: Raw): number {
  const text = typeof raw.value === "number" ? String(raw.value) : raw.value;
  if (typeof text !== "string" || !/^\d{1,5}$/.test(text) || Number(text) > 65535)
    throw bad(raw, "an integer from 0 to 65535");
  return Number(text);
}

function parsePositive(raw: Raw): number {
  const text = typeof raw.value === "number" ? String(raw.value) : raw.value;
  if (typeof text !== "string" || !/^\d{1,9}$/.test(text) || Number(text) === 0)
    throw bad(raw, "a positive integer");
  return Number(text);
}

function parseLogLevel(raw: Raw): LogLevel {
  if (!(LOG_LEVELS as readonly unknown[]).includes(raw.value))
    throw bad(raw, `one of ${LOG_LEVELS.join(", ")}`);
  return raw.value as LogLevel;
}

/** An API key as `stockd mcp` presents it: printable ASCII without spaces (checked like any key once used). */
function parseApiKey(raw: Raw): string | null {
  if (raw.value === null || raw.value === "") return null;
  if (typeof raw.value !== "string" || !/^[\x21-\x7e]{1,200}$/.test(raw.value))
    throw new ConfigError(`${raw.where}: expected an API key (sk_...); the value is not shown`);
  return raw.value;
}

/** A PostgreSQL URL; its password is never repeated in an error. */
function parseAccountsUrl(raw: Raw): string | null {
  if (raw.value === null || raw.value === "") return null;
  if (
    typeof raw.value !== "string" ||
    !/^postgres(ql)?:\/\/[^\s]+$/.test(raw.value) ||
    !URL.canParse(raw.value)
  )
    throw new ConfigError(
      `${raw.where}: expected a postgres://user@host:port/database URL; the value is not shown`,
    );
  return raw.value;
}

/** `dir:/path` or `s3://bucket/prefix` (snapshot/source.ts). */
function parseSource(raw: Raw): SourceSpec | null {
  if (raw.value === null || raw.value === "") return null;
  if (typeof raw.value !== "string") throw bad(raw, "dir:/path or s3://bucket/prefix");
  try {
    return parseSnapshotSource(raw.value);
  } catch (error) {
    throw new ConfigError(`${raw.where}: ${(error as Error).message}`);
  }
}

/** At least 2: the snapshot switched from stays while calls that started on it finish. */
function parseSnapshotsKept(raw: Raw): number {
  const kept = parsePositive(raw);
  if (kept < 2) throw bad(raw, "an integer of at least 2 (the active snapshot and the one before)");
  return kept;
}

/** A `redis://` or `rediss://` URL; its password is never repeated in an error. */
function parseRedisUrl(raw: Raw): string | null {
  if (raw.value === null || raw.value === "") return null;
  if (typeof raw.value !== "string" || !/^rediss?:\/\/[^\s]+$/.test(raw.value) || !URL.canParse(raw.value))
    throw new ConfigError(
      `${raw.where}: expected a redis://[user:password@]host:port URL (rediss:// for TLS); the value is not shown`,
    );
  return raw.value;
}

/**
 * `none`: the replicas reach PostgreSQL directly (or through a pooler in session mode);
 * `transaction`: through PgBouncer (or alike) in transaction mode, which keeps neither named
 * prepared statements nor LISTEN across transactions.
 */
export type AccountsPooler = "none" | "transaction";

function parseAccountsPooler(raw: Raw): AccountsPooler {
  if (raw.value !== "none" && raw.value !== "transaction") throw bad(raw, "none or transaction");
  return raw.value;
}

/** 1–64 letters, digits, dots, dashes, underscores or colons; the host name by default. */
function parseReplicaId(raw: Raw): string {
  if (raw.value === null || raw.value === "") return hostname();
  if (typeof raw.value !== "string" || !/^[\w.:-]{1,64}$/.test(raw.value))
    throw bad(raw, "1 to 64 letters, digits, '.', '-', '_' or ':'");
  return raw.value;
}

/** `true` or `false` (a TOML or JSON boolean, or those words). */
function parseSwitch(raw: Raw): boolean {
  if (raw.value === true || raw.value === "true") return true;
  if (raw.value === false || raw.value === "false") return false;
  throw bad(raw, "true or false");
}

/**
 * An origin (scheme, host, port; no path, query or fragment), https unless the host is a
 * loopback address: OAuth tokens and API keys cross it. A trailing slash is dropped.
 */
function parsePublicUrl(raw: Raw): string | null {
  if (raw.value === null || raw.value === "") return null;
  const expected =
    "an https origin such as https://stocks.example.com (http only for 127.0.0.1, [::1] or localhost)";
  const url = typeof raw.value === "string" ? URL.parse(raw.value) : null;
  if (url?.pathname !== "/" || url.search || url.hash || url.username || url.password)
    throw bad(raw, expected);
  const loopback = ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) throw bad(raw, expected);
  return url.origin;
}

function parseMetricsToken(raw: Raw): string | null {
  if (raw.value === null || raw.value === "") return null;
  if (typeof raw.value !== "string" || !/^[\x21-\x7e]{16,200}$/.test(raw.value))
    throw new ConfigError(
      `${raw.where}: expected 16 to 200 printable ASCII characters without spaces (the value is not shown)`,
    );
  return raw.value;
}

/**
 * The SEC asks for "Sample Company Name AdminContact@<sample company domain>.com": printable
 * ASCII with an e-mail address in it.
 */
function parseUserAgent(raw: Raw): string | null {
  if (raw.value === null || raw.value === "") return null;
  if (
    typeof raw.value !== "string" ||
    !/^[\x20-\x7e]{3,200}$/.test(raw.value) ||
    !/\S+@\S+\.\S+/.test(raw.value)
  )
    throw bad(raw, 'a name and an e-mail address, e.g. "Acme Research ops@acme.example"');
  return raw.value.trim();
}

/** An http(s) URL without a query; a trailing slash is dropped. */
function parseBaseUrl(raw: Raw): string {
  const text = nonEmptyString(raw, "an http(s) URL");
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw bad(raw, "an http(s) URL");
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash)
    throw bad(raw, "an http(s) URL without a query");
  return text.replace(/\/+$/, "");
}

function parseSecRate(raw: Raw): number {
  const rate = parsePositive(raw);
  if (rate > SEC_MAX_REQUESTS_PER_SECOND)
    throw bad(raw, `at most ${SEC_MAX_REQUESTS_PER_SECOND} (the SEC's limit per user)`);
  return rate;
}

/** Whole seconds from 0 (0 only makes sense against a test server). */
function parseSeconds(raw: Raw): number {
  const text = typeof raw.value === "number" ? String(raw.value) : raw.value;
  if (typeof text !== "string" || !/^\d{1,6}$/.test(text)) throw bad(raw, "whole seconds");
  return Number(text);
}

function parsePriceProvider(raw: Raw): PriceProviderName | null {
  if (raw.value === null || raw.value === "" || raw.value === "none") return null;
  if (!(PRICE_PROVIDERS as readonly unknown[]).includes(raw.value))
    throw bad(raw, `one of none, ${PRICE_PROVIDERS.join(", ")}`);
  return raw.value as PriceProviderName;
}

/** A provider key: printable ASCII without spaces; never echoed in an error. */
function parseSecret(raw: Raw): string | null {
  if (raw.value === null || raw.value === "") return null;
  if (typeof raw.value !== "string" || !/^[\x21-\x7e]{1,200}$/.test(raw.value))
    throw new ConfigError(
      `${raw.where}: expected 1 to 200 printable ASCII characters without spaces (the value is not shown)`,
    );
  return raw.value;
}

function nonEmptyString(raw: Raw, expected: string): string {
  if (typeof raw.value !== "string" || raw.value.trim() === "") throw bad(raw, expected);
  return raw.value;
}

function bad(raw: Raw, expected: string): ConfigError {
  return new ConfigError(`${raw.where}: expected ${expected}, got ${JSON.stringify(raw.value)}`);
}
