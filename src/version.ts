// Baked in by scripts/build.ts (`bun build --define`); undeclared when running from a checkout.
declare const STOCKD_VERSION: string | undefined;
declare const STOCKD_COMMIT: string | undefined;
declare const STOCKD_BUILT_AT: string | undefined;

/** The release version: baked in by the binary build (`--define`), else package.json's. */
export const VERSION: string =
  typeof STOCKD_VERSION === "string" ? STOCKD_VERSION : (await import("../package.json")).version;

/** Where this program was built from; both null when it runs from a checkout. */
export const BUILD: { readonly commit: string | null; readonly builtAt: string | null } = Object.freeze({
  commit: typeof STOCKD_COMMIT === "string" ? STOCKD_COMMIT : null,
  builtAt: typeof STOCKD_BUILT_AT === "string" ? STOCKD_BUILT_AT : null,
});
