import type { TObject, TSchema } from "@sinclair/typebox";
import { t } from "elysia";

/** `metadata.snapshot_id`: the snapshot the answer was read from. */
const SnapshotId = t.Object({
  snapshot_id: t.String({
    description: "the snapshot this answer was read from: the X-Snapshot-Id header's value (docs/api.md)",
  }),
});

/**
 * A document's schema as served: its `metadata` object, where it has one, also holds
 * `snapshot_id` (query/documents.ts `withSnapshotId` adds it to the stored body). A schema
 * without `metadata` is returned as it is.
 */
export function servedDocument<S extends TSchema>(schema: S): S {
  const properties = (schema as unknown as TObject).properties;
  if (!properties?.metadata) return schema;
  const metadata = properties.metadata;
  // An intersection already: one more member, not an intersection of intersections.
  const members = Array.isArray(metadata.allOf) ? (metadata.allOf as TSchema[]) : [metadata];
  return t.Object(
    { ...properties, metadata: t.Intersect([SnapshotId, ...members]) },
    { description: schema.description },
  ) as unknown as S;
}
