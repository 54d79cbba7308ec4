/**
 * The closed set of API error codes, their HTTP statuses, and the RFC 9457 problem body.
 * Every non-2xx response of the service is built here.
 */

const ERROR_STATUS = {
  invalid_parameter: 400,
  malformed_request: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  idempotency_conflict: 409,
  payload_too_large: 413,
  range_not_satisfiable: 416,
  rate_limited: 429,
  headers_too_large: 431,
  internal: 500,
  unavailable: 503,
  http_version_not_supported: 505,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

const TITLES: Record<ErrorCode, string> = {
  invalid_parameter: "Invalid parameter",
  malformed_request: "Malformed request",
  unauthorized: "Unauthorized",
  insufficient_credits: "Insufficient credits",
  not_found: "Not found",
  method_not_allowed: "Method not allowed",
  request_timeout: "Request timeout",
  idempotency_conflict: "Idempotency key reused",
  payload_too_large: "Request body too large",
  range_not_satisfiable: "Range not satisfiable",
  rate_limited: "Too many requests",
  headers_too_large: "Request headers too large",
  internal: "Internal error",
  unavailable: "Service unavailable",
  http_version_not_supported: "HTTP version not supported",
};

/** One offending input, as in the `errors` member of a problem body. */
export interface FieldError {
  in: "path" | "query" | "header";
  name: string;
  message: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  request_id: string;
  errors?: FieldError[];
}

/** An error meant for the client. Thrown only at the HTTP edge; services return results. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.name = "ApiError";
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** A 400 naming one parameter. */
export function invalidParameter(where: FieldError["in"], name: string, message: string): ApiError {
  return new ApiError("invalid_parameter", `${name}: ${message}`, [{ in: where, name, message }]);
}

function problemBody(error: ApiError, requestId: string): ProblemBody {
  const body: ProblemBody = {
    type: `https://stockd.dev/problems/${error.code.replaceAll("_", "-")}`,
    title: TITLES[error.code],
    status: error.status,
    detail: error.detail,
    code: error.code,
    request_id: requestId,
  };
  if (error.errors?.length) body.errors = error.errors;
  return body;
}

/** An error's problem+json as a status, header fields (the request id's among them) and body text. */
export function problem(
  error: ApiError,
  requestId: string,
): { status: number; headers: Record<string, string>; body: string } {
  return {
    status: error.status,
    headers: {
      "content-type": "application/problem+json",
      "x-request-id": requestId,
      ...error.headers,
    },
    body: JSON.stringify(problemBody(error, requestId)),
  };
}

/** The problem+json response for an error, with the request id header. */
export function problemResponse(error: ApiError, requestId: string): Response {
  const { status, headers, body } = problem(error, requestId);
  return new Response(body, { status, headers });
}
