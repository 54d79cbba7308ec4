/**
 * ExportRepeats on a clock the test moves: a paid export is free until its window ends, then
 * pays again; reads waiting for a paying one are free once it paid, and one of them pays when
 * it did not; an outcome reported twice counts once.
 */
import { expect, test } from "bun:test";
import { ExportRepeats } from "../../src/http/export-repeats.ts";

const HOUR = 3600_000;

function clock() {
  let now = 0;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

test("free within the window after a paid read, charged again after it", async () => {
  const time = clock();
  const repeats = new ExportRepeats(24 * HOUR, time.now);
  const pay = await repeats.claim("u\u0000s\u0000prices.parquet");
  expect(pay).not.toBeNull();
  pay?.(true);
  time.advance(24 * HOUR - 1);
  expect(await repeats.claim("u\u0000s\u0000prices.parquet")).toBeNull();
  // Another user, another file: their own payment.
  expect(await repeats.claim("v\u0000s\u0000prices.parquet")).not.toBeNull();
  expect(await repeats.claim("u\u0000s\u0000prices.csv")).not.toBeNull();
  time.advance(1);
  expect(await repeats.claim("u\u0000s\u0000prices.parquet")).not.toBeNull();
});

test("reads waiting for the paying one: free when it paid, one pays when it did not", async () => {
  const repeats = new ExportRepeats(HOUR, clock().now);
  const first = await repeats.claim("k");
  const waiting = [repeats.claim("k"), repeats.claim("k")];
  first?.(false);
  // One of the waiting reads becomes the payer; the other waits for it in turn.
  const second = await Promise.race(waiting);
  expect(second).not.toBeNull();
  second?.(true);
  second?.(false);
  expect(await Promise.all(waiting)).toContain(null);
  expect(await repeats.claim("k")).toBeNull();
});
