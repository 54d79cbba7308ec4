/**
 * The derived documents' stored bodies as a snapshot loads them: which kinds are held in
 * memory, and the snapshot's id written into each body's metadata. The read side's lookups are
 * documents.ts.
 */
import type { DerivedKind } from "../domain/derived.ts";
import type { Row } from "../snapshot/duckdb.ts";

/** Kinds whose bodies are large (monthly series): read from Parquet per request, not held in memory. */
const ON_DISK: ReadonlySet<DerivedKind> = new Set(["valuation_history", "valuation_points"]);

/** True when the kind's bodies are held in memory (`derivedInMemory`), false when read from disk (`derivedOnDisk`). */
export function isInMemory(kind: DerivedKind): boolean {
  return !ON_DISK.has(kind);
}

// The kinds are this module's constants, not input.
const SMALL_BODIES = `SELECT kind, security_id, body FROM derived WHERE kind NOT IN (${[...ON_DISK].map((k) => `'${k}'`).join(", ")})`;

/** The key that opens a document's top-level `metadata` object in its JSON text. */
const METADATA = '"metadata":{';

/**
 * A stored body with `metadata.snapshot_id` (the snapshot it is served from) as the first field
 * of its metadata; a body without metadata as it is. The importer stores documents without it
 * (the id names the snapshot they are served from, which a document does not know); the
 * first `"metadata":{` of the text is the top-level object's, the key every document with
 * metadata puts before its nested objects (a string value cannot hold an unescaped quote).
 */
export function withSnapshotId(body: string, snapshotId: string): string {
  const at = body.indexOf(METADATA);
  if (at === -1) return body;
  const end = at + METADATA.length;
  return `${body.slice(0, end)}"snapshot_id":${JSON.stringify(snapshotId)},${body.slice(end)}`;
}

/**
 * Bodies of the small kinds, loaded at activation, each with the snapshot's id in its metadata:
 * `kind → security_id → JSON text`.
 */
export async function loadDerived(
  all: (sql: string) => Promise<Row[]>,
  snapshotId: string,
): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>();
  for (const row of await all(SMALL_BODIES)) {
    const kind = row.kind as string;
    const byKind = out.get(kind) ?? new Map<string, string>();
    byKind.set(row.security_id as string, withSnapshotId(row.body as string, snapshotId));
    out.set(kind, byKind);
  }
  return out;
}
