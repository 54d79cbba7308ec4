import { createHash } from "node:crypto";

/**
 * The entity tag of an answer: the snapshot it read and the request (its path and its query
 * parameters in any order; not the method, not the key), so that HEAD and GET, and every key,
 * see the same tag for the same answer.
 */
export function entityTag(snapshotId: string, url: URL): string {
  const params = [...url.searchParams.entries()].sort(([a, x], [b, y]) =>
    a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0,
  );
  const digest = createHash("sha256")
    .update(JSON.stringify([snapshotId, url.pathname, params]))
    .digest("base64url");
  return `"${digest.slice(0, 32)}"`;
}

/**
 * True when an `If-None-Match` field names the tag (RFC 9110 §13.1.2: `*`, or a list of tags
 * compared weakly, a `W/` prefix ignored).
 */
export function matchesIfNoneMatch(field: string | null, tag: string): boolean {
  if (field === null) return false;
  if (field.trim() === "*") return true;
  return field.split(",").some((part) => {
    const given = part.trim();
    return (given.startsWith("W/") ? given.slice(2) : given) === tag;
  });
}
