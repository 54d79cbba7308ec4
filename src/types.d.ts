// Bun's `with { type: "file" }` imports resolve to a path (embedded in the compiled binary).
declare module "swagger-ui-dist/*" {
  const path: string;
  export default path;
}

// The DuckDB library embedded in the binary (imported with `type: "file"` by snapshot/duckdb.ts).
declare module "@duckdb/node-bindings-linux-x64/libduckdb.so" {
  const path: string;
  export default path;
}

// SQL files imported with `type: "text"` (the PostgreSQL migrations, embedded in the binary).
declare module "*.sql" {
  const text: string;
  export default text;
}
