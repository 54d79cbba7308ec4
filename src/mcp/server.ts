import { type CallToolResult, type ListToolsResult, Server } from "@modelcontextprotocol/server";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import type { TObject } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import type { RestAnswer } from "../http/doors.ts";
import { VERSION } from "../version.ts";
import {
  argsDigest,
  type Columnar,
  decodeCursor,
  encodeCursor,
  fitRows,
  MAX_RESULT_BYTES,
  type Meta,
  shapeBody,
} from "./output.ts";
import { TOOLS, type ToolSpec, targetOf } from "./tools.ts";

/** A REST GET in the caller's name (`DoorInput.rest`, or `restAs` with the stdio key). */
export type RestCaller = (target: string, ledgerName: string) => Promise<RestAnswer>;

/** What the tools read besides REST answers. */
export interface ToolDeps {
  /** The active snapshot's id and last market date; null when none is active. */
  activeSnapshot(): { id: string; data_as_of: string | null } | null;
}

const INSTRUCTIONS = [
  "stockd serves stock data (SEC filings, statements, prices, derived metrics) from a local snapshot.",
  "Resolve company names with search_securities first.",
  "Each successful call costs credits at the REST API's price (get_account is free and shows the balance); a result with isError costs nothing.",
  "Series come as {columns, rows}; a result over ~32 KB is cut and meta.next_cursor continues it.",
].join(" ");

/** Decodes REST bodies where they are (`Buffer.from(body)` would copy a year of prices first). */
const UTF8 = new TextDecoder();

/** A tool with its compiled argument check. */
interface Compiled {
  spec: ToolSpec;
  check: TypeCheck<TObject>;
}

const COMPILED = new Map<string, Compiled>(
  TOOLS.map((spec) => [spec.name, { spec, check: TypeCompiler.Compile(spec.input) }]),
);

/**
 * A schema as `tools/list` shows it: JSON Schema without the REST models' error texts and
 * examples, and an integer as an integer (the REST models also take digits in a string,
 * because a query string has nothing else).
 */
function listedSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(listedSchema);
  if (schema === null || typeof schema !== "object") return schema;
  const node = schema as Record<string, unknown>;
  const variants = node.anyOf as Record<string, unknown>[] | undefined;
  const integer = variants?.find((v) => v.type === "integer");
  if (integer && variants?.some((v) => v.type === "string" && v.format === "integer"))
    return listedSchema(integer);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(node))
    if (name !== "error" && name !== "examples") out[name] = listedSchema(value);
  return out;
}

/**
 * The schema validator every server shares: the SDK would build one (an Ajv instance) per
 * server, that is per request, and the tools never use it (it checks elicitation answers).
 */
const VALIDATOR = new AjvJsonSchemaValidator();

const ANNOTATIONS = {
  readOnlyHint: true,
  idempotentHint: true,
  openWorldHint: false,
  destructiveHint: false,
};

/** The `tools/list` result, built once: the same for every caller. */
const TOOLS_LIST = {
  tools: TOOLS.map((spec) => ({
    name: spec.name,
    description: spec.description,
    inputSchema: listedSchema(spec.input) as ListToolsResult["tools"][number]["inputSchema"],
    annotations: ANNOTATIONS,
  })),
} satisfies ListToolsResult;

/**
 * An MCP server (official SDK, low-level `Server`) with stockd's tools, answering through
 * `rest`. One is made per HTTP request (the SDK's stateless model) or per stdio connection;
 * what does not depend on the call (the tools list, the argument checks) is built once.
 */
export function toolServer(deps: ToolDeps, rest: RestCaller): Server {
  const server = new Server(
    { name: "stockd", version: VERSION },
    {
      capabilities: { tools: {} },
      instructions: INSTRUCTIONS,
      cacheHints: { "tools/list": { ttlMs: 3_600_000, cacheScope: "public" } },
      jsonSchemaValidator: VALIDATOR,
    },
  );
  server.setRequestHandler("tools/list", () => TOOLS_LIST);
  server.setRequestHandler("tools/call", async (request) => {
    const result = await callTool(deps, rest, request.params.name, request.params.arguments ?? {});
    return server.projectCallToolResult(result, undefined);
  });
  return server;
}

/** One tool call: its arguments checked, its one REST call, the answer shaped; never throws. */
export async function callTool(
  deps: ToolDeps,
  rest: RestCaller,
  name: string,
  raw: Record<string, unknown>,
): Promise<CallToolResult> {
  const tool = COMPILED.get(name);
  if (!tool) return failure(`unknown tool "${name.slice(0, 64)}"`, "tools/list names the tools");
  const args = Value.Default(tool.spec.input, structuredClone(raw)) as Record<string, unknown>;
  if (!tool.check.Check(args)) {
    const first = tool.check.Errors(args).First();
    const message =
      (first?.schema as { error?: string } | undefined)?.error ?? `${first?.path}: ${first?.message}`;
    return failure(
      `invalid arguments: ${message}`,
      "fix that argument; the tool's inputSchema gives each rule",
    );
  }
  let offset = 0;
  let pinned: string | null = null;
  if (typeof args.cursor === "string") {
    const cursor = decodeCursor(args.cursor);
    if (!cursor || cursor.tool !== name || cursor.args !== argsDigest(args))
      return failure(
        "invalid arguments: cursor does not continue this call",
        "pass next_cursor with the same tool and the same other arguments as the call that returned it",
      );
    offset = cursor.offset;
    pinned = cursor.snapshot;
  }
  const answer = await rest(targetOf(tool.spec.rest(args), pinned), `mcp:${name}`);
  if (answer.status !== 200) return refusal(answer, pinned);
  const body: unknown = JSON.parse(UTF8.decode(answer.body));
  const shaped = shapeBody(tool.spec.transform ? tool.spec.transform(body, args) : body);
  const snapshotId = answer.headers["x-snapshot-id"] ?? null;
  const active = deps.activeSnapshot();
  const meta: Meta = {
    snapshot_id: snapshotId,
    data_as_of: active && active.id === snapshotId ? active.data_as_of : null,
    snapshot_active: snapshotId === null || active?.id === snapshotId,
    rows_returned: null,
    rows_total: null,
    truncated: false,
    next_cursor: null,
    credits_charged: Number(answer.headers["x-credits-charged"] ?? 0),
    credits_remaining: answer.headers["x-credits-remaining"]
      ? Number(answer.headers["x-credits-remaining"])
      : null,
  };
  if (!meta.snapshot_active)
    meta.hint = `snapshot ${snapshotId} is no longer the active one: this page continues it; call again without cursor for the newest data`;
  const payload = { data: shaped.data, meta };
  if (shaped.series === undefined) return success(payload);
  const table = tableOf(payload.data, shaped.series);
  if (offset === 0) {
    meta.rows_total = table.rows.length;
    meta.rows_returned = table.rows.length;
    // Most answers fit: serialized once, for the text block too.
    const text = JSON.stringify(payload);
    if (Buffer.byteLength(text) <= MAX_RESULT_BYTES) return success(payload, text);
  }
  page(payload, shaped.series, offset, { name, args, snapshotId });
  return success(payload);
}

/** The series of shaped data: the whole of it, or its field `series`. */
function tableOf(data: unknown, series: string | null): Columnar {
  return (series === null ? data : (data as Record<string, unknown>)[series]) as Columnar;
}

/** Cuts the payload's series to the byte cap from `offset`, and sets the meta's counts and cursor. */
function page(
  payload: { data: unknown; meta: Meta },
  series: string | null,
  offset: number,
  call: { name: string; args: Record<string, unknown>; snapshotId: string | null },
): void {
  const table = tableOf(payload.data, series);
  const empty = { ...table, rows: [] };
  const holder = payload.data as Record<string, unknown>;
  const without = { ...payload, data: series === null ? empty : { ...holder, [series]: empty } };
  const { rows, more } = fitRows(table, offset, without);
  const total = table.rows.length;
  payload.meta.rows_total = total;
  payload.meta.rows_returned = rows.length;
  table.rows = rows;
  if (!more || call.snapshotId === null) return;
  const next = offset + rows.length;
  payload.meta.truncated = true;
  payload.meta.next_cursor = encodeCursor({
    snapshot: call.snapshotId,
    tool: call.name,
    args: argsDigest(call.args),
    offset: next,
  });
  const rowsHint = `rows ${offset + 1} to ${next} of ${total} (cut at ${MAX_RESULT_BYTES} bytes): pass next_cursor for the next rows, or narrow the call`;
  payload.meta.hint = payload.meta.hint ? `${payload.meta.hint}; ${rowsHint}` : rowsHint;
}

/** A result: the payload in structuredContent and, the same, as JSON text. */
function success(payload: object, text = JSON.stringify(payload)): CallToolResult {
  return {
    content: [{ type: "text", text }],
    structuredContent: payload as Record<string, unknown>,
  };
}

/** A tool error: what went wrong and how to fix the call; it costs nothing. */
function failure(message: string, hint: string, extra: Record<string, unknown> = {}): CallToolResult {
  const payload = { error: { message, ...extra }, hint };
  return { ...success(payload), isError: true };
}

/** Hints by REST status, for a refused call. */
const HINTS: Record<number, string> = {
  400: "fix the argument the message names",
  401: "the key or token is no longer valid",
  402: "not enough credits: get_account shows the balance",
  404: "check the symbol with search_securities; some companies lack some data",
  429: "too many calls: wait a second and retry",
  503: "the server is busy or has no data yet: retry shortly",
};

/** A REST refusal as a tool error (not charged: the REST API charges only a 2xx). */
function refusal(answer: RestAnswer, pinned: string | null): CallToolResult {
  let detail = `the call was refused (HTTP ${answer.status})`;
  try {
    const problem = JSON.parse(UTF8.decode(answer.body)) as { detail?: string };
    if (typeof problem.detail === "string") detail = problem.detail;
  } catch {
    // A body that is no problem+json keeps the status line.
  }
  if (pinned && answer.status === 404 && detail.includes(pinned))
    return failure(
      `the snapshot this cursor was made on (${pinned}) is no longer on this server`,
      "call again without cursor: the data now comes from the active snapshot",
      { status: answer.status },
    );
  return failure(detail, HINTS[answer.status] ?? "retry later", { status: answer.status });
}
