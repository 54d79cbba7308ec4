#!/usr/bin/env bun
/**
 * A full-table export streamed over HTTP against reading the same file from disk, in the same
 * run: `bun bench/exports.ts [--data-dir DIR] [--table prices] [--runs 9]`.
 *
 * DIR holds an imported snapshot (default: the quick bench's import in .bench-cache/quick/data,
 * else a fresh demo); it is only read: the server runs over a temporary data dir whose
 * `snapshots` links to DIR's. Each run reads the whole Parquet file from disk into memory,
 * then GETs /exports/{table}.parquet over loopback and reads its whole body (the first GET is
 * the charged one; the runs after it are the free repeats); the two alternate and the figure
 * is the ratio of the medians (target: the export at ≥ 0.5× the disk read). The CSV export
 * is timed the same way, after its first GET made it, and so is a one-byte range of the
 * Parquet file (the fixed cost of a call, without the bytes). With curl on the PATH, the same
 * again with curl as the client, in its own process: `file://` against the export's URL, and
 * against a reference for HTTP delivery on this machine: the same file sent by `Bun.serve`
 * with the kernel's sendfile, nothing authenticated, billed or counted.
 */
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config.ts";
import { buildDemo } from "../src/demo/index.ts";
import { createLogger } from "../src/log.ts";
import { startServer } from "../src/server.ts";
import { ROOT } from "../test/helpers/spawn.ts";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Milliseconds `read` takes, and the bytes it read. */
async function timed(read: () => Promise<number>): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const bytes = await read();
  return { ms: performance.now() - started, bytes };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { "data-dir": { type: "string" }, table: { type: "string" }, runs: { type: "string" } },
  });
  const work = mkdtempSync(join(tmpdir(), "stockd-bench-exports-"));
  try {
    const quick = join(ROOT, ".bench-cache/quick/data");
    let source = values["data-dir"]
      ? resolve(values["data-dir"])
      : existsSync(join(quick, "CURRENT"))
        ? quick
        : "";
    if (!source) {
      source = join(work, "demo");
      await buildDemo(source);
    }
    const dataDir = join(work, "d");
    cpSync(join(source, "CURRENT"), join(dataDir, "CURRENT"), { recursive: true });
    symlinkSync(join(source, "snapshots"), join(dataDir, "snapshots"));
    const config = { ...loadConfig({ dataDir, port: "0", host: "127.0.0.1" }, {}, dataDir) };
    const server = await startServer(
      { ...config, limits: { ...config.limits, requestTimeoutMs: 600_000 } },
      createLogger("warn"),
    );
    try {
      const user = await server.accounts.createUser("bench@example.test", 1_000_000);
      if (!user.ok) throw new Error(user.message);
      const { key } = await server.accounts.createKey(user.value.id, null, null);
      const snapshot = server.snapshots.current();
      const table = values.table ?? "prices";
      const entry = snapshot?.manifest.tables[table as "prices"];
      if (!snapshot || !entry) throw new Error(`no table ${table} in ${source}`);
      const path = join(snapshot.dir, entry.file);
      const get = async (format: string, range?: string) => {
        const res = await fetch(`${server.url}/exports/${table}.${format}`, {
          headers: { authorization: `Bearer ${key}`, ...(range ? { range } : {}) },
        });
        if (res.status !== (range ? 206 : 200)) throw new Error(`GET ${table}.${format}: ${res.status}`);
        return (await res.arrayBuffer()).byteLength;
      };
      // A client in its own process (curl, timing itself) reads the file from disk and the
      // export over loopback: the server's work is not shared with the client's event loop.
      const curl = Bun.which("curl");
      const curlMs = async (url: string, auth: boolean, range?: string): Promise<number> => {
        const headers = [
          ...(auth ? ["-H", `Authorization: Bearer ${key}`] : []),
          ...(range ? ["-H", `Range: ${range}`] : []),
        ];
        const proc = Bun.spawn(
          [curl as string, "-s", "-o", "/dev/null", "-w", "%{time_total}", ...headers, url],
          {
            stdout: "pipe",
          },
        );
        const out = await new Response(proc.stdout).text();
        if ((await proc.exited) !== 0) throw new Error(`curl ${url} failed`);
        return Number(out) * 1000;
      };
      const runs = Number(values.runs ?? 9);
      console.log(
        `${table}: Parquet ${(entry.bytes / 2 ** 20).toFixed(1)} MiB, ${entry.rows} rows, ${runs} runs`,
      );
      await get("parquet");
      const csvBytes = await get("csv");
      const disk: number[] = [];
      const parquet: number[] = [];
      const csv: number[] = [];
      const oneByte: number[] = [];
      for (let i = 0; i < runs; i++) {
        disk.push((await timed(async () => (await Bun.file(path).bytes()).byteLength)).ms);
        parquet.push((await timed(() => get("parquet"))).ms);
        csv.push((await timed(() => get("csv"))).ms);
        oneByte.push((await timed(() => get("parquet", "bytes=0-0"))).ms);
      }
      const rate = (bytes: number, ms: number) => `${(bytes / 2 ** 20 / (ms / 1000)).toFixed(0)} MiB/s`;
      const [d, p, c, o] = [median(disk), median(parquet), median(csv), median(oneByte)];
      console.log(`disk read        median ${d.toFixed(1)} ms  ${rate(entry.bytes, d)}`);
      console.log(
        `GET .parquet     median ${p.toFixed(1)} ms  ${rate(entry.bytes, p)}  ${(d / p).toFixed(2)}× disk (target ≥ 0.5×)`,
      );
      console.log(
        `GET .csv         median ${c.toFixed(1)} ms  ${rate(csvBytes, c)}  (${(csvBytes / 2 ** 20).toFixed(1)} MiB)`,
      );
      console.log(`GET 1 byte       median ${o.toFixed(2)} ms  (a call's fixed cost)`);
      if (curl) {
        const floor = Bun.serve({
          port: 0,
          hostname: "127.0.0.1",
          fetch: () => new Response(Bun.file(path)),
        });
        try {
          const exportUrl = `${server.url}/exports/${table}.parquet`;
          const fromDisk: number[] = [];
          const overHttp: number[] = [];
          const sendfile: number[] = [];
          const curlByte: number[] = [];
          for (let i = 0; i < runs; i++) {
            fromDisk.push(await curlMs(`file://${path}`, false));
            overHttp.push(await curlMs(exportUrl, true));
            sendfile.push(await curlMs(floor.url.href, false));
            curlByte.push(await curlMs(exportUrl, true, "bytes=0-0"));
          }
          const [cd, ch, cs, cb] = [median(fromDisk), median(overHttp), median(sendfile), median(curlByte)];
          console.log(`curl, disk       median ${cd.toFixed(1)} ms  ${rate(entry.bytes, cd)}`);
          console.log(
            `curl, .parquet   median ${ch.toFixed(1)} ms  ${rate(entry.bytes, ch)}  ${(cd / ch).toFixed(2)}× disk (target ≥ 0.5×)`,
          );
          console.log(
            `curl, sendfile   median ${cs.toFixed(1)} ms  ${rate(entry.bytes, cs)}  ${(cd / cs).toFixed(2)}× disk (Bun.serve + Bun.file, sendfile: reference)`,
          );
          console.log(`curl, 1 byte     median ${cb.toFixed(2)} ms  (a call's fixed cost, with curl's own)`);
        } finally {
          floor.stop(true);
        }
      }
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
