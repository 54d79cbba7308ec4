/**
 * SEC bulk archives (`edgar/companyfacts.zip`, `edgar/submissions.zip`) as the import reads
 * them: the same snapshot tables as the same files in folders (real fixtures, archives built at
 * test time), the folder's file winning over an entry of the same name, and hostile archives
 * refused by name with the served snapshot left as it was.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { ImportError } from "../../src/ingest/errors.ts";
import { importSources } from "../../src/ingest/pipeline/import.ts";
import { ZIP_LIMITS } from "../../src/ingest/zip-reader.ts";
import { listSnapshotIds, type Manifest, readCurrent } from "../../src/snapshot/store.ts";
import { cli } from "../helpers/cli.ts";
import { FIXTURES, tempDir } from "../helpers/env.ts";
import { calendarYear, syntheticFactsJson } from "../helpers/synthetic-companyfacts.ts";
import { type EntryHeaders, ZipWriter } from "../helpers/zip-writer.ts";

const CIK = "0000000123";
const ENTRY = `CIK${CIK}.json`;
const FACTS = JSON.stringify(syntheticFactsJson([...calendarYear(2023, [10, 11, 12, 13])], 123));
const CORRUPT = "edgar/companyfacts.zip";
/** Two imports of a whole fixture tree: ~45 s on an idle 2-core machine, several times that on a busy one. */
const TWO_IMPORTS_MS = 300_000;

/** A source dir listing the synthetic company (ticker SYN) and holding `zip` as its companyfacts.zip. */
function syntheticRoot(zip?: (writer: ZipWriter) => void, zip64 = false): string {
  const root = tempDir("stockd-bulk-");
  mkdirSync(join(root, "edgar"));
  writeFileSync(
    join(root, "edgar", "company_tickers_exchange.json"),
    JSON.stringify({
      fields: ["cik", "name", "ticker", "exchange"],
      data: [[123, "Synthetic Co", "SYN", "NYSE"]],
    }),
  );
  if (zip) {
    const writer = new ZipWriter(join(root, "edgar", "companyfacts.zip"), zip64);
    zip(writer);
    writer.close();
  }
  return root;
}

function zipOf(headers: EntryHeaders = {}, data: Buffer | string = FACTS): string {
  return syntheticRoot((w) => w.add(ENTRY, data, headers));
}

/** Imports `root` into a data dir that already serves a snapshot; returns the error, and checks nothing changed. */
async function refused(root: string, opts: { lenient?: boolean } = {}): Promise<string> {
  const dataDir = tempDir();
  await importSources(syntheticRoot(), dataDir);
  const before = { current: readCurrent(dataDir), ids: listSnapshotIds(dataDir) };
  const error = await importSources(root, dataDir, opts).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ImportError);
  expect(
    { current: readCurrent(dataDir), ids: listSnapshotIds(dataDir) },
    "the served snapshot stays",
  ).toEqual(before);
  return String(error);
}

/** Each table's and served file's rows and SHA-256: equal for the same data, byte for byte. */
function tablesOf(manifest: Manifest) {
  const tables = Object.entries(manifest.tables).map(([name, t]) => [name, t?.rows, t?.sha256]);
  const files = Object.entries(manifest.files ?? {}).map(([name, f]) => [name, f.sha256]);
  return { tables: tables.sort(), files: files.sort() };
}

describe("companyfacts.zip", () => {
  test("its entry gives the same tables as the same file in edgar/companyfacts/, in a zip64 archive too", async () => {
    const folder = syntheticRoot();
    mkdirSync(join(folder, "edgar", "companyfacts"));
    writeFileSync(join(folder, "edgar", "companyfacts", ENTRY), FACTS);
    const fromFolder = await importSources(folder, tempDir());
    expect(fromFolder.tables.income_statement?.rows, "the company has statements").toBeGreaterThan(0);
    for (const zip64 of [false, true]) {
      const fromZip = await importSources(
        syntheticRoot((w) => w.add(ENTRY, FACTS), zip64),
        tempDir(),
      );
      expect(tablesOf(fromZip)).toEqual(tablesOf(fromFolder));
      expect(fromZip.report.sources.companyfacts).toEqual({ files: 1, records: expect.any(Number) });
    }
  });

  test("a file in edgar/companyfacts/ wins over the entry of the same name, and the note says so", async () => {
    const root = zipOf({}, JSON.stringify(syntheticFactsJson([...calendarYear(2022, [1, 2, 3, 4])], 123)));
    mkdirSync(join(root, "edgar", "companyfacts"));
    writeFileSync(join(root, "edgar", "companyfacts", ENTRY), FACTS);
    const both = await importSources(root, tempDir());
    const folderOnly = syntheticRoot();
    cpSync(join(root, "edgar", "companyfacts"), join(folderOnly, "edgar", "companyfacts"), {
      recursive: true,
    });
    expect(tablesOf(both)).toEqual(tablesOf(await importSources(folderOnly, tempDir())));
    expect(both.report.notes).toContain(
      `edgar/companyfacts.zip: 1 entry not read (a file of the same name in edgar/companyfacts/ is read instead): ${ENTRY}`,
    );
  });

  test("entries not named CIK##########.json (a path that climbs out, a folder) are skipped and counted, never read", async () => {
    const root = syntheticRoot((w) =>
      w.add(`../../${ENTRY}`, FACTS).add(`companyfacts/${ENTRY}`, FACTS).add("README\u001b[31m.txt", "hi"),
    );
    const manifest = await importSources(root, tempDir());
    expect(manifest.tables.income_statement?.rows ?? 0, "no entry was read").toBe(0);
    expect(manifest.report.notes).toContain(
      `edgar/companyfacts.zip: 3 entries not read (not named CIK##########.json): "../../${ENTRY}", "companyfacts/${ENTRY}", "README\\u001b[31m.txt"`,
    );
  });

  test("the archive is not listed as an unread file", async () => {
    const manifest = await importSources(zipOf(), tempDir());
    expect(manifest.report.notes.join("\n")).not.toContain("not read (no source format");
  });
});

describe("hostile archives fail the import by archive and entry, and the served snapshot stays", () => {
  const entry = `${CORRUPT}/${ENTRY}`;

  test("a zip bomb that declares its size", async () => {
    const bomb = Buffer.alloc(ZIP_LIMITS.entryBytes + 1);
    expect(await refused(zipOf({}, bomb))).toBe(
      `${entry}: unpacks to ${ZIP_LIMITS.entryBytes + 1} bytes, over the limit of ${ZIP_LIMITS.entryBytes}`,
    );
  });

  test("a zip bomb that lies about its size", async () => {
    expect(await refused(zipOf({ size: 1000 }, Buffer.alloc(64 * 1024 * 1024)))).toBe(
      `${entry}: unpacks to more than the 1000 bytes it declares`,
    );
  });

  test("entries that declare more than the total limit together", async () => {
    const huge = ZIP_LIMITS.totalBytes / 2 + 1;
    const root = syntheticRoot(
      (w) => w.add(ENTRY, "{}", { size: huge }).add("CIK0000000124.json", "{}", { size: huge }),
      true,
    );
    expect(await refused(root)).toBe(
      `${CORRUPT}: its entries unpack to more than the limit of ${ZIP_LIMITS.totalBytes} bytes`,
    );
  });

  test("an archive that counts more entries than the limit, or more directory than it holds", async () => {
    /** The zip64 end record (56 bytes before the locator and the end record) with 8-byte fields set. */
    const patched = (fields: Record<number, number>) => {
      const root = syntheticRoot((w) => w.add(ENTRY, FACTS), true);
      const bytes = readFileSync(join(root, CORRUPT));
      for (const [at, value] of Object.entries(fields))
        bytes.writeBigUInt64LE(BigInt(value), bytes.length - 22 - 20 - 56 + Number(at));
      writeFileSync(join(root, CORRUPT), bytes);
      return root;
    };
    const entries = ZIP_LIMITS.entries + 1;
    expect(await refused(patched({ 24: entries, 32: entries }))).toBe(
      `${CORRUPT}: lists ${entries} entries, over the limit of ${ZIP_LIMITS.entries}`,
    );
    expect(await refused(patched({ 40: ZIP_LIMITS.directoryBytes + 1 }))).toBe(
      `${CORRUPT}: its central directory is not where its end record puts it (cut short, or data before it)`,
    );
  });

  test("a CRC-32 mismatch", async () => {
    expect(await refused(zipOf({ crc32: 0x12345678 }))).toBe(
      `${entry}: fails its CRC-32 check (the archive is damaged)`,
    );
  });

  test("an archive cut short, at its end or in its middle", async () => {
    const cut = zipOf();
    const zip = join(cut, CORRUPT);
    truncateSync(zip, Math.floor(statSync(zip).size * 0.6));
    expect(await refused(cut)).toBe(
      `${CORRUPT}: has no end-of-archive record: it is no zip archive, or it is cut short`,
    );
    const gap = zipOf();
    const bytes = readFileSync(join(gap, CORRUPT));
    writeFileSync(join(gap, CORRUPT), Buffer.concat([bytes.subarray(0, 100), bytes.subarray(200)]));
    expect(await refused(gap)).toBe(
      `${CORRUPT}: its central directory is not where its end record puts it (cut short, or data before it)`,
    );
  });

  test("an encrypted entry, and one of an unsupported method", async () => {
    expect(await refused(zipOf({ flags: 1 }))).toBe(`${entry}: is encrypted`);
    expect(await refused(zipOf({ method: 12 }))).toBe(
      `${entry}: uses compression method 12 (only stored and deflate are read)`,
    );
  });

  test("an entry listed twice, entries that overlap, and a local header naming another entry", async () => {
    expect(await refused(syntheticRoot((w) => w.add(ENTRY, FACTS).add(ENTRY, FACTS)))).toBe(
      `${CORRUPT}: entry "${ENTRY}" is listed twice`,
    );
    const overlap = syntheticRoot((w) =>
      w.add(ENTRY, FACTS).add("CIK0000000124.json", FACTS, { offsetOf: ENTRY }),
    );
    expect(await refused(overlap)).toBe(`${CORRUPT}: entries "${ENTRY}" and "CIK0000000124.json" overlap`);
    expect(await refused(zipOf({ localName: "CIK0000000999.json" }))).toBe(
      `${entry}: its local header names another entry`,
    );
  });

  test("a file that is no zip archive at all", async () => {
    const root = syntheticRoot();
    writeFileSync(join(root, CORRUPT), "PK not really".repeat(10));
    expect(await refused(root)).toBe(
      `${CORRUPT}: has no end-of-archive record: it is no zip archive, or it is cut short`,
    );
  });

  test("a damaged submissions.zip entry names that archive", async () => {
    const root = syntheticRoot();
    const writer = new ZipWriter(join(root, "edgar", "submissions.zip"));
    writer.add(ENTRY, JSON.stringify({ cik: CIK, filings: { recent: {} } }), { crc32: 1 }).close();
    expect(await refused(root)).toBe(
      `edgar/submissions.zip/${ENTRY}: fails its CRC-32 check (the archive is damaged)`,
    );
  });

  test("--lenient skips a damaged entry and counts it; the other entries are read", async () => {
    const root = syntheticRoot((w) => w.add("CIK0000000122.json", FACTS, { crc32: 7 }).add(ENTRY, FACTS));
    const manifest = await importSources(root, tempDir(), { lenient: true });
    expect(manifest.report.skipped).toEqual([
      {
        file: `${CORRUPT}/CIK0000000122.json`,
        line: null,
        reason: "file skipped: fails its CRC-32 check (the archive is damaged)",
      },
    ]);
    expect(manifest.tables.income_statement?.rows).toBeGreaterThan(0);
  });

  test("stockd import prints the error and exits 1", async () => {
    const result = await cli(["import", "--from", zipOf({ flags: 1 })], {
      dataDir: tempDir(),
      timeoutMs: 30_000,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${entry}: is encrypted`);
  });
});

/** CIKs (ten digits) that the import's other sources name: ticker lists, companyfacts, Form 3/4/5 documents. */
function filersNamed(root: string): Set<string> {
  const named = new Set<string>();
  const add = (cik: string | number) => named.add(String(cik).padStart(10, "0"));
  const exchange = JSON.parse(readFileSync(join(root, "edgar", "company_tickers_exchange.json"), "utf8"));
  for (const row of exchange.data) add(row[0]);
  const plain = JSON.parse(readFileSync(join(root, "edgar", "company_tickers.json"), "utf8"));
  for (const row of Object.values(plain) as { cik_str: number }[]) add(row.cik_str);
  for (const file of filesIn(join(root, "edgar", "companyfacts"))) add(basename(file).slice(3, 13));
  for (const file of filesIn(join(root, "edgar", "form4")))
    for (const m of readFileSync(file, "utf8").matchAll(/<(?:issuerCik|rptOwnerCik)>\s*(\d+)\s*</g))
      add(m[1] as string);
  return named;
}

function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name))
      .sort();
  } catch {
    return [];
  }
}

/**
 * Two copies of a fixture root: one with edgar/companyfacts.zip and edgar/submissions.zip
 * holding every companyfacts and submissions file, one with the folders, holding the
 * submissions files of the filers the other sources name only (the ones an archive's are read for).
 */
function twoCopies(root: string, archive: (zip: string, files: string[]) => void) {
  const copy = () => {
    const dir = tempDir("stockd-bulk-fixture-");
    for (const name of readdirSync(root))
      if (name !== "variants" && name !== "more-filers" && name !== "edgar")
        cpSync(join(root, name), join(dir, name), { recursive: true });
    for (const name of readdirSync(join(root, "edgar")))
      if (name !== "companyfacts" && name !== "submissions")
        cpSync(join(root, "edgar", name), join(dir, "edgar", name), { recursive: true });
    return dir;
  };
  const facts = filesIn(join(root, "edgar", "companyfacts"));
  const submissions = filesIn(join(root, "edgar", "submissions"));
  const zipped = copy();
  archive(join(zipped, "edgar", "companyfacts.zip"), facts);
  archive(join(zipped, "edgar", "submissions.zip"), submissions);
  const named = filersNamed(root);
  const unnamed = submissions.filter((f) => !named.has(basename(f).slice(3, 13)));
  const folders = copy();
  for (const [kind, files] of [
    ["companyfacts", facts],
    ["submissions", submissions.filter((f) => !unnamed.includes(f))],
  ] as const) {
    mkdirSync(join(folders, "edgar", kind));
    for (const file of files) cpSync(file, join(folders, "edgar", kind, basename(file)));
  }
  return { zipped, folders, unnamed: unnamed.map((f) => basename(f)) };
}

function writeZip(zip: string, files: string[]): void {
  const writer = new ZipWriter(zip);
  for (const file of files) writer.add(basename(file), readFileSync(file));
  writer.close();
}

/** Info-ZIP's `zip` (with zip64 fields), when the machine has it; else this suite's writer. */
function infoZip(zip: string, files: string[]): void {
  const run = spawnSync("zip", ["-q", "-X", "-j", "-fz", zip, ...files]);
  if (run.error || run.status !== 0) writeZip(zip, files);
}

describe.skipIf(!FIXTURES)(
  "the fixtures from the SEC's bulk archives and from folders (STOCKD_FIXTURES)",
  () => {
    for (const [name, root, archive] of [
      ["the main tree", FIXTURES ?? "", writeZip],
      ["more-filers, zipped by Info-ZIP", join(FIXTURES ?? "", "more-filers"), infoZip],
    ] as const)
      test(
        `${name}: every snapshot table is the same, byte for byte`,
        async () => {
          const { zipped, folders, unnamed } = twoCopies(root, archive);
          const [fromZips, fromFolders] = [
            await importSources(zipped, tempDir()),
            await importSources(folders, tempDir()),
          ];
          expect(fromZips.tables.income_statement?.rows).toBeGreaterThan(0);
          expect(tablesOf(fromZips)).toEqual(tablesOf(fromFolders));
          expect(fromZips.report.sources.companyfacts).toEqual(fromFolders.report.sources.companyfacts);
          expect(fromZips.report.sources.submissions).toEqual(fromFolders.report.sources.submissions);
          const note = fromZips.report.notes.find((n) => n.includes("filers that no other source names"));
          if (unnamed.length === 0) expect(note).toBeUndefined();
          else
            expect(note).toBe(
              `edgar/submissions.zip: ${unnamed.length} entr${unnamed.length === 1 ? "y" : "ies"} not read (filers that no other source names): ${unnamed.slice(0, 20).join(", ")}${unnamed.length > 20 ? `, and ${unnamed.length - 20} more` : ""}`,
            );
        },
        TWO_IMPORTS_MS,
      );
  },
);
