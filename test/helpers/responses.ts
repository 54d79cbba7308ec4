/** Assertions on responses shared by the HTTP and reliability tests. */
import { expect } from "bun:test";

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
  errors?: { in: string; name: string; message: string }[];
}

/** Credits a response says it charged (0 when the header is absent). */
export function chargedBy(res: Response): number {
  return Number(res.headers.get("x-credits-charged") ?? "0");
}

/**
 * Asserts an RFC 9457 problem response: its content type, its status (when given, and the
 * body's), its fields, a request id equal to the `X-Request-Id` header, nothing charged, and
 * what `expected` names (the code; the first error's parameter and place). Returns the body.
 */
export async function expectProblem(
  res: Response,
  status?: number,
  expected: { code?: string; name?: string; in?: string } = {},
): Promise<Problem> {
  const text = await res.text();
  const where = `${res.status} ${res.url}: ${text.slice(0, 300)}`;
  expect(res.headers.get("content-type"), where).toBe("application/problem+json");
  if (status !== undefined) expect(res.status, where).toBe(status);
  const body = JSON.parse(text) as Problem;
  expect(body.status, where).toBe(res.status);
  for (const field of ["type", "title", "detail", "code"] as const)
    expect(typeof body[field], where).toBe("string");
  expect(body.request_id, where).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.get("x-request-id"), where).toBe(body.request_id);
  expect(chargedBy(res), where).toBe(0);
  if (expected.code) expect(body.code, where).toBe(expected.code);
  if (expected.name) {
    expect(body.errors?.[0]?.name, where).toBe(expected.name);
    if (expected.in) expect(body.errors?.[0]?.in, where).toBe(expected.in);
  }
  return body;
}
