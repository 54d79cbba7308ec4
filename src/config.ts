import { resolve } from "node:path";

/** Settings of one process, read once at start-up. The only reader of `process.env`. */
export interface Config {
  readonly dataDir: string;
  readonly host: string;
  readonly port: number;
  readonly logLevel: LogLevel;
  /** How often the server looks for key and credit changes made by other processes. */
  readonly accountsPollMs: number;
}

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error", "silent"];

/** A setting that failed validation; the message names the setting. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

export interface ConfigOverrides {
  dataDir?: string | undefined;
  host?: string | undefined;
  port?: string | undefined;
}

/** Flags win over environment, environment over defaults. */
export function loadConfig(
  flags: ConfigOverrides = {},
  env: Record<string, string | undefined> = process.env,
) {
  const config: Config = {
    dataDir: resolve(flags.dataDir ?? env.STOCKD_DATA_DIR ?? "./data"),
    host: flags.host ?? env.HOST ?? "127.0.0.1",
    port: parsePort(flags.port ?? env.PORT ?? "8080"),
    logLevel: parseLogLevel(env.STOCKD_LOG_LEVEL ?? "info"),
    accountsPollMs: 1000,
  };
  return Object.freeze(config);
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new ConfigError(`port: expected an integer from 0 to 65535, got "${value}"`);
  }
  return port;
}

function parseLogLevel(value: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new ConfigError(`STOCKD_LOG_LEVEL: expected one of ${LOG_LEVELS.join(", ")}, got "${value}"`);
  }
  return value as LogLevel;
}
