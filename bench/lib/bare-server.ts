#!/usr/bin/env bun
/**
 * The reference: a bare Bun.serve that answers every request with the same bytes (and
 * content type) as a sample response of the measured endpoint.
 * `bun bench/lib/bare-server.ts BODY_FILE CONTENT_TYPE`; prints `listening PORT` on stdout.
 */
export {};

const [bodyFile, contentType] = process.argv.slice(2);
if (!bodyFile || !contentType) {
  console.error("usage: bare-server.ts BODY_FILE CONTENT_TYPE");
  process.exit(2);
}
const body = await Bun.file(bodyFile).bytes();
const headers = { "content-type": contentType };
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () => new Response(body, { headers }),
});
console.log(`listening ${server.port}`);
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
