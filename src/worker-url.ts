/**
 * The URL of a worker thread's entry file, named by its path below src/ (for example
 * "accounts/checkpoint-worker.ts"). Run from source, this module sits in src/, so the path is
 * relative to it. In the compiled binary all bundled code shares the entry point's URL at the
 * root of Bun's embedded file system, and each worker, built as an entry point of its own
 * (scripts/build.ts), keeps its path below src/: the same relative path again.
 */
export function workerUrl(pathBelowSrc: string): string {
  return new URL(`./${pathBelowSrc}`, import.meta.url).href;
}
