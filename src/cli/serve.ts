import { AccountsStore } from "../accounts/store.ts";
import type { Config } from "../config.ts";
import { buildDemo } from "../demo/index.ts";
import { createLogger } from "../log.ts";
import { startServer } from "../server.ts";
import { readCurrent } from "../snapshot/store.ts";
import { parseInterval, scheduleSync } from "../sync/schedule.ts";
import { accountsDbPath } from "./accounts.ts";
import { Flags, type Io, type ParsedArgs, printResult, UsageError } from "./args.ts";
import { progressPrinter } from "./snapshots.ts";

const DEMO_EMAIL = "demo@stockd.local";
const DEMO_CREDITS = 10_000;

/**
 * `serve [--port N] [--host H] [--sync-every 24h]`: on a fresh data dir, builds the demo data and
 * a demo key first; with --sync-every, runs `stockd sync` on that interval (docs/sync.md).
 */
export async function serveCommand(args: ParsedArgs, config: Config, io: Io): Promise<number> {
  const flags = new Flags(args, ["port", "host", "sync-every"]);
  const syncEvery = syncInterval(flags.string("sync-every"), config);
  const demoKey = await firstRunDemo(config, io);
  const log = createLogger(config.logLevel);
  const server = await startServer(config, log);
  const schedule =
    syncEvery === null ? null : scheduleSync(config, config.sync.secUserAgent as string, syncEvery, log);
  io.err(`stockd listening on ${server.url} (docs: ${server.url}/docs)`);
  if (demoKey)
    io.err(
      `demo API key (shown once): ${demoKey}\n  try: curl -H "Authorization: Bearer ${demoKey}" ${server.url}/stocks/DWGT/profile`,
    );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  // `once`: a second signal gets the default action, so a stuck shutdown can still be forced.
  io.err("stopping: finishing calls in flight (signal again to force)");
  schedule?.stop();
  await server.stop();
  return 0;
}

/** The --sync-every interval in ms, or null; it needs the SEC User-Agent from the config. */
function syncInterval(text: string | undefined, config: Config): number | null {
  if (text === undefined) return null;
  const ms = parseInterval(text);
  if (ms === null)
    throw new UsageError(`--sync-every must be a duration like 24h, 30m or 90s, got "${text}"`);
  if (config.sync.secUserAgent === null)
    throw new UsageError("--sync-every needs sec_user_agent in the config file (or STOCKD_SEC_USER_AGENT)");
  return ms;
}

/**
 * With no snapshot and no accounts, imports the demo data and creates a demo user and key. On
 * the shared accounts database (several replicas) no demo user is made: people are added there
 * with the CLI; a replica following a snapshot source serves what is published there
 * (docs/scale-out.md).
 */
async function firstRunDemo(config: Config, io: Io): Promise<string | null> {
  if (config.accountsUrl !== null || config.snapshotSource !== null) return null;
  const store = AccountsStore.open(accountsDbPath(config));
  try {
    if (readCurrent(config.dataDir) !== null || store.userCount() > 0) return null;
    const progress = progressPrinter(io);
    await buildDemo(config.dataDir, progress);
    progress.done();
    const user = store.createUser(DEMO_EMAIL, DEMO_CREDITS);
    if (!user.ok) throw new Error(user.message);
    return store.createKey(user.value.id, "demo", null).key;
  } finally {
    store.close();
  }
}

/** `demo`: builds the demo data set into the data dir and activates it. */
export async function demoCommand(args: ParsedArgs, config: Config, io: Io): Promise<number> {
  const flags = new Flags(args, []);
  const progress = progressPrinter(io);
  const manifest = await buildDemo(config.dataDir, progress);
  progress.done();
  printResult(io, flags.bool("json"), { id: manifest.id, data_as_of: manifest.data_as_of }, [
    `demo snapshot ${manifest.id} imported and activated`,
  ]);
  return 0;
}
