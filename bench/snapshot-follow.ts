#!/usr/bin/env bun
/**
 * Snapshot convergence (docs/scale-out.md): the time from the pointer's flip (a publish's
 * last write) to the last of N `stockd serve` replicas serving the new id, each following an
 * S3-compatible bucket (s3rver in this process, on loopback). The snapshot is the demo's
 * (about 17 MB in 20 files); each repetition publishes a copy of it under a new id, so every
 * replica downloads, checks and loads it whole. The figure is the poll wait (0 to one poll
 * interval) plus the pull and the load; the pull alone is in each replica's "snapshot
 * followed" log line, summed up here.
 *
 * `bun bench/snapshot-follow.ts [--replicas 3] [--reps 5] [--poll-ms 1000]`
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildDemo } from "../src/demo/index.ts";
import { cli } from "../test/helpers/cli.ts";
import { tempDir } from "../test/helpers/env.ts";
import { startS3 } from "../test/helpers/s3.ts";
import { cloneSnapshot } from "../test/helpers/snapshot-copy.ts";
import { ServerProcess, stockdEnv } from "../test/helpers/spawn.ts";
import { median } from "./lib/stats.ts";

const { values } = parseArgs({
  options: {
    replicas: { type: "string", default: "3" },
    reps: { type: "string", default: "5" },
    "poll-ms": { type: "string", default: "1000" },
  },
});
const REPLICAS = Number(values.replicas);
const REPS = Number(values.reps);
const POLL_MS = Number(values["poll-ms"]);
const SOURCE = "s3://stockd/bench";

/** Milliseconds from `since` until every replica's /health names `id` (each polled every 10 ms). */
async function convergence(replicas: ServerProcess[], id: string, since: number): Promise<number[]> {
  return Promise.all(
    replicas.map(async (replica) => {
      for (;;) {
        const res = await replica.get("/health");
        if (res.status === 200 && ((await res.json()) as { snapshot_id: string }).snapshot_id === id)
          return performance.now() - since;
        if (performance.now() - since > 60_000) throw new Error(`${replica.url} did not switch to ${id}`);
        await Bun.sleep(10);
      }
    }),
  );
}

/** The `ms` of each replica's "snapshot followed" line for `id` (download, checks, load). */
function pullTimes(logs: string[], id: string): number[] {
  return logs.flatMap((log) =>
    readFileSync(log, "utf8")
      .split("\n")
      .filter((line) => line.includes('"snapshot followed"') && line.includes(id))
      .map((line) => (JSON.parse(line) as { ms: number }).ms),
  );
}

/**
 * Publishes `id` with `stockd snapshots publish` (Bun's S3 client reads its settings from the
 * environment a process starts with) while reading the pointer every 5 ms: returns when the
 * pointer first named `id` (the flip) and the bytes published.
 */
async function publish(id: string): Promise<{ flipped: number; bytes: number }> {
  let flipped = 0;
  let failed = false;
  const watch = (async () => {
    while (!failed && flipped === 0) {
      const text = await s3.bucket
        .file("bench/CURRENT")
        .text()
        .catch(() => "");
      if (text.includes(id)) flipped = performance.now();
      else await Bun.sleep(5);
    }
  })();
  const run = await cli(["snapshots", "publish", id, "--to", SOURCE, "--json"], {
    dataDir: publisher,
    env: stockdEnv(s3.env),
  });
  failed = run.code !== 0;
  await watch;
  if (failed) throw new Error(`publish failed: ${run.stderr}`);
  return { flipped, bytes: (JSON.parse(run.stdout) as { bytes: number }).bytes };
}

const s3 = await startS3("stockd");
const publisher = tempDir("stockd-bench-publisher-");
const demo = await buildDemo(publisher);
const first = await publish(demo.id);
console.log(`snapshot: ${(first.bytes / 1e6).toFixed(1)} MB; ${REPLICAS} replicas, poll ${POLL_MS} ms`);

const logs: string[] = [];
const replicas = await Promise.all(
  Array.from({ length: REPLICAS }, async () => {
    const log = join(tempDir("stockd-bench-replica-log-"), "serve.log");
    logs.push(log);
    const env = stockdEnv({
      ...s3.env,
      STOCKD_SNAPSHOT_SOURCE: SOURCE,
      STOCKD_SNAPSHOT_POLL_MS: String(POLL_MS),
      STOCKD_LOG_LEVEL: "info",
    });
    return ServerProcess.start({ dataDir: tempDir("stockd-bench-replica-"), env, logFile: log });
  }),
);
try {
  await convergence(replicas, demo.id, performance.now());
  const last: number[] = [];
  const firstReplica: number[] = [];
  const publishMs: number[] = [];
  const pulls: number[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const id = cloneSnapshot(publisher, demo.id, (rep + 1) * 10);
    const started = performance.now();
    const { flipped } = await publish(id);
    publishMs.push(flipped - started);
    const each = await convergence(replicas, id, flipped);
    last.push(Math.max(...each));
    firstReplica.push(Math.min(...each));
    pulls.push(...pullTimes(logs, id));
    console.log(
      `rep ${rep + 1}: publish ${Math.round(flipped - started)} ms; flip → replicas ${each.map(Math.round).join(", ")} ms`,
    );
  }
  const ms = (xs: number[]) => `${Math.round(median(xs))} ms`;
  console.log("\n| figure | median | max |\n| --- | --- | --- |");
  console.log(
    `| \`snapshots publish\` start → pointer flip (checks, upload ${(first.bytes / 1e6).toFixed(1)} MB) | ${ms(publishMs)} | ${Math.round(Math.max(...publishMs))} ms |`,
  );
  console.log(
    `| pointer flip → first replica serving | ${ms(firstReplica)} | ${Math.round(Math.max(...firstReplica))} ms |`,
  );
  console.log(
    `| pointer flip → last of ${REPLICAS} replicas serving | ${ms(last)} | ${Math.round(Math.max(...last))} ms |`,
  );
  console.log(
    `| one replica's pull, checks and load (its log) | ${ms(pulls)} | ${Math.round(Math.max(...pulls))} ms |`,
  );
  console.log(
    `\nload average during the run: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}`,
  );
} finally {
  await Promise.all(replicas.map((r) => r.stop()));
  await s3.close();
}
