import type { Config } from "../config.ts";
import { importSources } from "../ingest/pipeline/import.ts";
import { type Published, publishSnapshot } from "../snapshot/publish.ts";
import { openSnapshotSource, parseSnapshotSource, type SnapshotSource } from "../snapshot/source.ts";
import {
  activateSnapshot,
  isSnapshotId,
  listSnapshotIds,
  readCurrent,
  readManifest,
  verifySnapshot,
} from "../snapshot/store.ts";
import { Flags, type Io, type ParsedArgs, printResult, UsageError } from "./args.ts";

/** `snapshots list`, `snapshots activate ID` and `snapshots publish ID --to SOURCE` */
export async function snapshotsCommand(args: ParsedArgs, config: Config, io: Io): Promise<number> {
  const [, sub, id] = args.positional;
  const flags = new Flags(args, sub === "publish" ? ["to"] : []);
  if (sub === "publish" && id) {
    const source = sourceFlag(flags.required("to"), "--to");
    if (!isSnapshotId(id) || !listSnapshotIds(config.dataDir).includes(id))
      throw new UsageError(`no snapshot ${id}`);
    const published = await publish(io, config, id, source);
    if (published === null) return 1;
    printResult(io, flags.bool("json"), published, [publishedLine(published)]);
    return 0;
  }
  if (sub === "list") {
    const current = readCurrent(config.dataDir);
    const snapshots = listSnapshotIds(config.dataDir).map((sid) => {
      const m = readManifest(config.dataDir, sid);
      return {
        id: sid,
        created_at: m.created_at,
        data_as_of: m.data_as_of,
        source: m.source,
        active: sid === current,
      };
    });
    const lines = snapshots.map(
      (s) => `${s.active ? "*" : " "} ${s.id}  data as of ${s.data_as_of ?? "-"}  from ${s.source}`,
    );
    printResult(
      io,
      flags.bool("json"),
      { active: current, snapshots },
      lines.length ? lines : ["no snapshots"],
    );
    return 0;
  }
  if (sub === "activate" && id) {
    if (!isSnapshotId(id) || !listSnapshotIds(config.dataDir).includes(id))
      throw new UsageError(`no snapshot ${id}`);
    // A snapshot with a missing or altered file is never served.
    const problems = await verifySnapshot(config.dataDir, id, true);
    if (problems.length > 0) {
      for (const problem of problems) io.err(`  ${problem}`);
      io.err(`stockd: snapshot ${id} is damaged; the active snapshot is unchanged`);
      return 1;
    }
    activateSnapshot(config.dataDir, id);
    printResult(io, flags.bool("json"), { active: id }, [`active snapshot: ${id}`]);
    return 0;
  }
  throw new UsageError("usage: stockd snapshots list | activate ID | publish ID --to SOURCE");
}

/** A snapshot source named on the command line (`dir:/path`, `s3://bucket/prefix`). */
function sourceFlag(text: string, flag: string): SnapshotSource {
  try {
    return openSnapshotSource(parseSnapshotSource(text));
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`);
  }
}

/** Publishes; on failure says why (the source's pointer is as it was) and returns null. */
async function publish(
  io: Io,
  config: Config,
  id: string,
  source: SnapshotSource,
): Promise<Published | null> {
  const progress = progressPrinter(io);
  try {
    return await publishSnapshot(config.dataDir, id, source, progress);
  } catch (error) {
    io.err(`stockd: publishing ${id} to ${source.name} failed: ${(error as Error).message}`);
    io.err("stockd: the source's CURRENT is unchanged");
    return null;
  } finally {
    progress.done();
  }
}

function publishedLine(p: Published): string {
  return `published snapshot ${p.id} to ${p.source} (${p.files} files, ${p.bytes} bytes)`;
}

/** `import --from DIR [--lenient] [--publish SOURCE]` */
export async function importCommand(args: ParsedArgs, config: Config, io: Io): Promise<number> {
  const flags = new Flags(args, ["from", "lenient", "publish"]);
  const from = flags.required("from");
  const target = flags.string("publish");
  const source = target === undefined ? null : sourceFlag(target, "--publish");
  const progress = progressPrinter(io);
  const manifest = await importSources(from, config.dataDir, { lenient: flags.bool("lenient"), progress });
  progress.done();
  const { report } = manifest;
  for (const [source, n] of Object.entries(report.sources))
    io.err(`  ${source}: ${n.records} records from ${n.files} files`);
  for (const note of report.notes) io.err(`  note: ${note}`);
  if (report.skipped_total > 0) {
    io.err(`  skipped ${report.skipped_total} records, e.g.:`);
    for (const s of report.skipped.slice(0, 10))
      io.err(`    ${s.file}${s.line ? `:${s.line}` : ""}: ${s.reason}`);
  }
  const rows = Object.fromEntries(Object.entries(manifest.tables).map(([t, e]) => [t, e.rows]));
  const imported = `imported snapshot ${manifest.id} (data as of ${manifest.data_as_of ?? "-"}) and activated it`;
  const published = source === null ? null : await publish(io, config, manifest.id, source);
  printResult(
    io,
    flags.bool("json"),
    {
      id: manifest.id,
      data_as_of: manifest.data_as_of,
      rows,
      skipped: report.skipped_total,
      ...(source === null ? {} : { published }),
    },
    published === null ? [imported] : [imported, publishedLine(published)],
  );
  return source !== null && published === null ? 1 : 0;
}

/** On a terminal, one status line rewritten in place; elsewhere, plain lines. */
export function progressPrinter(io: Io) {
  const tty = process.stderr.isTTY === true;
  const print = (message: string) => {
    if (tty) process.stderr.write(`\r\x1b[2K${message}`);
    else io.err(message);
  };
  return Object.assign(print, {
    done: () => {
      if (tty) process.stderr.write("\r\x1b[2K");
    },
  });
}
