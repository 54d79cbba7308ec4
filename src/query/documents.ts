import type { DerivedKind } from "../domain/derived.ts";
import { withSnapshotId } from "./derived-bodies.ts";
import type { LoadedSnapshot } from "./snapshot.ts";

const BODY = "SELECT body FROM derived WHERE kind = $kind AND security_id = $security";

/** The stored response body of an in-memory kind for one security, or null. */
export function derivedInMemory(
  snapshot: LoadedSnapshot,
  kind: DerivedKind,
  securityId: string,
): string | null {
  return snapshot.derived.get(kind)?.get(securityId) ?? null;
}

/** The response body of an on-disk kind for one security (with the snapshot id), or null; read from Parquet. */
export async function derivedOnDisk(
  snapshot: LoadedSnapshot,
  kind: DerivedKind,
  securityId: string,
): Promise<string | null> {
  if (!snapshot.has("derived")) return null;
  const rows = await snapshot.all<{ body: string }>(BODY, { kind, security: securityId });
  const body = rows[0]?.body;
  return body === undefined ? null : withSnapshotId(body, snapshot.id);
}
