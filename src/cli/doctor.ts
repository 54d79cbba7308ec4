import { pgConnection } from "../accounts/pg/accounts.ts";
import type { Config } from "../config.ts";
import { runDoctor } from "../doctor/index.ts";
import { Flags, type Io, type ParsedArgs, printResult } from "./args.ts";

/** `doctor [--json]`: checks the installation; exit 0 when healthy, 1 when something failed. */
export async function doctorCommand(args: ParsedArgs, config: Config, io: Io): Promise<number> {
  const flags = new Flags(args, []);
  const shared = config.accountsUrl === null ? null : pgConnection(config, config.accountsUrl);
  const report = await runDoctor(config.dataDir, shared);
  const failed = report.findings.filter((f) => f.status === "fail").length;
  const lines = report.findings.map((f) => `${f.status.padEnd(4)}  ${f.message}`);
  lines.push(report.healthy ? "healthy" : `${failed} problem${failed === 1 ? "" : "s"} found`);
  printResult(io, flags.bool("json"), report, lines);
  return report.healthy ? 0 : 1;
}
