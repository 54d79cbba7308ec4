/** The content type of every JSON body the routes return as text. */
export const JSON_TYPE = "application/json;charset=utf-8";

/**
 * A 200 body as a fast-path route makes it: JSON text, or its pieces in order (a price window:
 * the brackets around rows that are a view of a memory-mapped file, see PriceStore).
 */
export type BodyBytes = string | Uint8Array[];

/** A body's length in bytes (UTF-8 for text). */
export function byteLength(body: BodyBytes): number {
  if (typeof body === "string") return Buffer.byteLength(body);
  let size = 0;
  for (const piece of body) size += piece.byteLength;
  return size;
}

/** The body as a Response takes it whole: the text, or the pieces copied into one Blob. */
export const wholeBody = (body: BodyBytes): string | Blob =>
  typeof body === "string" ? body : new Blob(body);

/** A fast-path route's 200 body and its content type; made into a reply once every header field is known. */
export class Body {
  constructor(
    readonly bytes: BodyBytes,
    readonly type: string = JSON_TYPE,
  ) {}
}

/** The file (or part of one) of each Response `streamed` made. */
const streamedFiles = new WeakMap<Response, Blob>();

/**
 * A Response whose body is a file's bytes (an export), which the transport writes piece by
 * piece as it reads them, with backpressure, instead of reading it whole first; settle commits
 * it without reading it. The body's size is sent as `Content-Length`.
 */
export function streamed(body: Blob, status: number, headers: Record<string, string>): Response {
  const response = new Response(body, {
    status,
    headers: { ...headers, "content-length": String(body.size) },
  });
  streamedFiles.set(response, body);
  return response;
}

/** The file an answer made by `streamed` sends; undefined for any other answer. */
export const streamedFile = (answer: unknown): Blob | undefined =>
  answer instanceof Response ? streamedFiles.get(answer) : undefined;

/** True for an answer made by `streamed`. */
export const isStreamed = (answer: unknown): boolean => streamedFile(answer) !== undefined;

/** What the routed part of a call answers: a Response (Elysia, errors) or a fast-path route's body. */
export type Answer = Response | Body;

/** An answer's status. */
export const statusOf = (answer: Answer): number => (answer instanceof Body ? 200 : answer.status);

/**
 * An answer's body read once (an idempotent call's record keeps it), and the answer to send,
 * rebuilt around those bytes.
 */
export async function readWhole(answer: Answer): Promise<[Uint8Array, Answer]> {
  if (answer instanceof Body) return [await new Blob([wholeBody(answer.bytes)]).bytes(), answer];
  const bytes = await answer.bytes();
  return [bytes, new Response(bytes, { status: answer.status, headers: answer.headers })];
}
