import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeDemoSources } from "../../src/demo/index.ts";
import { main } from "../../src/index.ts";
import { ImportError } from "../../src/ingest/errors.ts";
import { importSources } from "../../src/ingest/pipeline/import.ts";
import { listSnapshotIds, readCurrent, readManifest } from "../../src/snapshot/store.ts";
import { tempDir } from "../helpers/env.ts";

/** A small source dir: the demo universe's files. */
function demoSources(): string {
  const dir = tempDir();
  writeDemoSources(dir, new Date("2024-06-30T12:00:00Z"));
  return dir;
}

function capture() {
  const lines: string[] = [];
  return { io: { out: (t: string) => lines.push(t), err: (t: string) => lines.push(t) }, lines };
}

describe("import", () => {
  test("a bad price row fails the import with file and line, and the served snapshot stays as it was", async () => {
    const dataDir = tempDir();
    const good = await importSources(demoSources(), dataDir);
    const bad = demoSources();
    writeFileSync(
      join(bad, "prices", "BAD.csv"),
      "Date,Open,High,Low,Close,Adj Close,Volume\n2024-01-02,1,1,1,1,1,10\n2024-01-03,1,1,1,-5,1,10\n",
    );
    const error = await importSources(bad, dataDir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect(String(error)).toBe("prices/BAD.csv:3: Close -5 is negative");
    expect(readCurrent(dataDir)).toBe(good.id);
    expect(listSnapshotIds(dataDir)).toEqual([good.id]);
    expect(readdirSync(join(dataDir, "snapshots"))).toEqual([good.id]);
  });

  test("the CLI reports a failed import as file:line and exits 1", async () => {
    const bad = demoSources();
    writeFileSync(join(bad, "prices", "BAD.csv"), "Date,Close\n2024-02-30,5\n");
    const { io, lines } = capture();
    const code = await main(["import", "--from", bad, "--data-dir", tempDir()], io);
    expect(code).toBe(1);
    expect(lines.join("\n")).toContain('prices/BAD.csv:2: Date "2024-02-30" is not a real calendar date');
  });

  test("--lenient skips malformed records and counts them in the report", async () => {
    const src = demoSources();
    writeFileSync(join(src, "prices", "BAD.csv"), "Date,Close\n2024-01-02,5\n2024-01-03,abc\n2024-01-04,6\n");
    const dataDir = tempDir();
    const { io } = capture();
    expect(await main(["import", "--from", src, "--lenient", "--data-dir", dataDir], io)).toBe(0);
    const manifest = readManifest(dataDir, readCurrent(dataDir) as string);
    expect(manifest.report.skipped_total).toBe(1);
    expect(manifest.report.skipped[0]).toEqual({
      file: "prices/BAD.csv",
      line: 3,
      reason: 'Close "abc" is not a number',
    });
  });

  test("files no source format takes are named in the report's notes and printed by the CLI", async () => {
    const src = demoSources();
    mkdirSync(join(src, "figi"), { recursive: true });
    // A link to a file counts as the file; a linked folder's files are files of the tree.
    const elsewhere = join(src, ".downloads");
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, "crosswalk.csv"), "cusip,isin,figi\n");
    symlinkSync(join(elsewhere, "crosswalk.csv"), join(src, "figi", "crosswalk.csv"));
    symlinkSync(elsewhere, join(src, "figi", "downloads"));
    writeFileSync(join(src, "prices", "notes.txt"), "downloaded 2024-06-30\n");
    writeFileSync(join(src, "prices", ".DS_Store"), "");
    // Files in a reader's folder with its extension but not its format are left, not failed.
    writeFileSync(join(src, "prices", "download_log.json"), '{"downloaded": "2024-06-30"}');
    writeFileSync(join(src, "edgar", "form4", "README.txt"), "Form 4 documents from EDGAR\n");
    // An empty download in prices/ is no other kind of JSON: it is read, and would fail.
    mkdirSync(join(src, ".git"), { recursive: true });
    writeFileSync(join(src, ".git", "config"), "[core]\n");
    const dataDir = tempDir();
    const { io, lines } = capture();
    expect(await main(["import", "--from", src, "--data-dir", dataDir], io)).toBe(0);
    const unknown =
      "3 files not read (no source format of that name or place): figi/crosswalk.csv, figi/downloads/crosswalk.csv, prices/notes.txt";
    const passedOver =
      "2 files not read (not in the format of their folder): edgar/form4/README.txt, prices/download_log.json";
    const { notes } = readManifest(dataDir, readCurrent(dataDir) as string).report;
    expect(notes).toContain(unknown);
    expect(notes).toContain(passedOver);
    expect(lines).toContain(`  note: ${unknown}`);
    writeFileSync(join(src, "prices", "EMPTY.json"), "");
    expect(String(await importSources(src, tempDir()).catch((e: unknown) => e))).toStartWith(
      "prices/EMPTY.json: not valid JSON",
    );
  });

  test("a link to a folder above (a cycle) is walked once: no file is read or named twice", async () => {
    const src = demoSources();
    symlinkSync(src, join(src, "loop"));
    symlinkSync(join(src, "prices"), join(src, "prices", "loop"));
    writeFileSync(join(src, "prices", "notes.txt"), "downloaded 2024-06-30\n");
    // A link to the folder above the reader's is not followed into its other folders.
    symlinkSync(src, join(src, "prices", "all"));
    const plain = await importSources(demoSources(), tempDir());
    const manifest = await importSources(src, tempDir());
    expect(manifest.report.sources.prices).toEqual(plain.report.sources.prices);
    expect(manifest.report.notes).toContain(
      "1 file not read (no source format of that name or place): prices/notes.txt",
    );
  });

  test("a link that leads nowhere: in a reader's folder an error naming it, elsewhere an unread file", async () => {
    const src = demoSources();
    symlinkSync(join(src, "no-such-drive", "notes.txt"), join(src, "notes.txt"));
    const manifest = await importSources(src, tempDir());
    expect(manifest.report.notes).toContain(
      "1 file not read (no source format of that name or place): notes.txt",
    );
    symlinkSync(join(src, "no-such-drive", "ZZZZ.csv"), join(src, "prices", "ZZZZ.csv"));
    const error = await importSources(src, tempDir()).catch((e: unknown) => e);
    expect(String(error)).toBe("prices/ZZZZ.csv: a link that leads nowhere (its target is missing)");
  });

  test("a filing listed in both the recent and a paged submissions file is stored once", async () => {
    const src = demoSources();
    const subs = join(src, "edgar", "submissions");
    const [first] = readdirSync(subs);
    const recent = JSON.parse(await Bun.file(join(subs, first as string)).text());
    const cik = recent.cik as string;
    const r = recent.filings.recent;
    const page = { ...Object.fromEntries(Object.keys(r).map((k) => [k, r[k].slice(0, 3)])) };
    page.accessionNumber = [...page.accessionNumber.slice(0, 2), "0000000001-99-000001"];
    writeFileSync(join(subs, `CIK${cik}-submissions-001.json`), JSON.stringify(page));
    const dataDir = tempDir();
    const manifest = await importSources(src, dataDir);
    const recentCount = readdirSync(subs)
      .filter((f) => !f.includes("-submissions-"))
      .reduce(
        (n, f) => n + JSON.parse(readFileSync(join(subs, f), "utf8")).filings.recent.accessionNumber.length,
        0,
      );
    // Two of the page's three filings repeat recent ones; only the third is new.
    expect(manifest.tables.filings?.rows).toBe(recentCount + 1);
  });

  test("a malformed whole file fails a strict import by name, and is skipped and listed by a lenient one", async () => {
    const src = demoSources();
    mkdirSync(join(src, "edgar", "companyfacts"), { recursive: true });
    writeFileSync(join(src, "edgar", "companyfacts", "CIK0099999999.json"), '{"cik": 99999999, "facts": ');
    const strict = await importSources(src, tempDir()).catch((e: unknown) => e);
    expect(String(strict)).toMatch(/^edgar\/companyfacts\/CIK0099999999\.json: not valid JSON/);
    const manifest = await importSources(src, tempDir(), { lenient: true });
    const skipped = manifest.report.skipped.filter((s) => s.file === "edgar/companyfacts/CIK0099999999.json");
    expect(skipped.length).toBe(1);
    expect(skipped[0]?.reason).toMatch(/^file skipped: not valid JSON/);
  });

  test("a missing source directory is an error naming it", async () => {
    const error = await importSources(join(tempDir(), "nope"), tempDir()).catch((e: unknown) => e);
    expect(String(error)).toMatch(/nope: source directory does not exist/);
  });

  test("a staging directory left by an interrupted import is removed by the next import", async () => {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, "snapshots", ".staging-20240101T000000Z-abcdef"), { recursive: true });
    const m = await importSources(demoSources(), dataDir);
    expect(readdirSync(join(dataDir, "snapshots"))).toEqual([m.id]);
  });

  test("the manifest records each table's rows and checksum, matching the files", async () => {
    const dataDir = tempDir();
    const m = await importSources(demoSources(), dataDir);
    for (const entry of Object.values(m.tables)) {
      const path = join(dataDir, "snapshots", m.id, entry.file);
      expect(existsSync(path)).toBe(true);
      const hash = new Bun.CryptoHasher("sha256").update(await Bun.file(path).arrayBuffer()).digest("hex");
      expect(hash).toBe(entry.sha256);
    }
    expect(m.tables.prices?.rows).toBeGreaterThan(1000);
  });
});
