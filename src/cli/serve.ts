import { AccountsStore } from "../accounts/store.ts";
import type { Config } from "../config.ts";
import { buildDemo } from "../demo/index.ts";
import { createLogger } from "../log.ts";
import { startServer } from "../server.ts";
import { readCurrent } from "../snapshot/store.ts";
import { accountsDbPath } from "./accounts.ts";
import { Flags, type Io, type ParsedArgs, printResult } from "./args.ts";
import { progressPrinter } from "./snapshots.ts";

const DEMO_EMAIL = "demo@stockd.local";
const DEMO_CREDITS = 10_000;

/** `serve [--port N] [--host H]`: on a fresh data dir, builds the demo data and a demo key first. */
export async function serveCommand(args: ParsedArgs, config: Config, io: Io): Promise<number> {
  new Flags(args, ["port", "host"]);
  const demoKey = await firstRunDemo(config, io);
  const server = await startServer(config, createLogger(config.logLevel));
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
  await server.stop();
  return 0;
}

/** With no snapshot and no accounts, imports the demo data and creates a demo user and key. */
async function firstRunDemo(config: Config, io: Io): Promise<string | null> {
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
