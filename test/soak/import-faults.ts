/**
 * Import faults: `stockd import` is SIGKILLed at random points while a server serves the
 * data dir. The active snapshot (CURRENT, and what the server serves) changes only when an
 * import completes; every snapshot a killed import left in place is whole; staging leftovers
 * are removed by the next import; a snapshot with a missing or damaged Parquet file is
 * refused by `snapshots activate` and, when active, reported by `doctor` (exit 1).
 */
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { writeDemoSources } from "../../src/demo/index.ts";
import { verifySnapshot } from "../../src/snapshot/store.ts";
import { cli } from "../helpers/cli.ts";
import { ServerProcess, spawnStockd } from "../helpers/spawn.ts";
import { within } from "../helpers/wait.ts";
import { Checks, call, deriveSeed, Rng, type ScenarioResult, type SoakContext, sleep } from "./lib.ts";

const FAULTS = ["missing", "flip", "truncate", "append", "swap"] as const;
type Fault = (typeof FAULTS)[number];

export async function importScenario(ctx: SoakContext): Promise<ScenarioResult> {
  const started = performance.now();
  const seed = deriveSeed(ctx.seed, "import");
  const rng = new Rng(seed);
  const checks = new Checks();
  const kills = ctx.short ? 3 : 12;
  const corruptions = ctx.short ? 4 : 12;
  const doctorTrials = ctx.short ? 2 : 6;
  const dir = join(ctx.workDir, "import");
  const dataDir = join(dir, "data");
  const sources = join(dir, "sources");
  cpSync(ctx.template, dataDir, { recursive: true });
  mkdirSync(sources, { recursive: true });
  writeDemoSources(sources);
  const demoId = current(dataDir) as string;
  const figures = {
    imports_completed: 0,
    import_ms: 0,
    import_writing_from_ms: 0,
    kills: 0,
    kills_completed_anyway: 0,
    kills_leaving_staging: 0,
    kills_leaving_inactive_snapshot: 0,
    kills_leaving_current_tmp: 0,
    staging_cleaned_by_next_run: 0,
    activations_refused: 0,
    doctor_runs: 0,
    doctor_failures_reported: 0,
    server_follow_ms_max: 0,
    killed_during: "",
  };
  /** Where each kill landed, read from what it left on disk. */
  const killedDuring: string[] = [];

  const server = await ServerProcess.start({ cwd: dir, dataDir, logFile: join(dir, "server.log") });
  /** The server serves `id`, waiting up to 10 s for it to follow CURRENT. */
  const served = async (id: string, where: string, wait = true) => {
    const since = performance.now();
    let seen: string | null = null;
    do {
      const o = await call(server.url, "/health");
      seen =
        o.status === 200 ? (JSON.parse(o.body) as { snapshot_id: string }).snapshot_id : `status ${o.status}`;
      if (seen === id) break;
      await sleep(100);
    } while (wait && performance.now() - since < 10_000);
    if (wait)
      figures.server_follow_ms_max = Math.max(
        figures.server_follow_ms_max,
        Math.round(performance.now() - since),
      );
    checks.check(seen === id, () => `${where}: the server serves ${seen}, expected ${id}`);
  };
  let expected = demoId;
  await served(expected, "start", false);

  // A complete import: the reference duration, and a first successful activation.
  // While it runs, note when its first Parquet file appears: the writing phase starts there.
  const t0 = performance.now();
  let writingFrom = 0;
  const pending = cli(["import", "--from", sources, "--json"], { cwd: dir, dataDir });
  let finished = false;
  pending.finally(() => {
    finished = true;
  });
  while (!finished) {
    if (writingFrom === 0 && stagingDirs(dataDir).some((s) => parquetIn(join(dataDir, "snapshots", s))))
      writingFrom = performance.now() - t0;
    await sleep(25);
  }
  const first = await pending;
  figures.import_ms = Math.round(first.ms);
  figures.import_writing_from_ms = Math.round(writingFrom);
  if (checks.check(first.code === 0, () => `import exited ${first.code}: ${first.stderr.slice(-500)}`)) {
    figures.imports_completed++;
    expected = (JSON.parse(first.stdout) as { id: string }).id;
    checks.check(
      current(dataDir) === expected,
      () => `import: CURRENT is ${current(dataDir)}, not ${expected}`,
    );
    await served(expected, "after the first import");
  }

  let leftovers: string[] = [];
  for (let i = 1; i <= kills; i++) {
    if (
      !checks.check(Date.now() < ctx.deadline, () => `time budget exceeded after ${i - 1} of ${kills} kills`)
    )
      break;
    const where = `import kill ${i}/${kills}`;
    const before = completeSnapshots(dataDir);
    // Half at a random time from the start; half a random time into the run's writing phase
    // (Parquet files, manifest, rename, activation), which begins when its first Parquet file
    // appears: the machine's speed varies too much for one calibration to aim at it.
    const span = Math.max(1000, figures.import_ms);
    const writing = Math.max(500, span - (figures.import_writing_from_ms || Math.round(span * 0.7)));
    const late = rng.chance(0.5);
    const delay = late ? rng.int(0, writing) : rng.int(0, span);
    ctx.say(`import: ${where}: SIGKILL ${delay} ms ${late ? "into its writing phase" : "after its start"}`);
    const proc = spawnStockd(["import", "--from", sources, "--json", "--data-dir", dataDir], { cwd: dir });
    const out = new Response(proc.stdout).text();
    const err = new Response(proc.stderr).text();
    let exited = false;
    proc.exited.then(() => {
      exited = true;
    });
    const waitFrom = performance.now();
    const writingNow = () =>
      stagingDirs(dataDir).some((d) => !leftovers.includes(d) && parquetIn(join(dataDir, "snapshots", d)));
    while (late && !exited && !writingNow() && performance.now() - waitFrom < 120_000) await sleep(10);
    const finished = await within(
      proc.exited.then(() => true),
      delay,
      false,
    );
    if (!finished) proc.kill("SIGKILL");
    await proc.exited;
    const [stdout, stderr] = await Promise.all([out, err]);
    const completed = proc.exitCode === 0;
    const staging = stagingDirs(dataDir);
    const added = completeSnapshots(dataDir).filter((id) => !before.includes(id));
    figures.kills++;
    if (completed) {
      figures.kills_completed_anyway++;
      figures.imports_completed++;
      const id = (JSON.parse(stdout) as { id: string }).id;
      checks.check(
        current(dataDir) === id,
        () => `${where}: completed import ${id} but CURRENT is ${current(dataDir)}`,
      );
      expected = id;
      await served(expected, where);
    } else {
      checks.check(
        proc.signalCode === "SIGKILL",
        () => `${where}: import ended ${proc.exitCode}: ${stderr.slice(-300)}`,
      );
      killedDuring.push(killPhase(dataDir, staging, leftovers, added));
      checks.check(
        current(dataDir) === expected,
        () => `${where}: CURRENT changed to ${current(dataDir)} without a completed import`,
      );
      await served(expected, where, false);
      if (staging.length > 0) figures.kills_leaving_staging++;
      if (added.length > 0) figures.kills_leaving_inactive_snapshot++;
    }
    // Whatever was renamed into place is whole: the rename comes after the last byte.
    for (const id of added) {
      const problems = await verifySnapshot(dataDir, id, true);
      checks.check(
        problems.length === 0,
        () => `${where}: snapshot ${id} left in place is damaged: ${problems[0]}`,
      );
    }
    // The next run removes what an earlier one left, once it got as far as opening its writer
    // (which removes the old staging dirs, then creates its own).
    const reachedWriter = completed || added.length > 0 || staging.some((s) => !leftovers.includes(s));
    if (reachedWriter && leftovers.length > 0) {
      const kept = leftovers.filter((s) => staging.includes(s));
      if (checks.check(kept.length === 0, () => `${where}: staging ${kept[0]} from the run before survived`))
        figures.staging_cleaned_by_next_run += leftovers.length;
    }
    leftovers = staging;
    if (readdirSync(dataDir).some((n) => /^CURRENT\..*\.tmp$/.test(n))) figures.kills_leaving_current_tmp++;
    if (ctx.short || i % 3 === 1) {
      const doctor = await cli(["doctor", "--json"], { cwd: dir, dataDir });
      figures.doctor_runs++;
      const report = JSON.parse(doctor.stdout) as { findings: { check: string; status: string }[] };
      checks.check(
        doctor.code === 0,
        () => `${where}: doctor exited ${doctor.code}: ${doctor.stdout.slice(0, 500)}`,
      );
      if (staging.length > 0)
        checks.check(
          report.findings.some((f) => f.check === "staging" && f.status === "warn"),
          () => `${where}: doctor did not warn about ${staging[0]}`,
        );
    }
  }

  // A complete run removes every leftover and activates its snapshot.
  const last = await cli(["import", "--from", sources, "--json"], { cwd: dir, dataDir });
  if (checks.check(last.code === 0, () => `final import exited ${last.code}: ${last.stderr.slice(-500)}`)) {
    figures.imports_completed++;
    expected = (JSON.parse(last.stdout) as { id: string }).id;
    checks.check(current(dataDir) === expected, () => `final import: CURRENT is ${current(dataDir)}`);
    const staging = stagingDirs(dataDir);
    checks.check(staging.length === 0, () => `final import left staging ${staging.join(", ")}`);
    if (leftovers.length > 0 && staging.length === 0) figures.staging_cleaned_by_next_run += leftovers.length;
    await served(expected, "after the final import");
  }

  // Activation: an intact copy is accepted (the control), damaged ones are refused.
  const control = copySnapshot(dataDir, demoId, rng);
  const ok = await cli(["snapshots", "activate", control], { cwd: dir, dataDir });
  checks.check(ok.code === 0, () => `activating an intact copy exited ${ok.code}: ${ok.stderr}`);
  await served(control, "control activation");
  const back = await cli(["snapshots", "activate", expected], { cwd: dir, dataDir });
  checks.check(back.code === 0, () => `re-activating ${expected} exited ${back.code}: ${back.stderr}`);
  await served(expected, "re-activation");
  const faultsApplied: string[] = [];
  for (let j = 1; j <= corruptions; j++) {
    const where = `corruption ${j}/${corruptions}`;
    const id = copySnapshot(dataDir, demoId, rng);
    const fault = rng.pick(FAULTS);
    const file = damage(join(dataDir, "snapshots", id), fault, rng);
    faultsApplied.push(`${fault} ${file}`);
    const r = await cli(["snapshots", "activate", id], { cwd: dir, dataDir });
    if (checks.check(r.code !== 0, () => `${where}: activating ${id} with ${fault} ${file} exited 0`))
      figures.activations_refused++;
    checks.check(
      r.stderr.includes(file),
      () => `${where}: the refusal does not name ${file}: ${r.stderr.trim()}`,
    );
    checks.check(current(dataDir) === expected, () => `${where}: CURRENT changed to ${current(dataDir)}`);
  }
  await sleep(1200); // longer than the server's poll: it had every chance to switch
  await served(expected, "after the refused activations", false);

  // doctor on an installation whose active snapshot is damaged: exit 1, naming the file.
  const intact = join(dir, "doctor-intact");
  cpSync(ctx.template, intact, { recursive: true });
  const healthy = await cli(["doctor", "--json"], { cwd: dir, dataDir: intact });
  figures.doctor_runs++;
  checks.check(
    healthy.code === 0,
    () => `doctor on an intact copy exited ${healthy.code}: ${healthy.stdout}`,
  );
  for (let j = 1; j <= doctorTrials; j++) {
    const where = `doctor ${j}/${doctorTrials}`;
    const scratch = join(dir, `doctor-${j}`);
    cpSync(ctx.template, scratch, { recursive: true });
    const fault = rng.pick(FAULTS);
    const file = damage(join(scratch, "snapshots", demoId), fault, rng);
    faultsApplied.push(`doctor: ${fault} ${file}`);
    const r = await cli(["doctor", "--json"], { cwd: dir, dataDir: scratch });
    figures.doctor_runs++;
    const report = JSON.parse(r.stdout) as { findings: { check: string; status: string; message: string }[] };
    const named = report.findings.some(
      (f) => f.check === "snapshot" && f.status === "fail" && f.message.includes(file),
    );
    if (
      checks.check(
        r.code === 1 && named,
        () => `${where}: doctor exited ${r.code} on ${fault} ${file}: ${r.stdout}`,
      )
    )
      figures.doctor_failures_reported++;
    rmSync(scratch, { recursive: true, force: true });
  }

  const stopped = await server.stop("SIGTERM");
  checks.check(stopped && server.exitCode === 0, () => `server SIGTERM: exit ${server.exitCode}`);
  const phases = new Map<string, number>();
  for (const p of killedDuring) phases.set(p, (phases.get(p) ?? 0) + 1);
  figures.killed_during = [...phases].map(([p, n]) => `${p}: ${n}`).join("; ");
  return {
    name: "import",
    seed,
    runs: `${figures.kills} kills, ${figures.imports_completed} imports, ${corruptions} damaged, ${doctorTrials} doctor`,
    faults: `${figures.kills - figures.kills_completed_anyway} importer SIGKILLs, ${corruptions + doctorTrials} damaged data files (${[
      ...new Set(faultsApplied.map((f) => f.replace(/^doctor: /, "").split(" ")[0])),
    ].join("/")})`,
    checks: checks.count,
    violations: checks.failed,
    messages: checks.messages,
    held: [
      "CURRENT and the served snapshot change only on a completed import or activation",
      "snapshots left in place by a killed import verify (sha256)",
      "staging leftovers removed by the next run",
      "damaged snapshots refused by `snapshots activate` (file named, CURRENT unchanged)",
      "doctor exits 1 naming the damaged file of the active snapshot",
    ],
    figures,
    seconds: (performance.now() - started) / 1000,
    workDir: dir,
  };
}

/** Where a killed import was, from what it left: no staging dir yet, one without files, ... */
function killPhase(dataDir: string, staging: string[], before: string[], added: string[]): string {
  if (added.length > 0) return "renamed into place, not activated";
  const mine = staging.find((s) => !before.includes(s));
  if (!mine) return "before its staging dir";
  const path = join(dataDir, "snapshots", mine);
  if (existsSync(join(path, "manifest.json"))) return "manifest written, not renamed";
  return parquetIn(path) ? "writing Parquet files" : "reading sources";
}

/** True once the writer has written a Parquet file (a table or a part) into a staging dir. */
function parquetIn(dir: string): boolean {
  try {
    return readdirSync(dir).some((n) => n.endsWith(".parquet"));
  } catch {
    return false; // renamed into place meanwhile
  }
}

/** A manifest's data files: the tables and, where the format has them, the files beside them. */
function dataFiles(manifest: LooseManifest): string[] {
  return [...Object.values(manifest.tables), ...Object.values(manifest.files ?? {})].map((e) => e.file);
}

/** The manifest fields the soak reads, independent of the format's other fields. */
interface LooseManifest {
  id: string;
  tables: Record<string, { file: string }>;
  files?: Record<string, { file: string }>;
}

/** The id CURRENT names (the file as it is on disk), or null. */
function current(dataDir: string): string | null {
  const path = join(dataDir, "CURRENT");
  return existsSync(path) ? readFileSync(path, "utf8").trim() : null;
}

function stagingDirs(dataDir: string): string[] {
  const dir = join(dataDir, "snapshots");
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith(".staging-")) : [];
}

function completeSnapshots(dataDir: string): string[] {
  const dir = join(dataDir, "snapshots");
  return readdirSync(dir).filter((n) => !n.startsWith(".") && existsSync(join(dir, n, "manifest.json")));
}

/** Copies a snapshot under a new id (its manifest names the new id); returns the id. */
function copySnapshot(dataDir: string, from: string, rng: Rng): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
  const id = `${stamp}-${rng.word(6)}`;
  const target = join(dataDir, "snapshots", id);
  cpSync(join(dataDir, "snapshots", from), target, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(target, "manifest.json"), "utf8")) as LooseManifest;
  writeFileSync(join(target, "manifest.json"), `${JSON.stringify({ ...manifest, id }, null, 2)}\n`);
  return id;
}

/** Damages one table file of a snapshot directory; returns the file's name. */
function damage(dir: string, fault: Fault, rng: Rng): string {
  const files = dataFiles(JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as LooseManifest);
  const file = rng.pick(files);
  const path = join(dir, file);
  const size = statSync(path).size;
  switch (fault) {
    case "missing":
      rmSync(path);
      break;
    case "flip": {
      // Same size: only the checksum can tell.
      const bytes = readFileSync(path);
      const at = rng.int(0, size - 1);
      bytes[at] = (bytes[at] as number) ^ rng.int(1, 255);
      writeFileSync(path, bytes);
      break;
    }
    case "truncate":
      truncateSync(path, rng.int(0, size - 1));
      break;
    case "append":
      appendFileSync(path, Buffer.from(rng.word(rng.int(1, 64))));
      break;
    case "swap": {
      const other = rng.pick(files.filter((f) => f !== file));
      const bytes = readFileSync(join(dir, other));
      writeFileSync(path, bytes);
      // A swap of two files of one size would still differ by checksum; nothing to adjust.
      break;
    }
  }
  return file;
}
