/**
 * The SEC's per-filer JSON documents (companyfacts and submissions), wherever the source
 * directory holds them: as files in `edgar/companyfacts/` and `edgar/submissions/`, or as
 * entries of the bulk archives `edgar/companyfacts.zip` and `edgar/submissions.zip` as the SEC
 * publishes them (read in place by `zip-reader.ts`, never unpacked to disk). A file in the
 * folder wins over the archive's entry of the same name, so that files fetched later (a
 * sync's updates) replace the archive's older copies. docs/sources.md states the rules.
 */
import { basename, join } from "node:path";
import { entryPath, type ImportContext } from "../context.ts";
import { shownName, type ZipEntry } from "../zip-reader.ts";

/** A companyfacts or submissions document: a file, or an entry of the archive `file`. */
export interface EdgarDocument {
  file: string;
  entry: ZipEntry | null;
}

export type EdgarKind = "companyfacts" | "submissions";

/** The entry names each archive holds: the API's file names (and submissions' paged files). */
const ENTRY_NAME: Record<EdgarKind, RegExp> = {
  companyfacts: /^CIK(\d{10})\.json$/i,
  submissions: /^CIK(\d{10})(?:-submissions-\d+)?\.json$/i,
};

/** Names listed in a note about entries not read. */
const LISTED_NAMES = 20;

/** The path a document is named by in messages and the report. */
export function documentPath(document: EdgarDocument): string {
  return document.entry ? entryPath(document.file, document.entry) : document.file;
}

/** A document's text: the file's, or the archive entry's, unpacked and checked. */
export function readDocument(ctx: ImportContext, document: EdgarDocument): string {
  return document.entry ? ctx.readEntry(document.file, document.entry) : ctx.read(document.file);
}

/**
 * The documents of one kind: the folder's files, then (when the archive is there) its entries
 * whose name no file of the folder has and whose CIK `wanted` takes, all in name order. The
 * entries left out are named in the report's notes.
 */
export function edgarDocuments(
  ctx: ImportContext,
  kind: EdgarKind,
  wanted: (cik: string) => boolean = () => true,
): EdgarDocument[] {
  const edgar = join(ctx.root, "edgar");
  const files = ctx.files(join(edgar, kind), ".json");
  const archive = join(edgar, `${kind}.zip`);
  const inFolder = new Set(files.map((file) => basename(file).toLowerCase()));
  const pattern = ENTRY_NAME[kind];
  const shadowed: string[] = [];
  const unwanted: string[] = [];
  const listing = ctx.archive(archive, (name) => {
    const cik = pattern.exec(name)?.[1];
    if (cik === undefined) return false;
    if (inFolder.has(name.toLowerCase())) shadowed.push(name);
    else if (!wanted(cik)) unwanted.push(name);
    else return true;
    return false;
  });
  if (listing === null) return files.map((file) => ({ file, entry: null }));
  const unnamed = listing.skipped.filter((name) => !pattern.test(name));
  const label = ctx.name(archive);
  noteEntries(ctx, label, unnamed, `not named CIK##########.json`, true);
  noteEntries(ctx, label, shadowed, `a file of the same name in edgar/${kind}/ is read instead`, false);
  noteEntries(ctx, label, unwanted, "filers that no other source names", false);
  const documents = [
    ...files.map((file) => ({ file, entry: null })),
    ...listing.entries.map((entry) => ({ file: archive, entry })),
  ];
  const nameOf = (document: EdgarDocument) => basename(documentPath(document));
  return documents.sort((a, b) => compare(nameOf(a), nameOf(b)) || compare(a.file, b.file));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A note naming the first entries of an archive that were not read, and why. */
function noteEntries(ctx: ImportContext, label: string, names: string[], why: string, quoted: boolean): void {
  if (names.length === 0) return;
  const shown = names.slice(0, LISTED_NAMES).map((name) => (quoted ? shownName(name) : name));
  const more = names.length > LISTED_NAMES ? `, and ${names.length - LISTED_NAMES} more` : "";
  ctx.note(
    `${label}: ${names.length} entr${names.length === 1 ? "y" : "ies"} not read (${why}): ${shown.join(", ")}${more}`,
  );
}
