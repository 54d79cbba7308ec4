#!/usr/bin/env bun
/**
 * How fast the Bun in use sends a response made in a later event-loop turn than its request's
 * (as a batched debit's is), against one returned at once, for body sizes on both sides of
 * the edge's `CORK_BYTES` and a price-sized body: as a Blob, and as the edge sends bodies of
 * `CORK_BYTES` and more (`responseBody`: a direct stream, chunked). A bare Bun.serve in a
 * child process answers with the headers of a billed call; 64 connections; alternating
 * repetitions, medians.
 *
 * If "later" stops falling behind at `CORK_BYTES` and above, Bun corks large Blob bodies too,
 * and `responseBody` could send every body whole; if "later, stream" falls behind "later",
 * the stream no longer pays.
 *
 * `bun bench/bun-send.ts [--seconds 3] [--repetitions 3]`
 */
import { parseArgs } from "node:util";
import { CORK_BYTES, responseBody } from "../src/http/edge.ts";
import { runLoad } from "./lib/loadgen.ts";
import { OutputTail, stopProcess } from "./lib/process.ts";
import { formatInt, median } from "./lib/stats.ts";

const SIZES = [CORK_BYTES - 1, CORK_BYTES, 26_000];
const WAYS = ["now", "later", "stream"] as const;

/**
 * The child: `/now/N` answers in the request's turn, `/later/N` from a `setImmediate` batch,
 * `/stream/N` the same with the edge's `responseBody`.
 */
function serve(): void {
  const text = new Map(SIZES.map((n) => [String(n), "x".repeat(n)]));
  const bodies = new Map(SIZES.map((n) => [String(n), new Blob([text.get(String(n)) ?? ""])]));
  const waiting: (() => void)[] = [];
  const flush = () => {
    for (const answer of waiting.splice(0)) answer();
  };
  let calls = 0;
  const respond = (size: string, stream = false) => {
    calls++;
    return new Response(stream ? responseBody(text.get(size) ?? "") : (bodies.get(size) ?? null), {
      headers: {
        "content-type": "application/json",
        "ratelimit-policy": '"per-key";q=1000;w=1',
        ratelimit: `"per-key";r=${calls % 1000};t=1`,
        "x-credits-charged": "1",
        "x-credits-remaining": String(calls),
        "x-request-id": crypto.randomUUID(),
      },
    });
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    routes: {
      "/now/:size": (request) => respond(request.params.size),
      "/later/:size": (request) =>
        new Promise<Response>((resolve) => {
          if (waiting.push(() => resolve(respond(request.params.size))) === 1) setImmediate(flush);
        }),
      "/stream/:size": (request) =>
        new Promise<Response>((resolve) => {
          if (waiting.push(() => resolve(respond(request.params.size, true))) === 1) setImmediate(flush);
        }),
    },
  });
  console.log(`listening ${server.port}`);
}

async function measure(seconds: number, repetitions: number): Promise<void> {
  const proc = Bun.spawn([process.execPath, import.meta.path, "--serve"], {
    stdout: "pipe",
    stderr: "inherit",
  });
  try {
    const port = Number((await new OutputTail(proc.stdout).match(/listening (\d+)/))[1]);
    const rps = new Map<string, number[]>();
    for (let r = 0; r < repetitions; r++) {
      for (const size of SIZES) {
        for (const way of WAYS) {
          const path = `/${way}/${size}`;
          const result = await runLoad({
            host: "127.0.0.1",
            port,
            connections: 64,
            warmupMs: 500,
            durationMs: seconds * 1000,
            keys: [""],
            next: () => ({ path, key: 0 }),
          });
          rps.set(path, [...(rps.get(path) ?? []), result.rps]);
        }
      }
    }
    console.log(
      `Bun ${Bun.version}: req/s (median of ${repetitions}), 64 connections, CORK_BYTES = ${CORK_BYTES}`,
    );
    console.log(
      "| body bytes | answered at once | from a later turn | later / at once | later, responseBody | that / at once |",
    );
    console.log("| --- | --- | --- | --- | --- | --- |");
    for (const size of SIZES) {
      const of = (way: (typeof WAYS)[number]) => median(rps.get(`/${way}/${size}`) ?? []);
      const [now, later, stream] = [of("now"), of("later"), of("stream")];
      console.log(
        `| ${formatInt(size)} | ${formatInt(now)} | ${formatInt(later)} | ${(later / now).toFixed(2)} | ${formatInt(stream)} | ${(stream / now).toFixed(2)} |`,
      );
    }
  } finally {
    await stopProcess(proc);
  }
}

const { values } = parseArgs({
  options: {
    serve: { type: "boolean", default: false },
    seconds: { type: "string", default: "3" },
    repetitions: { type: "string", default: "3" },
  },
});
if (values.serve) serve();
else await measure(Number(values.seconds), Number(values.repetitions));
