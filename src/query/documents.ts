import type { DerivedKind } from "../domain/derived.ts";
import type { Row } from "../snapshot/duckdb.ts";
import type { LoadedSnapshot } from "./snapshot.ts";

/** Kinds whose bodies are large (monthly series): read from Parquet per request, not held in memory. */
const ON_DISK: ReadonlySet<DerivedKind> = new Set(["valuation_history", "valuation_points"]);

/** True when the kind's bodies are held in memory (`derivedInMemory`), false when read from disk (`derivedOnDisk`). */
export function isInMemory(kind: DerivedKind): boolean {
  return !ON_DISK.has(kind);
}

const BODY = "SELECT body FROM derived WHERE kind = $kind AND security_id = $security";
// The kinds are this module's constants, not input.
const SMALL_BODIES = `SELECT kind, security_id, body FROM derived WHERE kind NOT IN (${[...ON_DISK].map((k) => `'${k}'`).join(", ")})`;

/** Bodies of the small kinds, loaded at activation: `kind → security_id → JSON text`. */
export async function loadDerived(
  all: (sql: string) => Promise<Row[]>,
): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>();
  for (const row of await all(SMALL_BODIES)) {
    const kind = row.kind as string;
    const byKind = out.get(kind) ?? new Map<string, string>();
    byKind.set(row.security_id as string, row.body as string);
    out.set(kind, byKind);
  }
  return out;
}

/** The stored response body of an in-memory kind for one security, or null. */
export function derivedInMemory(
  snapshot: LoadedSnapshot,
  kind: DerivedKind,
  securityId: string,
): string | null {
  return snapshot.derived.get(kind)?.get(securityId) ?? null;
}

/** The stored response body of an on-disk kind for one security, or null; read from Parquet. */
export async function derivedOnDisk(
  snapshot: LoadedSnapshot,
  kind: DerivedKind,
  securityId: string,
): Promise<string | null> {
  if (!snapshot.has("derived")) return null;
  const rows = await snapshot.all<{ body: string }>(BODY, { kind, security: securityId });
  return rows[0]?.body ?? null;
}
