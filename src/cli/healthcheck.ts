import type { Config } from "../config.ts";
import { Flags, type Io, type ParsedArgs, printResult, UsageError } from "./args.ts";

const TIMEOUT_MS = 5_000;

/**
 * `healthcheck [--url URL]`: exit 0 when the server's /health answers 200, else 1. It lets a
 * container image without curl use the binary itself as its HEALTHCHECK.
 */
export async function healthcheckCommand(args: ParsedArgs, config: Config, io: Io): Promise<number> {
  const flags = new Flags(args, ["url"]);
  const url = flags.string("url") ?? defaultUrl(config);
  if (!URL.canParse(url)) throw new UsageError(`--url "${url}" is not a URL`);
  const status = await fetchStatus(url);
  const ok = status === 200;
  printResult(io, flags.bool("json"), { url, ok, status }, [
    `${url}: ${typeof status === "number" ? `HTTP ${status}` : status}`,
  ]);
  return ok ? 0 : 1;
}

/** The local server's /health: a wildcard listen address is reached through loopback. */
function defaultUrl(config: Config): string {
  const wildcard = config.host === "0.0.0.0" || config.host === "::" || config.host === "";
  const host = wildcard ? "127.0.0.1" : config.host.includes(":") ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}/health`;
}

/** The HTTP status, or why there was none (refused, timed out). */
async function fetchStatus(url: string): Promise<number | string> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    await response.body?.cancel();
    return response.status;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
