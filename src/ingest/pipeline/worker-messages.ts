/** The messages between the importer and its company workers. */

import { ImportError } from "../errors.ts";
import type { CompanyJob, CompanyResult } from "./company-pass.ts";
import type { DerivedRow } from "./derive.ts";

export type ToWorker =
  | { type: "start"; root: string; lenient: boolean }
  | { type: "job"; job: CompanyJob }
  | { type: "finish"; dataAsOf: string };

export type ToPool =
  | { type: "result"; result: CompanyResult }
  | { type: "failed"; index: number; error: SerializedError }
  | { type: "finished"; undated: { index: number; derived: DerivedRow[] }[] };

/** An error thrown in a worker, as it crosses to the importer's thread. */
export type SerializedError =
  | { kind: "import"; file: string; line: number | null; message: string }
  | { kind: "other"; message: string; stack: string | undefined };

export function serializeError(error: unknown): SerializedError {
  if (error instanceof ImportError)
    return { kind: "import", file: error.file, line: error.line, message: error.message };
  const e = error instanceof Error ? error : new Error(String(error));
  return { kind: "other", message: e.message, stack: e.stack };
}

/** The error again, on this side: an ImportError stays one (its message names file and line). */
export function deserializeError(error: SerializedError): Error {
  if (error.kind === "import") return new ImportError(error.file, error.line, error.message);
  const e = new Error(error.message);
  e.stack = error.stack;
  return e;
}
