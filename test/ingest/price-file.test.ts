/**
 * The serving price files (snapshot/price-layout.ts): what the importer writes and the server cuts
 * windows from must be, byte for byte, the JSON of the rows the window selects.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { fromDayNumber } from "../../src/domain/dates.ts";
import { PriceFileWriter, serializePrices } from "../../src/ingest/writing/price-file.ts";
import { PriceStore } from "../../src/query/price-store.ts";
import { priceRowText } from "../../src/snapshot/price-layout.ts";
import { tempDir } from "../helpers/env.ts";
import { servedPrice } from "../helpers/raw-sources.ts";

const price = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
  fc.constantFrom(0, -0, 1e-7, 123.456, 0.1 + 0.2, 1e21, 5e-324),
);
const orNull = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });
const volume = fc.oneof(fc.integer({ min: 0, max: 2 ** 53 - 1 }), fc.constantFrom(1e21, 2.5e22));

/** Ascending, distinct days from 1990 on; each with random values. */
const securityRows = fc
  .uniqueArray(fc.integer({ min: 7_300, max: 7_300 + 12_000 }), { maxLength: 60 })
  .chain((days) =>
    fc.tuple(
      ...[...days]
        .sort((a, b) => a - b)
        .map((day) =>
          fc.record({
            date: fc.constant(fromDayNumber(day)),
            open: orNull(price),
            high: orNull(price),
            low: orNull(price),
            close: price,
            adj_close: orNull(price),
            volume: orNull(volume),
          }),
        ),
    ),
  );

describe("serving price files", () => {
  test("a row's text is exactly JSON.stringify of the served row", () => {
    fc.assert(
      fc.property(securityRows, (rows) => {
        for (const row of rows) expect(priceRowText(servedPrice(row))).toBe(JSON.stringify(servedPrice(row)));
      }),
      { numRuns: 200 },
    );
  });

  test("every window is the JSON array of the rows whose dates fall in it, for each security", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(securityRows, { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(3), fc.integer({ min: 7_200, max: 19_500 }), fc.nat(13_000)), {
          minLength: 1,
          maxLength: 20,
        }),
        async (securities, windows) => {
          const dir = tempDir();
          const writer = new PriceFileWriter(dir);
          for (const [i, rows] of securities.entries()) writer.add(`sec${i}`, serializePrices(rows));
          expect(writer.finish().rows).toBe(securities.reduce((n, rows) => n + rows.length, 0));
          const store = PriceStore.open(dir);
          for (const [which, from, length] of windows) {
            const id = `sec${which}`;
            const start = fromDayNumber(from);
            const end = fromDayNumber(from + length);
            const rows = securities[which] ?? [];
            const expected = rows.filter((r) => r.date >= start && r.date <= end).map(servedPrice);
            expect(await new Blob(store.window(id, start, end)).text()).toBe(JSON.stringify(expected));
            expect(store.has(id)).toBe(rows.length > 0);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  test("a snapshot without prices opens as an empty store", async () => {
    const dir = tempDir();
    new PriceFileWriter(dir).finish();
    const store = PriceStore.open(dir);
    expect(store.has("sec0")).toBe(false);
    expect(await new Blob(store.window("sec0", "2020-01-01", "2020-12-31")).text()).toBe("[]");
  });
});
