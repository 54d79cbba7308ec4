/**
 * A problem with an input file. The importer stops on the first one (or, with --lenient,
 * skips the record and counts it) and reports `file:line: message`.
 */
export class ImportError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "ImportError";
  }

  /** `file:line: message`, the form every import failure is printed in. */
  override toString(): string {
    return `${this.file}${this.line === null ? "" : `:${this.line}`}: ${this.message}`;
  }
}

/**
 * `error` as an ImportError of `file`: an ImportError as it is, any other exception (a parser's
 * unexpected failure) as one naming the file, with the exception as its cause.
 */
export function asImportError(error: unknown, file: string): ImportError {
  if (error instanceof ImportError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ImportError(file, null, `unreadable: ${message}`, { cause: error });
}
