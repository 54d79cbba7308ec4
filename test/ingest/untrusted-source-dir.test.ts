import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ImportContext } from "../../src/ingest/context.ts";
import { ImportError } from "../../src/ingest/errors.ts";
import { importSources } from "../../src/ingest/pipeline/import.ts";
import { parseOwnershipDocument, parseSubmissionText } from "../../src/ingest/sources/form4.ts";
import { readCurrent } from "../../src/snapshot/store.ts";
import { type CliResult, cli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/env.ts";
import { importErrorOf, ownershipXml } from "./ownership-xml.ts";

const PRICES = "Date,Close\n2024-01-02,5\n2024-01-03,6\n";
const OUTSIDE = "a link that leads outside the source directory";
/** The first line of the file outside the source dir: no message or report may quote it. */
const SECRET = "root:x:0:0:SECRET-FIRST-LINE";

/** A source dir with one good price file. */
function sourceDir(): string {
  const src = tempDir("stockd-untrusted-");
  mkdirSync(join(src, "prices"));
  writeFileSync(join(src, "prices", "A.csv"), PRICES);
  return src;
}

/** A folder outside every source dir, holding a file whose first line is SECRET. */
function outsideDir(): string {
  const dir = tempDir("stockd-outside-");
  writeFileSync(join(dir, "passwd"), `${SECRET}\ndaemon:x:1:1\n`);
  writeFileSync(join(dir, "Z.csv"), `${SECRET}\n2024-01-02,5\n`);
  return dir;
}

async function importError(src: string): Promise<unknown> {
  return importSources(src, tempDir()).then(
    () => "the import succeeded",
    (e: unknown) => e,
  );
}

/** `stockd import` in a child process (a hang or a crash stays there); its exit code and stderr. */
function runImport(src: string): Promise<CliResult> {
  return cli(["import", "--from", src], { dataDir: tempDir(), timeoutMs: 30_000 });
}

describe("links that lead outside the source directory", () => {
  test("a price file linked to a file outside fails a strict import by the link's name, quoting nothing", async () => {
    const src = sourceDir();
    symlinkSync(join(outsideDir(), "passwd"), join(src, "prices", "X.csv"));
    const error = await importError(src);
    expect(error).toBeInstanceOf(ImportError);
    expect(String(error)).toBe(`prices/X.csv: ${OUTSIDE}`);
  });

  test("under --lenient it is skipped and counted by its own name, and the manifest holds nothing of the target", async () => {
    const src = sourceDir();
    symlinkSync(join(outsideDir(), "passwd"), join(src, "prices", "X.csv"));
    const dataDir = tempDir();
    const manifest = await importSources(src, dataDir, { lenient: true });
    expect(manifest.report.skipped).toEqual([
      { file: "prices/X.csv", line: null, reason: `file skipped: ${OUTSIDE}` },
    ]);
    expect(manifest.report.skipped_total).toBe(1);
    expect(manifest.report.sources.prices?.records, "A.csv is still imported").toBe(2);
    const written = readFileSync(
      join(dataDir, "snapshots", readCurrent(dataDir) as string, "manifest.json"),
      "utf8",
    );
    expect(written, "manifest.json quotes nothing of the file outside").not.toContain("SECRET");
  });

  test("a linked folder that leads outside is not walked: its files are neither read nor named", async () => {
    const outside = outsideDir();
    const src = sourceDir();
    symlinkSync(outside, join(src, "prices", "more"));
    symlinkSync(outside, join(src, "mirror"));
    const manifest = await importSources(src, tempDir(), { lenient: true });
    expect(manifest.report.skipped.map((s) => s.file).sort()).toEqual(["mirror", "prices/more"]);
    const report = JSON.stringify(manifest.report);
    for (const name of ["passwd", "Z.csv", "SECRET"])
      expect(report, `the report names no ${name}`).not.toContain(name);
    expect(String(await importError(src))).toBe(`prices/more: ${OUTSIDE}`);
    // Outside any reader's folder too: the walk for files no reader took does not enter it.
    rmSync(join(src, "prices", "more"));
    expect(String(await importError(src))).toBe(`mirror: ${OUTSIDE}`);
    // A reader's folder that is itself such a link.
    rmSync(join(src, "mirror"));
    symlinkSync(outside, join(src, "figi"));
    expect(String(await importError(src))).toBe(`figi: ${OUTSIDE}`);
  });

  test("a single source file (company_tickers.json) linked outside is refused, not read", async () => {
    const outside = tempDir("stockd-outside-");
    writeFileSync(
      join(outside, "tickers.json"),
      '{"0":{"cik_str":320193,"ticker":"SECRET","title":"Apple Inc."}}',
    );
    const src = sourceDir();
    mkdirSync(join(src, "edgar"));
    symlinkSync(join(outside, "tickers.json"), join(src, "edgar", "company_tickers.json"));
    expect(String(await importError(src))).toBe(`edgar/company_tickers.json: ${OUTSIDE}`);
    const manifest = await importSources(src, tempDir(), { lenient: true });
    expect(manifest.report.skipped.map((s) => s.file)).toEqual(["edgar/company_tickers.json"]);
    expect(manifest.tables.securities?.rows, "only A, from its price file").toBe(1);
  });

  test("a link outside in a dot folder is left alone, as the import leaves the whole folder", async () => {
    const src = sourceDir();
    mkdirSync(join(src, ".venv"));
    symlinkSync(join(outsideDir(), "passwd"), join(src, ".venv", "python"));
    const manifest = await importSources(src, tempDir());
    expect(manifest.report.skipped_total).toBe(0);
    expect(JSON.stringify(manifest.report)).not.toContain("python");
  });

  test("links that stay inside keep working, also when the source dir itself is given by a link", async () => {
    const src = sourceDir();
    mkdirSync(join(src, "archive"));
    writeFileSync(join(src, "archive", "B.csv"), PRICES);
    symlinkSync(join(src, "archive", "B.csv"), join(src, "prices", "B.csv"));
    symlinkSync(join("..", "archive"), join(src, "prices", "old"));
    const link = join(tempDir(), "current");
    symlinkSync(src, link);
    const manifest = await importSources(link, tempDir());
    expect(manifest.report.sources.prices).toEqual({ files: 2, records: 4 });
    expect(manifest.report.skipped_total).toBe(0);
  });

  test("a file swapped for a link after it was found is not read (the opened file's real path is checked)", () => {
    const outside = outsideDir();
    const src = sourceDir();
    const ctx = new ImportContext(src, false);
    const [file] = ctx.files(join(ctx.root, "prices"), ".csv");
    expect(ctx.read(file as string)).toBe(PRICES);
    rmSync(join(src, "prices", "A.csv"));
    symlinkSync(join(outside, "passwd"), join(src, "prices", "A.csv"));
    expect(importErrorOf(() => ctx.read(file as string)).toString()).toBe(`prices/A.csv: ${OUTSIDE}`);
    expect(importErrorOf(() => ctx.head(file as string)).toString()).toBe(`prices/A.csv: ${OUTSIDE}`);
    // The folder on the way swapped for a link outside: the file reached is still refused.
    renameSync(join(src, "prices"), join(src, "old-prices"));
    symlinkSync(outside, join(src, "prices"));
    expect(importErrorOf(() => ctx.read(join(ctx.root, "prices", "Z.csv"))).toString()).toBe(
      `prices/Z.csv: ${OUTSIDE}`,
    );
  });

  test("a named pipe where a source file belongs fails the import instead of blocking it", {
    timeout: 40_000,
  }, async () => {
    const src = sourceDir();
    mkdirSync(join(src, "edgar"));
    const made = Bun.spawnSync(["mkfifo", join(src, "edgar", "company_tickers.json")]);
    expect(made.exitCode, "mkfifo made the pipe").toBe(0);
    const { code, stderr } = await runImport(src);
    expect(code).toBe(1);
    expect(stderr).toContain("stockd: import failed: edgar/company_tickers.json: not a regular file");
  });
});

/** An ownership document declaring `entities` in a DOCTYPE on line 2, its owner named `&owner;`. */
function withDoctype(entities: string): string {
  return ownershipXml({ owners: [{ name: "&owner;" }] }).replace(
    "<ownershipDocument>",
    `<!DOCTYPE ownershipDocument [${entities}]>\n<ownershipDocument>`,
  );
}

const EXTERNAL = withDoctype('<!ENTITY owner SYSTEM "file:///etc/passwd">');
const INTERNAL = withDoctype('<!ENTITY owner "Injected Name">');
const LAUGHS = withDoctype(
  [
    '<!ENTITY lol "lol">',
    ...Array.from(
      { length: 9 },
      (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? "" : i};`.repeat(10)}">`,
    ),
    '<!ENTITY owner "&lol9;">',
  ].join(""),
);
/** One 9,000-character entity referenced 10,000 times: 90 MB if expanded. */
const QUADRATIC = withDoctype(`<!ENTITY big "${"x".repeat(9000)}">`).replace(
  "&owner;",
  "&big;".repeat(10_000),
);
const DOCTYPE_REFUSED = "a DOCTYPE or ENTITY declaration (refused: SEC ownership documents carry none)";

describe("ownership documents with a DOCTYPE or entities", () => {
  test.each([
    ["an external entity", EXTERNAL],
    ["an internal entity", INTERNAL],
    ["nested entities (billion laughs)", LAUGHS],
    ["one large entity referenced many times", QUADRATIC],
  ])("%s: refused as file:line, nothing expanded", (_, xml) => {
    const started = performance.now();
    const error = importErrorOf(() => parseOwnershipDocument(xml, "edgar/form4/x.xml"));
    expect(error.toString()).toBe(`edgar/form4/x.xml:2: ${DOCTYPE_REFUSED}`);
    expect(performance.now() - started, "refused before any parsing").toBeLessThan(500);
  });

  test("a declaration inside a submission text's <XML> block is refused at its line in the text", () => {
    const text = `<SEC-DOCUMENT>0000012345-24-000001.txt\n<SEC-HEADER>\nACCESSION NUMBER: 0000012345-24-000001\n</SEC-HEADER>\n<DOCUMENT>\n<XML>\n${INTERNAL}</XML>\n</DOCUMENT>\n</SEC-DOCUMENT>\n`;
    const error = importErrorOf(() => parseSubmissionText(text, "edgar/form4/x.txt"));
    expect(error.toString()).toBe(`edgar/form4/x.txt:8: ${DOCTYPE_REFUSED}`);
  });

  test("the importer fails on it as on any bad file, and --lenient skips it and imports the rest", async () => {
    const src = sourceDir();
    mkdirSync(join(src, "edgar", "form4"), { recursive: true });
    writeFileSync(join(src, "edgar", "form4", "0000012345-24-000001.xml"), EXTERNAL);
    writeFileSync(join(src, "edgar", "form4", "0000012345-24-000002.xml"), ownershipXml());
    const strict = await runImport(src);
    expect(strict.code).toBe(1);
    expect(strict.stderr.trim()).toBe(
      `stockd: import failed: edgar/form4/0000012345-24-000001.xml:2: ${DOCTYPE_REFUSED}`,
    );
    const manifest = await importSources(src, tempDir(), { lenient: true });
    expect(manifest.report.skipped).toEqual([
      { file: "edgar/form4/0000012345-24-000001.xml", line: 2, reason: `file skipped: ${DOCTYPE_REFUSED}` },
    ]);
    expect(manifest.tables.insider_trades?.rows, "the other document's sale").toBe(1);
  });
});

describe("a parser's unexpected failure", () => {
  test("is an ImportError naming the file (XML nested deeper than the parser allows)", async () => {
    const deep = ownershipXml().replace("</issuer>", `</issuer>${"<x>".repeat(200)}${"</x>".repeat(200)}`);
    const src = sourceDir();
    mkdirSync(join(src, "edgar", "form4"), { recursive: true });
    writeFileSync(join(src, "edgar", "form4", "deep.xml"), deep);
    const error = await importError(src);
    expect(error).toBeInstanceOf(ImportError);
    expect(String(error)).toBe("edgar/form4/deep.xml: malformed XML: Maximum nested tags exceeded");
    const manifest = await importSources(src, tempDir(), { lenient: true });
    expect(manifest.report.skipped.map((s) => s.file)).toEqual(["edgar/form4/deep.xml"]);
  });

  test("thrown by any source is an ImportError naming that file, skipped under --lenient", () => {
    const src = sourceDir();
    const fail = () => {
      throw new TypeError("Cannot read properties of null (reading 'rows')");
    };
    const strict = new ImportContext(src, false);
    const file = join(strict.root, "prices", "A.csv");
    expect(importErrorOf(() => strict.parse(file, "prices", fail)).toString()).toBe(
      "prices/A.csv: unreadable: Cannot read properties of null (reading 'rows')",
    );
    const lenient = new ImportContext(src, true);
    expect(lenient.parse(file, "prices", fail)).toEqual([]);
    expect(lenient.report.skipped).toEqual([
      {
        file: "prices/A.csv",
        line: null,
        reason: "file skipped: unreadable: Cannot read properties of null (reading 'rows')",
      },
    ]);
  });
});
