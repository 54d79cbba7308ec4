import {
  type AuthInfo,
  createMcpHandler,
  hostHeaderValidationResponse,
  isJsonContentType,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Door, DoorInput } from "../http/doors.ts";
import { type GateDeps, mcpGate } from "./gate.ts";
import { type RestCaller, type ToolDeps, toolServer } from "./server.ts";

/** A JSON-RPC request of a tool call is small; this bounds what a caller makes the server read. */
const MAX_BODY_BYTES = 64 * 1024;

export interface McpDoorDeps extends ToolDeps {
  /** API keys' check (the REST gate's). */
  billing: GateDeps["billing"];
  /** OAuth access tokens' check (gate.ts). */
  oauth: GateDeps["oauth"];
  /** The server's public base URL (no trailing slash): the challenge's metadata URL is under it. */
  publicUrl(): string;
  /** Host names (no port) `Host` and `Origin` may name besides the loopback ones. */
  allowedHosts: readonly string[];
}

/**
 * `/mcp`: MCP over stateless Streamable HTTP (the official SDK's handler), both the current
 * revision and the 2025 ones. POST only (GET and DELETE, the 2025 session operations, are
 * 405s); the bearer gate is `gate.ts`; `Host` and `Origin` must be loopback or allowed
 * (DNS-rebinding protection). Each tool call is one REST call in the caller's name.
 */
export function mcpDoor(deps: McpDoorDeps): Door {
  const hosts = [...localhostAllowedHostnames(), ...deps.allowedHosts];
  const origins = [...localhostAllowedOrigins(), ...deps.allowedHosts];
  const modern = createMcpHandler(({ authInfo }) => toolServer(deps, restOf(authInfo)), {
    legacy: "reject",
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  return {
    name: "mcp",
    matches: (pathname) => pathname === "/mcp",
    methods: ["POST"],
    maxBodyBytes: MAX_BODY_BYTES,
    gate: mcpGate({
      billing: deps.billing,
      oauth: deps.oauth,
      get resourceMetadataUrl() {
        return `${deps.publicUrl()}/.well-known/oauth-protected-resource/mcp`;
      },
    }),
    handle(input: DoorInput) {
      const { request } = input.call;
      const refused =
        hostHeaderValidationResponse(request, hosts) ?? originValidationResponse(request, origins);
      if (refused) return refused;
      const authInfo: AuthInfo = { token: "", clientId: "stockd", scopes: [], extra: { rest: input.rest } };
      return answer(request, authInfo);
    },
  };

  /**
   * The SDK's handler serves the current revision; a 2025-era request (as the SDK's own
   * `isLegacyRequest` classifies it) gets what the SDK's stateless fallback gives it, a fresh
   * instance over a stateless transport, but answered as one JSON body instead of an SSE
   * stream (both are the revision's; JSON costs the server less). The body is parsed once.
   */
  async function answer(request: Request, authInfo: AuthInfo): Promise<Response> {
    if (!isJsonContentType(request.headers.get("content-type"))) return modern.fetch(request, { authInfo });
    let parsedBody: unknown;
    try {
      parsedBody = await request.json();
    } catch {
      return Response.json(
        { jsonrpc: "2.0", error: { code: -32700, message: "Parse error: the body is not JSON" }, id: null },
        { status: 400 },
      );
    }
    if (!(await isLegacyRequest(request, parsedBody))) return modern.fetch(request, { authInfo, parsedBody });
    const server = toolServer(deps, restOf(authInfo));
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { authInfo, parsedBody });
    } finally {
      void server.close();
    }
  }
}

/** The REST caller the door put in the request's auth info. */
function restOf(authInfo: AuthInfo | undefined): RestCaller {
  const rest = authInfo?.extra?.rest;
  if (typeof rest !== "function")
    throw new Error("an MCP request reached the tools without passing the door");
  return rest as RestCaller;
}
