/**
 * A problem with an input file. The importer stops on the first one (or, with --lenient,
 * skips the record and counts it) and reports `file:line: message`.
 */
export class ImportError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    message: string,
  ) {
    super(message);
    this.name = "ImportError";
  }

  /** `file:line: message`, the form every import failure is printed in. */
  override toString(): string {
    return `${this.file}${this.line === null ? "" : `:${this.line}`}: ${this.message}`;
  }
}
