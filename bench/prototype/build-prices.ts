#!/usr/bin/env bun
/** `bun bench/prototype/build-prices.ts DATA_DIR`: writes DATA_DIR/prices.bin{,.json,.txt,.days,.offsets} from the active snapshot. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { writePriceFile, writePriceText } from "./price-file.ts";

const dataDir = process.argv[2];
if (!dataDir) throw new Error("usage: build-prices.ts DATA_DIR");
const id = readFileSync(join(dataDir, "CURRENT"), "utf8").trim();
const conn = await (await DuckDBInstance.create(":memory:")).connect();
const rows = await writePriceFile(
  conn,
  join(dataDir, "snapshots", id, "prices.parquet"),
  join(dataDir, "prices.bin"),
);
await writePriceText(join(dataDir, "prices.bin"));
console.error(`wrote ${rows} rows`);
