#!/usr/bin/env bun
/** Entry point of `stockd` (and of the compiled binary): parse argv, dispatch, exit. */
import { creditsCommand, keysCommand, usersCommand } from "./cli/accounts.ts";
import { type Io, type ParsedArgs, parseArgs, processIo, UsageError } from "./cli/args.ts";
import { demoCommand, serveCommand } from "./cli/serve.ts";
import { importCommand, snapshotsCommand } from "./cli/snapshots.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { ImportError } from "./ingest/errors.ts";
import { VERSION } from "./version.ts";

type Command = (args: ParsedArgs, config: Config, io: Io) => number | Promise<number>;

const COMMANDS: Record<string, Command> = {
  serve: serveCommand,
  demo: demoCommand,
  import: importCommand,
  snapshots: snapshotsCommand,
  users: usersCommand,
  keys: keysCommand,
  credits: creditsCommand,
};

const HELP = `stockd ${VERSION}: a self-hosted, read-only stock-data REST service

usage: stockd <command> [options]   (every command takes --data-dir DIR; --json prints one JSON object)

  serve [--port N] [--host H]        serve HTTP (default 127.0.0.1:8080); a fresh data dir gets the demo data
  demo                               build the demo data set and activate it
  import --from DIR [--lenient]      import a source directory into a new snapshot and activate it
  snapshots list | activate ID       list snapshots, switch the active one
  users create --email E [--credits N]
  keys create --user U [--name S] [--expires-at ISO8601] | list --user U | disable ID | enable ID
  credits grant --user U --amount N [--reason S] | show --user U
`;

/** Runs one command line; returns the exit code. */
export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  try {
    const args = parseArgs(argv);
    if (args.flags.has("version")) {
      io.out(VERSION);
      return 0;
    }
    const name = args.positional[0];
    if (!name || args.flags.has("help") || name === "help") {
      io.out(HELP);
      return name || args.flags.has("help") ? 0 : 2;
    }
    const command = COMMANDS[name];
    if (!command) throw new UsageError(`unknown command "${name}" (see stockd --help)`);
    const dataDir = args.flags.get("data-dir");
    const config = loadConfig({
      dataDir: typeof dataDir === "string" ? dataDir : undefined,
      port: stringFlag(args, "port"),
      host: stringFlag(args, "host"),
    });
    return await command(args, config, io);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      io.err(`stockd: ${error.message}`);
      return 2;
    }
    if (error instanceof ImportError) {
      io.err(`stockd: import failed: ${error.toString()}`);
      return 1;
    }
    throw error;
  }
}

function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name);
  return typeof v === "string" ? v : undefined;
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)));
