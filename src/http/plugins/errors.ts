import { Elysia, ValidationError } from "elysia";
import { ApiError, invalidParameter, problemResponse } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import { callOf } from "../context.ts";
import { parseRule } from "../params.ts";

/**
 * Maps every error to problem+json. Validation failures name the parameter; anything
 * unexpected becomes a 500 whose body says nothing about the cause (the log has it).
 */
export function errorsPlugin(log: Logger) {
  return new Elysia({ name: "errors" }).onError({ as: "global" }, ({ code, error, request }) => {
    const requestId = callOf(request).requestId;
    if (error instanceof ValidationError) return problemResponse(fromValidation(error, request), requestId);
    if (code === "NOT_FOUND") return problemResponse(new ApiError("not_found", "no such route"), requestId);
    if (code === "PARSE")
      return problemResponse(new ApiError("invalid_parameter", "the request could not be parsed"), requestId);
    return errorResponse(error, requestId, log);
  });
}

/** An ApiError's problem response; anything else is logged and becomes a 500 that says nothing of its cause. */
export function errorResponse(error: unknown, requestId: string, log: Logger): Response {
  if (error instanceof ApiError) return problemResponse(error, requestId);
  log.error("unhandled error", {
    request_id: requestId,
    error: error instanceof Error ? error.stack : String(error),
  });
  return problemResponse(
    new ApiError("internal", "an internal error occurred; quote the request id when reporting it"),
    requestId,
  );
}

/** The parameter a validation failure names (the schema's `error`, see params.ts), "is required" when absent. */
function fromValidation(error: ValidationError, request: Request): ApiError {
  const where = error.type === "params" ? "path" : error.type === "headers" ? "header" : "query";
  const rule = parseRule(error.customError);
  if (!rule) return new ApiError("invalid_parameter", "the request parameters are invalid");
  const given = where !== "query" || new URL(request.url).searchParams.has(rule.name);
  return invalidParameter(where, rule.name, given ? rule.message : "is required");
}
