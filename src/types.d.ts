// Bun's `with { type: "file" }` imports resolve to a path (embedded in the compiled binary).
declare module "swagger-ui-dist/*" {
  const path: string;
  export default path;
}
