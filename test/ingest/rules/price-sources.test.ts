/** Which file holds a ticker's prices (src/ingest/rules/price-sources.ts). */
import { describe, expect, test } from "bun:test";
import {
  choosePriceFiles,
  csvPriceFilesFirst,
  isJsonPriceFile,
} from "../../../src/ingest/rules/price-sources.ts";

describe("csvPriceFilesFirst", () => {
  test("every CSV before every JSON, each kind in the given order; the extension's case does not matter", () => {
    expect(csvPriceFilesFirst(["a.json", "b.csv", "c.JSON", "d.csv"])).toEqual([
      "b.csv",
      "d.csv",
      "a.json",
      "c.JSON",
    ]);
    expect(isJsonPriceFile("X.Json")).toBe(true);
    expect(isJsonPriceFile("X.csv")).toBe(false);
  });
});

describe("choosePriceFiles", () => {
  test("a CSV wins over an Alpha Vantage JSON of the same ticker, whatever the given order", () => {
    const { byTickerKey, notRead } = choosePriceFiles([
      { file: "prices/aapl-daily.json", ticker: "AAPL" },
      { file: "prices/AAPL.csv", ticker: "AAPL" },
    ]);
    expect(byTickerKey).toEqual(new Map([["AAPL", "prices/AAPL.csv"]]));
    expect(notRead).toEqual([{ file: "prices/aapl-daily.json", ticker: "AAPL", heldBy: "prices/AAPL.csv" }]);
  });
  test("two names of one ticker key: the first given wins, the other is listed as not read", () => {
    const { byTickerKey, notRead } = choosePriceFiles([
      { file: "prices/BRK-B.csv", ticker: "BRK-B" },
      { file: "prices/BRK.B.csv", ticker: "BRK.B" },
    ]);
    expect(byTickerKey).toEqual(new Map([["BRK.B", "prices/BRK-B.csv"]]));
    expect(notRead).toEqual([{ file: "prices/BRK.B.csv", ticker: "BRK.B", heldBy: "prices/BRK-B.csv" }]);
  });
  test("different tickers are all kept", () => {
    const { byTickerKey, notRead } = choosePriceFiles([
      { file: "prices/MSFT.csv", ticker: "MSFT" },
      { file: "prices/ibm.json", ticker: "IBM" },
    ]);
    expect([...byTickerKey.keys()]).toEqual(["MSFT", "IBM"]);
    expect(notRead).toEqual([]);
  });
});
