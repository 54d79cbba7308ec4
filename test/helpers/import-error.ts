import { ImportError } from "../../src/ingest/errors.ts";

/** The ImportError `run` throws (fails the test if it throws something else or nothing). */
export function importErrorOf(run: () => unknown): ImportError {
  try {
    run();
  } catch (error) {
    if (error instanceof ImportError) return error;
    throw error;
  }
  throw new Error("expected an ImportError, nothing was thrown");
}
