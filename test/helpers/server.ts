/**
 * The real server in this process, over a data dir built once per test process and copied for
 * each server (the demo snapshot, or an import of a source directory), and the fixtures that
 * start one before a file's (or a describe's) tests and stop it after.
 */
import { afterAll, beforeAll, expect } from "bun:test";
import { join } from "node:path";
import { AccountsStore } from "../../src/accounts/store.ts";
import { type Config, type Limits, loadConfig } from "../../src/config.ts";
import { buildDemo } from "../../src/demo/index.ts";
import { importSources } from "../../src/ingest/pipeline/import.ts";
import { createLogger, type Logger } from "../../src/log.ts";
import { type RunningServer, startServer } from "../../src/server.ts";
import { copyToTemp, tempDir } from "./env.ts";
import type { Json } from "./raw-sources.ts";

/** Data directories built once per test process and copied for each test server. */
const templates = new Map<string, Promise<string>>();

function template(name: string, build: (dataDir: string) => Promise<unknown>): Promise<string> {
  let dir = templates.get(name);
  if (!dir) {
    dir = (async () => {
      // Kept for the whole test run (other files copy it).
      const d = tempDir("stockd-template-");
      await build(d);
      return d;
    })();
    templates.set(name, dir);
  }
  return dir;
}

/** A data dir holding the demo snapshot (a private copy). */
export async function demoDataDir(): Promise<string> {
  return copyToTemp(await template("demo", (d) => buildDemo(d)));
}

/** A data dir holding a snapshot imported from a source directory (a private copy). */
export async function importedDataDir(from: string): Promise<string> {
  return copyToTemp(await template(`import:${from}`, (d) => importSources(from, d)));
}

export interface TestServer extends Omit<RunningServer, "accounts"> {
  /** Test servers run on the SQLite accounts store. */
  accounts: AccountsStore;
  dataDir: string;
  /** Creates a user with `credits` and a key; returns both. */
  newKey(
    credits: number,
    opts?: { expiresAt?: string | null },
  ): { userId: string; key: string; keyId: string };
  /** GET with the key as a Bearer token. */
  get(path: string, key?: string | null, init?: RequestInit): Promise<Response>;
}

let users = 0;

export interface TestServerOptions {
  pollMs?: number;
  /** Settings on top of the defaults (e.g. `metricsToken`). */
  config?: Partial<Config>;
  /** Where the server logs; silent by default. */
  log?: Logger;
}

const UNLIMITED: Limits = {
  ratePerSecond: 1_000_000,
  burst: 1_000_000,
  maxInFlight: 100_000,
  maxInFlightPerUser: 100_000,
  heavySlots: 100_000,
  authFailuresPerMinute: 1_000_000,
  requestTimeoutMs: 30_000,
};

/** Test-server limits that are effectively unlimited except for what `over` sets. */
export function limits(over: Partial<Limits> = {}): Limits {
  return { ...UNLIMITED, ...over };
}

function withoutLimits(config: Partial<Config> = {}): Partial<Config> {
  const { limits: _, ...rest } = config;
  return rest;
}

/** Starts the real server on a free port over `dataDir` (a fresh empty one by default). */
export async function startTestServer(dataDir?: string, opts: TestServerOptions = {}): Promise<TestServer> {
  const dir = dataDir ?? tempDir();
  const config = {
    ...loadConfig({ dataDir: dir, port: "0", host: "127.0.0.1" }, {}, dir),
    accountsPollMs: opts.pollMs ?? 200,
    // Tests drive one key hard; the limits' own tests set them low on purpose.
    limits: { ...UNLIMITED, ...opts.config?.limits },
    ...withoutLimits(opts.config),
  };
  const server = await startServer(config, opts.log ?? createLogger("silent"));
  const accounts = server.accounts;
  if (!(accounts instanceof AccountsStore))
    throw new Error("a test server runs on the SQLite accounts store");
  return {
    ...server,
    accounts,
    dataDir: dir,
    newKey(credits, o = {}) {
      const user = accounts.createUser(`user${++users}@example.test`, credits);
      if (!user.ok) throw new Error(user.message);
      const { key, info } = accounts.createKey(user.value.id, null, o.expiresAt ?? null);
      return { userId: user.value.id, key, keyId: info.id };
    },
    get(path, key, init = {}) {
      const headers = new Headers(init.headers);
      if (key) headers.set("authorization", `Bearer ${key}`);
      return fetch(`${server.url}${path}`, { ...init, headers });
    },
  };
}

/** A second connection to a server's accounts DB, as the CLI would open it. */
export function openAccounts(dataDir: string): AccountsStore {
  return AccountsStore.open(join(dataDir, "accounts.db"));
}

/**
 * Registers, in the file or describe that calls it, a test server over `dataDir()` started
 * before its tests (then `started` is called with it) and stopped after, and returns it: the
 * object stands for the running server (used outside a test or hook, before the start, it
 * throws).
 */
function serverFixture(
  dataDir: () => Promise<string>,
  opts: TestServerOptions = {},
  started: (server: TestServer) => void = () => {},
): TestServer {
  let running: TestServer | undefined;
  // Building the data dir template (the demo, an import of the fixtures) takes seconds, more
  // on a loaded machine.
  beforeAll(async () => {
    running = await startTestServer(await dataDir(), opts);
    started(running);
  }, 180_000);
  afterAll(() => running?.stop());
  const current = (): TestServer => {
    if (!running) throw new Error("the test server starts in beforeAll: use it in a test or a hook");
    return running;
  };
  return new Proxy({} as TestServer, {
    get: (_, name) => Reflect.get(current(), name),
    set: (_, name, value) => Reflect.set(current(), name, value),
    has: (_, name) => Reflect.has(current(), name),
  });
}

/** The demo server fixture: a test server over a private copy of the demo snapshot (see `serverFixture`). */
export function useDemoServer(opts: TestServerOptions = {}): TestServer {
  return serverFixture(demoDataDir, opts);
}

/**
 * Runs `body` with a test server of its own over a private copy of the demo snapshot, with the
 * limits `over` sets (the others lifted, see `limits`), stopped after.
 */
export async function withDemoServer<T>(
  over: Partial<Limits>,
  body: (server: TestServer) => Promise<T>,
): Promise<T> {
  const server = await startTestServer(await demoDataDir(), { config: { limits: limits(over) } });
  try {
    return await body(server);
  } finally {
    await server.stop();
  }
}

/**
 * Called inside a describe: a server over the import of `sources` and a key with ample
 * credits, started before its tests and stopped after. `get` asserts a 200 and returns the
 * JSON body.
 */
export function serverOverImport(sources: string) {
  let key = "";
  const server = serverFixture(
    () => importedDataDir(sources),
    {},
    (running) => {
      key = running.newKey(100_000).key;
    },
  );
  return {
    server,
    get key(): string {
      return key;
    },
    async get<T = Json>(path: string): Promise<T> {
      const res = await server.get(path, key);
      expect(res.status, path).toBe(200);
      return (await res.json()) as T;
    },
  };
}
