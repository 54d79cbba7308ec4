/**
 * Snapshots that follow (docs/scale-out.md): an importer publishes to a `dir:` source and to
 * an S3-compatible server (s3rver, in this process on a loopback port), and `stockd serve`
 * replicas following the source switch to what is published, and to nothing else: a file
 * with another SHA-256, a truncated file and a hostile manifest never activate, and the
 * snapshot served before keeps serving.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { SnapshotService } from "../../src/query/snapshot.ts";
import { openDuckDb } from "../../src/snapshot/duckdb.ts";
import { SnapshotFollower } from "../../src/snapshot/follow.ts";
import { publishSnapshot } from "../../src/snapshot/publish.ts";
import {
  encodePointer,
  MAX_POINTER_BYTES,
  parsePointer,
  publishedFiles,
} from "../../src/snapshot/published.ts";
import { openSnapshotSource, parseSnapshotSource, type SnapshotSource } from "../../src/snapshot/source.ts";
import {
  newSnapshotId,
  readCurrent,
  readManifest,
  snapshotDir,
  verifySnapshot,
} from "../../src/snapshot/store.ts";
import { cli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/env.ts";
import { startS3, type TestS3 } from "../helpers/s3.ts";
import { cloneSnapshot } from "../helpers/snapshot-copy.ts";
import { ServerProcess, stockdEnv } from "../helpers/spawn.ts";

interface Health {
  snapshot_id: string;
  snapshot_source?: {
    published: string | null;
    pulling: string | null;
    failed: boolean;
    checked_at: string | null;
  };
}

/** A source directory of one company, imported in about a second. */
function tinySources(): string {
  const dir = tempDir("stockd-follow-src-");
  mkdirSync(join(dir, "edgar"));
  writeFileSync(
    join(dir, "edgar", "company_tickers.json"),
    JSON.stringify({ "0": { cik_str: 320193, ticker: "AAPL", title: "Apple Inc." } }),
  );
  return dir;
}

async function health(replica: ServerProcess): Promise<Health> {
  return (await (await replica.get("/health")).json()) as Health;
}

/** Waits until every replica serves `id`; returns how long it took. */
async function converge(replicas: ServerProcess[], id: string, ms = 15_000): Promise<number> {
  const started = performance.now();
  for (const replica of replicas) {
    for (;;) {
      const res = await replica.get("/health");
      if (res.status === 200 && ((await res.json()) as Health).snapshot_id === id) break;
      if (performance.now() - started > ms)
        throw new Error(
          `replica ${replica.url} did not serve ${id} within ${ms} ms:\n${replica.stderr.slice(-3000)}`,
        );
      await Bun.sleep(50);
    }
  }
  return performance.now() - started;
}

/** The errors a replica logged for failed pulls of `id`. */
function pullErrors(replica: Replica, id: string): string[] {
  return readFileSync(replica.log, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { msg: string; snapshot?: string; error?: string })
    .filter((l) => l.msg === "snapshot pull failed; still serving the previous one" && l.snapshot === id)
    .map((l) => l.error ?? "");
}

/**
 * Waits until every replica's /health reports a failed pull of `id` and its log says why,
 * matching `pattern`; /health itself never names the source or the reason (no key is needed).
 */
async function refused(replicas: Replica[], id: string, pattern: RegExp): Promise<void> {
  const deadline = performance.now() + 15_000;
  for (const replica of replicas) {
    for (;;) {
      const h = await health(replica.server);
      const s = h.snapshot_source;
      if (s?.published === id && s.failed && pullErrors(replica, id).some((e) => pattern.test(e))) {
        expect(JSON.stringify(h)).not.toMatch(/dir:|s3:|\/tmp\/|sha256|bytes/);
        break;
      }
      if (performance.now() > deadline)
        throw new Error(
          `no refusal of ${id} like ${pattern}: ${JSON.stringify(h)}; ${pullErrors(replica, id)}`,
        );
      await Bun.sleep(50);
    }
  }
}

/** A `stockd serve` following a source, on a data dir of its own, with its logs in `log`. */
interface Replica {
  server: ServerProcess;
  dataDir: string;
  log: string;
}

function startReplicas(source: string, n: number, extra: Record<string, string> = {}): Promise<Replica[]> {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const dataDir = tempDir("stockd-replica-");
      const log = join(tempDir("stockd-replica-log-"), "serve.log");
      const env = stockdEnv({ STOCKD_SNAPSHOT_SOURCE: source, STOCKD_SNAPSHOT_POLL_MS: "200", ...extra });
      return { server: await ServerProcess.start({ dataDir, env, logFile: log }), dataDir, log };
    }),
  );
}

/** What a replica's snapshots folder holds (complete snapshots and anything left behind). */
function snapshotFolder(replica: Pick<Replica, "dataDir">): string[] {
  const dir = join(replica.dataDir, "snapshots");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

describe("a dir: source", () => {
  const publisher = tempDir("stockd-publisher-");
  const sourceDir = tempDir("stockd-source-");
  const source = `dir:${sourceDir}`;
  let replicas: Replica[] = [];
  let servers: ServerProcess[] = [];
  let first = "";

  beforeAll(async () => {
    const imported = await cli(["import", "--from", tinySources(), "--publish", source, "--json"], {
      dataDir: publisher,
    });
    expect(imported.code).toBe(0);
    first = (JSON.parse(imported.stdout) as { published: { id: string } }).published.id;
    replicas = await startReplicas(source, 2);
    servers = replicas.map((r) => r.server);
  });
  afterAll(async () => {
    await Promise.all(servers.map((r) => r.stop()));
  });

  const publish = (id: string) =>
    publishSnapshot(publisher, id, openSnapshotSource(parseSnapshotSource(source)));
  const serving = async () => (await health(servers[0] as ServerProcess)).snapshot_id;

  test("two replicas pull what import --publish published, then converge on the next publish", async () => {
    await converge(servers, first);
    const second = cloneSnapshot(publisher, first, 10);
    const published = await cli(["snapshots", "publish", second, "--to", source, "--json"], {
      dataDir: publisher,
    });
    expect(published.code).toBe(0);
    expect(JSON.parse(published.stdout)).toMatchObject({ id: second, source, files: 12 });
    await converge(servers, second);
    for (const replica of replicas) {
      const h = await health(replica.server);
      expect(h.snapshot_source).toEqual({
        published: second,
        pulling: null,
        failed: false,
        checked_at: expect.any(String),
      });
      expect(snapshotFolder(replica)).toEqual([first, second].sort());
      // Each replica's CURRENT names what it serves, as after `snapshots activate`.
      expect(readCurrent(replica.dataDir)).toBe(second);
    }
    // Publishing again changes nothing: the same pointer bytes.
    const pointer = readFileSync(join(sourceDir, "CURRENT"));
    const again = await cli(["snapshots", "publish", second, "--to", source], { dataDir: publisher });
    expect(again.code).toBe(0);
    expect(readFileSync(join(sourceDir, "CURRENT")).equals(pointer)).toBe(true);
    expect(parsePointer(pointer, "CURRENT").id).toBe(second);
  });

  test("a file with another sha256, then a truncated one, never activate; the old snapshot keeps serving", async () => {
    const before = await serving();
    const corrupt = cloneSnapshot(publisher, first, 20);
    await publish(corrupt);
    // Same size, one byte changed: only the hash can tell.
    const file = join(sourceDir, "snapshots", corrupt, "securities.parquet");
    const bytes = readFileSync(file);
    const middle = bytes.length >> 1;
    bytes[middle] = (bytes[middle] as number) ^ 0xff;
    writeFileSync(file, bytes);
    await refused(
      replicas,
      corrupt,
      /securities\.parquet: sha256 [0-9a-f]{64} does not match the manifest's/,
    );

    const truncated = cloneSnapshot(publisher, first, 30);
    await publish(truncated);
    truncateSync(join(sourceDir, "snapshots", truncated, "prices.index.json"), 1);
    await refused(replicas, truncated, /prices\.index\.json: 1 bytes, the manifest says \d+/);

    for (const replica of replicas) {
      expect((await health(replica.server)).snapshot_id).toBe(before);
      // Nothing of the refused pulls is left: no snapshot folder, no staging folder.
      expect(snapshotFolder(replica).filter((n) => n.includes(corrupt) || n.includes(truncated))).toEqual([]);
      expect(readFileSync(replica.log, "utf8")).toMatch(
        /"snapshot pull failed; still serving the previous one".*sha256/,
      );
    }
    // Publishing it again repairs the source; the next poll retries and succeeds.
    await publish(truncated);
    await converge(servers, truncated);
    for (const replica of replicas) {
      expect((await health(replica.server)).snapshot_source?.failed).toBe(false);
      // snapshots_kept = 2: the active one and the one before.
      expect(snapshotFolder(replica)).toEqual([before, truncated].sort());
    }
  });

  test("a publish that fails part-way leaves the pointer where it was", async () => {
    const before = readFileSync(join(sourceDir, "CURRENT"));
    const id = cloneSnapshot(publisher, first, 35);
    // A folder where a file must go: that one upload fails, after the ones before it.
    mkdirSync(join(sourceDir, "snapshots", id, "prices.json", "x"), { recursive: true });
    const failed = await cli(["snapshots", "publish", id, "--to", source], { dataDir: publisher });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("the source's CURRENT is unchanged");
    expect(existsSync(join(sourceDir, "snapshots", id, "securities.parquet"))).toBe(true);
    expect(readFileSync(join(sourceDir, "CURRENT")).equals(before)).toBe(true);
  });

  test("what a killed replica left of a pull is removed at its next start; the snapshot is pulled whole", async () => {
    const published = parsePointer(readFileSync(join(sourceDir, "CURRENT")), "CURRENT").id;
    const dataDir = tempDir("stockd-replica-");
    // The staging folder of a process that has exited, and a folder of the id without a manifest.
    const gone = Bun.spawn(["true"]);
    await gone.exited;
    const partial = join(dataDir, "snapshots", `.staging-${published}-${gone.pid}`);
    mkdirSync(partial, { recursive: true });
    writeFileSync(join(partial, "securities.parquet"), "half");
    mkdirSync(join(dataDir, "snapshots", published));
    writeFileSync(join(dataDir, "snapshots", published, "securities.parquet"), "half");
    const env = stockdEnv({ STOCKD_SNAPSHOT_SOURCE: source, STOCKD_SNAPSHOT_POLL_MS: "200" });
    const server = await ServerProcess.start({ dataDir, env });
    try {
      await converge([server], published);
      expect(snapshotFolder({ dataDir })).toEqual([published]);
      expect(await verifySnapshot(dataDir, published, true)).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  test("a hostile manifest (a path out of the snapshot folder) is refused before anything is fetched", async () => {
    const before = await serving();
    const id = newSnapshotId(new Date(Date.now() + 40_000));
    const manifest = Buffer.from(
      JSON.stringify({
        id,
        tables: { securities: { file: "../../x", bytes: 3, sha256: "0".repeat(64), rows: 1 } },
        files: {},
      }),
    );
    mkdirSync(join(sourceDir, "snapshots", id), { recursive: true });
    writeFileSync(join(sourceDir, "snapshots", id, "manifest.json"), manifest);
    writeFileSync(join(sourceDir, "x"), "abc");
    const sha = new Bun.CryptoHasher("sha256").update(manifest).digest("hex");
    writeFileSync(
      join(sourceDir, "CURRENT"),
      encodePointer({ id, manifest_bytes: manifest.byteLength, manifest_sha256: sha }),
    );
    await refused(replicas, id, /tables\.securities: the file must be "securities\.parquet"/);
    for (const replica of replicas) {
      expect((await health(replica.server)).snapshot_id).toBe(before);
      expect(existsSync(join(replica.dataDir, "x"))).toBe(false);
      expect(existsSync(join(replica.dataDir, "snapshots", "x"))).toBe(false);
      expect(snapshotFolder(replica).filter((n) => n.includes(id))).toEqual([]);
    }
  });
  test("a snapshot whose files match its manifest but that does not load is not activated, even after a restart", async () => {
    const before = await serving();
    const broken = cloneSnapshot(publisher, first, 50);
    // Bytes that match the manifest (so every check before the load passes) but are no Parquet.
    const garbage = Buffer.from("not parquet at all");
    writeFileSync(join(snapshotDir(publisher, broken), "securities.parquet"), garbage);
    const manifest = readManifest(publisher, broken);
    manifest.tables.securities = {
      ...(manifest.tables.securities as NonNullable<typeof manifest.tables.securities>),
      bytes: garbage.byteLength,
      sha256: new Bun.CryptoHasher("sha256").update(garbage).digest("hex"),
    };
    writeFileSync(join(snapshotDir(publisher, broken), "manifest.json"), JSON.stringify(manifest));
    await publish(broken);
    await refused(replicas, broken, /did not load/);
    const loadFailures = (replica: Replica) =>
      readFileSync(replica.log, "utf8")
        .split("\n")
        .filter((line) => line.includes("snapshot load failed") && line.includes(broken)).length;
    const failedOnce = replicas.map(loadFailures);
    // Several polls later it has not been loaded again.
    await Bun.sleep(1000);
    for (const [i, replica] of replicas.entries()) {
      expect((await health(replica.server)).snapshot_id).toBe(before);
      // CURRENT names what is served, not the snapshot that failed to load.
      expect(readCurrent(replica.dataDir)).toBe(before);
      expect(failedOnce[i]).toBeGreaterThan(0);
      expect(loadFailures(replica)).toBe(failedOnce[i] as number);
    }

    // A restart serves the old one; a damaged local copy of the broken one is pulled again (and fails again).
    const replica = replicas[0] as Replica;
    await replica.server.stop();
    truncateSync(join(snapshotDir(replica.dataDir, broken), "prices.index.json"), 1);
    replica.server = await ServerProcess.start({
      dataDir: replica.dataDir,
      env: stockdEnv({ STOCKD_SNAPSHOT_SOURCE: source, STOCKD_SNAPSHOT_POLL_MS: "200" }),
      logFile: replica.log,
    });
    servers[0] = replica.server;
    expect((await health(replica.server)).snapshot_id).toBe(before);
    await refused([replica], broken, /did not load/);
    expect((await health(replica.server)).snapshot_id).toBe(before);
    expect(readCurrent(replica.dataDir)).toBe(before);
    expect(readFileSync(replica.log, "utf8")).toContain("snapshot in the data dir is not the published one");
    expect(loadFailures(replica)).toBeGreaterThan(failedOnce[0] as number);

    // The next publish is followed as usual.
    const next = cloneSnapshot(publisher, first, 55);
    await publish(next);
    await converge(servers, next);
  });
  test("a pull overtaken by a newer publish is not activated; the next look follows the newer one", async () => {
    const overtaken = cloneSnapshot(publisher, first, 60);
    const newer = cloneSnapshot(publisher, first, 65);
    const dir = openSnapshotSource({ kind: "dir", path: tempDir("stockd-source-") });
    await publishSnapshot(publisher, overtaken, dir);
    // The newer snapshot is published while the first file of the other one downloads.
    let publishing: Promise<unknown> | null = null;
    const racing: SnapshotSource = {
      name: dir.name,
      read: (key, limits) => dir.read(key, limits),
      size: (key) => dir.size(key),
      upload: (key, path) => dir.upload(key, path),
      write: (key, bytes) => dir.write(key, bytes),
      async download(key, path, limits) {
        publishing ??= publishSnapshot(publisher, newer, dir);
        await publishing;
        return dir.download(key, path, limits);
      },
    };
    const dataDir = tempDir("stockd-replica-");
    const log = createLogger("error", () => {});
    const snapshots = new SnapshotService(await openDuckDb(), dataDir, log);
    const follower = new SnapshotFollower(racing, dataDir, snapshots, log, { pollMs: 60_000, keep: 2 });
    try {
      await follower.poll();
      expect(publishing).not.toBeNull();
      expect(snapshots.current()).toBeNull();
      expect(readCurrent(dataDir)).toBeNull();
      expect(follower.status()).toMatchObject({ published: newer, failed: false });
      await follower.poll();
      expect(snapshots.current()?.id).toBe(newer);
      expect(readCurrent(dataDir)).toBe(newer);
    } finally {
      await follower.stop();
      snapshots.close();
    }
  });
});

describe("what a source may say", () => {
  const id = "20261127T120000Z-abcdef";
  const entry = { bytes: 10, sha256: "a".repeat(64) };
  const good = {
    id,
    tables: { securities: { file: "securities.parquet", ...entry } },
    files: { "prices.json": { file: "prices.json", ...entry } },
  };

  test("a manifest names only files a snapshot holds, with bounded sizes and real hashes", () => {
    expect(publishedFiles(good, id)).toEqual([
      { file: "securities.parquet", ...entry },
      { file: "prices.json", ...entry },
    ]);
    const bad: [unknown, RegExp][] = [
      [{ ...good, id: "20261127T120000Z-zzzzzz" }, /names snapshot/],
      [
        { ...good, tables: { securities: { ...good.tables.securities, file: "/etc/passwd" } } },
        /must be "securities.parquet"/,
      ],
      [
        { ...good, tables: { securities: { ...good.tables.securities, file: "../securities.parquet" } } },
        /must be/,
      ],
      [{ ...good, tables: { "../x": { file: "x", ...entry } } }, /"\.\.\/x" is not part of a snapshot/],
      [
        { ...good, files: { "manifest.json": { file: "manifest.json", ...entry } } },
        /not part of a snapshot/,
      ],
      [
        { ...good, tables: { securities: { ...good.tables.securities, bytes: 2 ** 60 } } },
        /bytes must be an integer/,
      ],
      [{ ...good, tables: { securities: { ...good.tables.securities, bytes: -1 } } }, /bytes must be/],
      [{ ...good, tables: { securities: { ...good.tables.securities, sha256: "xyz" } } }, /sha256 must be/],
      [{ ...good, tables: [] }, /tables is not an object/],
      [null, /not a JSON object/],
    ];
    for (const [manifest, error] of bad) expect(() => publishedFiles(manifest, id)).toThrow(error);
  });

  test("a pointer is an id and the manifest's size and hash", () => {
    const bytes = encodePointer({ id, manifest_bytes: 10, manifest_sha256: "b".repeat(64) });
    expect(parsePointer(bytes, "CURRENT").id).toBe(id);
    for (const text of [`${id}\n`, '{"id":"../x","manifest_bytes":1,"manifest_sha256":""}', "\xff"])
      expect(() => parsePointer(new TextEncoder().encode(text), "CURRENT")).toThrow(/not a snapshot pointer/);
  });

  test("a read stops one byte past its bound, after the idle timeout, or at a stop", async () => {
    const dir = tempDir("stockd-source-");
    const source = openSnapshotSource({ kind: "dir", path: dir });
    const limits = { maxBytes: MAX_POINTER_BYTES, idleMs: 300, signal: new AbortController().signal };
    expect(await source.read("CURRENT", limits)).toBeNull();
    // Endless bytes behind a size of 0: read whole, they would fill the memory.
    symlinkSync("/dev/zero", join(dir, "CURRENT"));
    await expect(source.read("CURRENT", limits)).rejects.toThrow(
      `/CURRENT: larger than ${MAX_POINTER_BYTES} bytes`,
    );
    // A pipe nobody writes to never answers.
    const fifo = join(dir, "stalled");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const stop = new AbortController();
    const stopped = source.read("stalled", { ...limits, idleMs: 60_000, signal: stop.signal });
    await expect(source.read("stalled", limits)).rejects.toThrow("/stalled: no data for 300 ms");
    stop.abort();
    await expect(stopped).rejects.toThrow("/stalled: stopped");
    // End the reads still blocked in the pipe.
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  });

  test("a source names a directory or a bucket, never credentials", () => {
    expect(parseSnapshotSource("dir:/srv/snapshots/")).toEqual({ kind: "dir", path: "/srv/snapshots" });
    expect(parseSnapshotSource("s3://stockd/prod/eu")).toEqual({
      kind: "s3",
      bucket: "stockd",
      prefix: "prod/eu",
    });
    expect(() => parseSnapshotSource("dir:relative")).toThrow(/absolute/);
    expect(() => parseSnapshotSource("s3://stockd/../x")).toThrow(/prefix/);
    expect(() => parseSnapshotSource("http://example.com")).toThrow(/expected/);
    let message = "";
    try {
      loadConfig({ dataDir: tempDir() }, { STOCKD_SNAPSHOT_SOURCE: "s3://AKIA:hunter2secret@stockd/x" });
    } catch (error) {
      message = String(error);
    }
    expect(message).toContain("STOCKD_SNAPSHOT_SOURCE: credentials do not go in the source");
    expect(message).not.toContain("hunter2");
  });
});

describe("an s3:// source (s3rver on loopback)", () => {
  const source = "s3://stockd/prod";
  const publisher = tempDir("stockd-publisher-");
  let s3: TestS3;
  let replicas: Replica[] = [];
  let servers: ServerProcess[] = [];

  beforeAll(async () => {
    s3 = await startS3("stockd");
  });
  afterAll(async () => {
    await Promise.all(servers.map((r) => r.stop()));
    await s3.close();
  });

  const stockd = (args: string[]) => cli(args, { dataDir: publisher, env: stockdEnv(s3.env) });

  test("replicas wait (503) for a first publish; import --publish uploads to the bucket; both converge on each publish; a corrupt object never activates", async () => {
    replicas = await startReplicas(source, 2, s3.env);
    servers = replicas.map((r) => r.server);
    // Nothing published yet: not ready, and saying why (but not where: no key is needed).
    for (const replica of servers) {
      const res = await replica.get("/health");
      expect(res.status).toBe(503);
      const { detail } = (await res.json()) as { detail: string };
      expect(detail).toContain("no data snapshot is active; nothing is published at the snapshot source yet");
      expect(detail).not.toContain("stockd/prod");
    }
    const imported = await stockd(["import", "--from", tinySources(), "--publish", source, "--json"]);
    expect(imported.code).toBe(0);
    const first = (JSON.parse(imported.stdout) as { id: string }).id;
    expect(parsePointer(await s3.bucket.file("prod/CURRENT").bytes(), "CURRENT").id).toBe(first);
    await converge(servers, first);
    for (const replica of servers)
      expect((await health(replica)).snapshot_source).toMatchObject({ published: first, failed: false });

    const second = cloneSnapshot(publisher, first, 10);
    expect((await stockd(["snapshots", "publish", second, "--to", source])).code).toBe(0);
    await converge(servers, second);

    // Its objects, one corrupt, then the pointer: no replica can pull it before the corruption.
    const corrupt = cloneSnapshot(publisher, first, 20);
    const dir = snapshotDir(publisher, corrupt);
    const manifest = readFileSync(join(dir, "manifest.json"));
    for (const { file } of publishedFiles(JSON.parse(manifest.toString()), corrupt)) {
      const bytes = readFileSync(join(dir, file));
      if (file === "securities.parquet") bytes[0] = (bytes[0] as number) ^ 0xff;
      await s3.bucket.file(`prod/snapshots/${corrupt}/${file}`).write(bytes);
    }
    await s3.bucket.file(`prod/snapshots/${corrupt}/manifest.json`).write(manifest);
    const manifest_sha256 = new Bun.CryptoHasher("sha256").update(manifest).digest("hex");
    await s3.bucket
      .file("prod/CURRENT")
      .write(encodePointer({ id: corrupt, manifest_bytes: manifest.byteLength, manifest_sha256 }));
    await refused(replicas, corrupt, /sha256 [0-9a-f]{64} does not match/);
    for (const replica of replicas) {
      expect((await health(replica.server)).snapshot_id).toBe(second);
      expect(readFileSync(replica.log, "utf8")).not.toContain(s3.env.S3_SECRET_ACCESS_KEY as string);
    }
  });

  test("a damaged snapshot is never published: the pointer stays where it was", async () => {
    const before = await s3.bucket.file("prod/CURRENT").text();
    const damaged = cloneSnapshot(publisher, readCurrent(publisher) as string, 30);
    truncateSync(join(snapshotDir(publisher, damaged), "securities.parquet"), 10);
    const failed = await stockd(["snapshots", "publish", damaged, "--to", source]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`snapshot ${damaged} is damaged`);
    expect(failed.stderr).toContain("the source's CURRENT is unchanged");
    expect(await s3.bucket.file("prod/CURRENT").text()).toBe(before);
    expect(await s3.bucket.file(`prod/snapshots/${damaged}/manifest.json`).exists()).toBe(false);
  });
});
