import type { Config } from "../config.ts";
import { createLogger } from "../log.ts";
import { serveMcpStdio } from "../mcp/stdio.ts";
import { Flags, type Io, type ParsedArgs } from "./args.ts";

/** `mcp`: MCP over stdio for a local client (Claude Desktop), with the key in STOCKD_API_KEY. */
export async function mcpCommand(args: ParsedArgs, config: Config, io: Io): Promise<number> {
  new Flags(args, []);
  if (!config.apiKey) {
    io.err("stockd: mcp needs an API key in STOCKD_API_KEY (stockd keys create --user ID makes one)");
    return 2;
  }
  // stdout carries the protocol: logs go to stderr.
  const log = createLogger(config.logLevel, (line) => process.stderr.write(line));
  if (await serveMcpStdio(config, log, config.apiKey)) return 0;
  io.err("stockd: STOCKD_API_KEY is not a valid key (unknown, disabled or expired)");
  return 1;
}
