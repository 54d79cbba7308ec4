#!/usr/bin/env bun
/** Entry point of `stockd` (and of the compiled binary): parse argv, dispatch, exit. */
import { creditsCommand, keysCommand, usersCommand } from "./cli/accounts.ts";
import { type Io, type ParsedArgs, parseArgs, processIo, UsageError } from "./cli/args.ts";
import { backupCommand } from "./cli/backup.ts";
import { doctorCommand } from "./cli/doctor.ts";
import { exportCommand } from "./cli/export.ts";
import { healthcheckCommand } from "./cli/healthcheck.ts";
import { commandHelp, generalHelp } from "./cli/help.ts";
import { mcpCommand } from "./cli/mcp.ts";
import { accountsCommand, migrateCommand } from "./cli/migrate.ts";
import { oauthCommand } from "./cli/oauth.ts";
import { demoCommand, serveCommand } from "./cli/serve.ts";
import { importCommand, snapshotsCommand } from "./cli/snapshots.ts";
import { syncCommand } from "./cli/sync.ts";
import { type Config, ConfigError, configOverrides, loadConfig } from "./config.ts";
import { ImportError } from "./ingest/errors.ts";
import { BUILD, VERSION } from "./version.ts";

type Command = (args: ParsedArgs, config: Config, io: Io) => number | Promise<number>;

const COMMANDS: Record<string, Command> = {
  serve: serveCommand,
  demo: demoCommand,
  import: importCommand,
  sync: syncCommand,
  snapshots: snapshotsCommand,
  users: usersCommand,
  keys: keysCommand,
  credits: creditsCommand,
  healthcheck: healthcheckCommand,
  doctor: doctorCommand,
  backup: backupCommand,
  export: exportCommand,
  mcp: mcpCommand,
  migrate: migrateCommand,
  accounts: accountsCommand,
  oauth: oauthCommand,
};

/**
 * Runs one command line; returns the exit code. Settings come from `env` when given (tests),
 * else from the process environment (read by config.ts).
 */
export async function main(
  argv: readonly string[],
  io: Io = processIo,
  env?: Record<string, string | undefined>,
): Promise<number> {
  try {
    const args = parseArgs(argv);
    if (args.flags.has("version")) return printVersion(io, args.flags.has("json"));
    const help = requestedHelp(args);
    if (help) {
      io.out(help.text);
      return help.code;
    }
    const name = args.positional[0] as string;
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!command) throw new UsageError(`unknown command "${name}" (see stockd --help)`);
    const config = loadConfig(configOverrides(args.flags), env);
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

/**
 * The help the command line asks for (`--help`, `help [COMMAND]`, `COMMAND --help`), or null
 * when it names a command to run. No command at all prints the overview and exits 2.
 */
function requestedHelp(args: ParsedArgs): { text: string; code: number } | null {
  const [name, topic] = args.positional;
  if (!name) return { text: generalHelp(VERSION), code: args.flags.has("help") ? 0 : 2 };
  if (name === "help") return { text: (topic && commandHelp(topic)) || generalHelp(VERSION), code: 0 };
  const text = args.flags.has("help") ? commandHelp(name) : null;
  return text === null ? null : { text, code: 0 };
}

/** `--version`: the version and, in a built binary, its commit and build time. */
function printVersion(io: Io, json: boolean): number {
  if (json) io.out(JSON.stringify({ version: VERSION, commit: BUILD.commit, built_at: BUILD.builtAt }));
  else {
    const built = BUILD.builtAt ? ` (commit ${BUILD.commit ?? "unknown"}, built ${BUILD.builtAt})` : "";
    io.out(`stockd ${VERSION}${built}`);
  }
  return 0;
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)));
