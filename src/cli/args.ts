/** A command-line mistake: printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string | true>;
}

/** Flags that never take a value. */
const BOOLEAN_FLAGS = new Set(["json", "lenient", "help", "version", "all-listed", "no-import", "all"]);

/** Splits argv into positionals and `--flag value` / `--flag=value` / boolean flags. */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (eq >= 0) flags.set(name, arg.slice(eq + 1));
    else if (BOOLEAN_FLAGS.has(name)) flags.set(name, true);
    else {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith("--")) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
      i++;
    }
  }
  return { positional, flags };
}

/** Reads flags for one command, refusing any it does not know. */
export class Flags {
  constructor(
    private readonly args: ParsedArgs,
    allowed: readonly string[],
  ) {
    // Settings every command takes (read by config.ts before the command runs).
    const known = new Set([...allowed, "data-dir", "config", "log-level", "json", "help"]);
    for (const name of args.flags.keys())
      if (!known.has(name)) throw new UsageError(`unknown option --${name}`);
  }

  string(name: string): string | undefined {
    const v = this.args.flags.get(name);
    if (v === true) throw new UsageError(`--${name} needs a value`);
    return v;
  }

  required(name: string): string {
    const v = this.string(name);
    if (v === undefined || v === "") throw new UsageError(`--${name} is required`);
    return v;
  }

  bool(name: string): boolean {
    return this.args.flags.get(name) === true;
  }

  integer(name: string, fallback: number): number {
    const v = this.string(name);
    if (v === undefined) return fallback;
    if (!/^-?\d+$/.test(v) || !Number.isSafeInteger(Number(v)))
      throw new UsageError(`--${name} must be an integer, got "${v}"`);
    return Number(v);
  }
}

/** Where a command writes: results to stdout, messages to stderr. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: Io = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/** Prints a result: one JSON object with --json, else readable lines. */
export function printResult(io: Io, json: boolean, value: object, lines: string[]): void {
  if (json) io.out(JSON.stringify(value));
  else for (const line of lines) io.out(line);
}
