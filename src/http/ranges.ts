import { ApiError } from "../errors.ts";

/** A part of a body: its first and last byte, inclusive. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

const BYTES = /^bytes=(.*)$/i;
const SPEC = /^(\d{1,15})?-(\d{1,15})?$/;

/**
 * What a `Range` field asks of a body of `size` bytes (RFC 9110 §14.2): null for the whole
 * body (no field, or a unit other than bytes, which is ignored); else the one range, clamped
 * to the body. Throws a 416 for a range that starts past the end, a malformed range set, and
 * more than one range (one range per request is served: a client asks for each in turn).
 */
export function requestedRange(field: string | null, size: number): ByteRange | null {
  if (field === null) return null;
  const set = BYTES.exec(field.trim())?.[1];
  if (set === undefined) return null;
  const specs = set.split(",");
  if (specs.length > 1)
    throw unsatisfiable(size, "one range per request is served; ask for each range in turn");
  const [, first, last] = SPEC.exec((specs[0] as string).trim()) ?? [];
  if (first === undefined && last === undefined)
    throw unsatisfiable(
      size,
      `"${field.slice(0, 100)}" is not a byte range (bytes=first-last, bytes=first- or bytes=-length)`,
    );
  if (first === undefined) {
    // bytes=-n: the last n bytes.
    const length = Math.min(Number(last), size);
    if (length === 0) throw unsatisfiable(size, "the range is empty");
    return { start: size - length, end: size - 1 };
  }
  const start = Number(first);
  const end = last === undefined ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== undefined && Number(last) < start)
    throw unsatisfiable(size, "the range ends before it starts");
  if (start >= size) throw unsatisfiable(size, `the range starts past the end of the ${size} bytes`);
  return { start, end };
}

/** The 416, with the body's size in `Content-Range` as RFC 9110 §15.5.17 asks. */
function unsatisfiable(size: number, detail: string): ApiError {
  return new ApiError("range_not_satisfiable", detail, undefined, { "content-range": `bytes */${size}` });
}
