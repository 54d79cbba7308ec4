declare const STOCKD_VERSION: string | undefined;

/** The release version: baked in by the binary build (`--define`), else package.json's. */
export const VERSION: string =
  typeof STOCKD_VERSION === "string" ? STOCKD_VERSION : (await import("../package.json")).version;
