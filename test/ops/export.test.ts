/**
 * `stockd export`: the files it writes are the server's exports of the same snapshot, byte for
 * byte; it never overwrites a file; a table or format it does not know is a usage error.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../../src/index.ts";
import { readCsv } from "../../src/ingest/sources/csv.ts";
import { tempDir } from "../helpers/env.ts";
import { useDemoServer } from "../helpers/server.ts";

const server = useDemoServer();

/** `stockd export ARGS --json` through `main`, over the server's data dir. */
async function exportCli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
  const code = await main(["export", ...args, "--data-dir", server.dataDir], io, {});
  return { code, out: out.join(""), err: err.join("\n") };
}

async function served(path: string, key: string): Promise<Buffer> {
  const res = await server.get(path, key);
  expect(res.status, path).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe("stockd export", () => {
  test("writes the files the server serves, byte for byte, Parquet by default and CSV on request", async () => {
    const { key } = server.newKey(1_000);
    const to = tempDir();
    const tables = "prices,income_statement_ttm,companies";
    const parquet = await exportCli(["--to", to, "--tables", tables, "--json"]);
    expect(parquet.code, parquet.err).toBe(0);
    const result = JSON.parse(parquet.out) as {
      snapshot_id: string;
      files: { name: string; path: string; rows: number; bytes: number }[];
    };
    expect(result.snapshot_id).toBe(server.snapshots.current()?.id as string);
    expect(result.files.map((f) => f.name)).toEqual(tables.split(","));
    for (const file of result.files) {
      const bytes = readFileSync(file.path);
      expect(bytes.length, file.name).toBe(file.bytes);
      expect(bytes.equals(await served(`/exports/${file.name}.parquet`, key)), file.name).toBe(true);
    }
    const csv = await exportCli(["--to", to, "--tables", "companies,filings", "--format", "csv"]);
    expect(csv.code, csv.err).toBe(0);
    const text = readFileSync(join(to, "filings.csv"));
    expect(text.equals(await served("/exports/filings.csv", key))).toBe(true);
    const table = readCsv(text.toString("utf8"), "filings.csv");
    expect(table.records.length).toBe(server.snapshots.current()?.manifest.tables.filings?.rows as number);
    expect(readdirSync(to).sort()).toEqual([
      "companies.csv",
      "companies.parquet",
      "filings.csv",
      "income_statement_ttm.parquet",
      "prices.parquet",
    ]);
  }, 60_000);

  test("every table when none is named", async () => {
    const to = tempDir();
    const all = await exportCli(["--to", to]);
    expect(all.code, all.err).toBe(0);
    const { key } = server.newKey(10);
    const listed = (await (await server.get("/exports", key)).json()) as { tables: { name: string }[] };
    expect(readdirSync(to).sort()).toEqual(listed.tables.map((t) => `${t.name}.parquet`).sort());
  }, 60_000);

  test("refuses to overwrite, an unknown table or format, and a snapshot not on disk: exit 2, nothing written", async () => {
    const to = tempDir();
    expect((await exportCli(["--to", to, "--tables", "companies"])).code).toBe(0);
    const again = await exportCli(["--to", to, "--tables", "companies"]);
    expect([again.code, again.err]).toEqual([2, expect.stringContaining("exists")]);
    const unknown = await exportCli(["--to", to, "--tables", "derived"]);
    expect([unknown.code, unknown.err]).toEqual([2, expect.stringContaining('no table "derived"')]);
    const format = await exportCli(["--to", to, "--format", "json"]);
    expect([format.code, format.err]).toEqual([2, expect.stringContaining("--format")]);
    const pinned = await exportCli(["--to", to, "--snapshot", "20990101T000000Z-abcdef"]);
    expect([pinned.code, pinned.err]).toEqual([2, expect.stringContaining("no snapshot")]);
    expect(readdirSync(to)).toEqual(["companies.parquet"]);
  }, 60_000);
});
