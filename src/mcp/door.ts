import {
  type AuthInfo,
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from "@modelcontextprotocol/server";
import type { Billing } from "../accounts/billing.ts";
import type { Door, DoorInput } from "../http/doors.ts";
import { type GateDeps, mcpGate } from "./gate.ts";
import { type RestCaller, type ToolDeps, toolServer } from "./server.ts";

/** A JSON-RPC request of a tool call is small; this bounds what a caller makes the server read. */
const MAX_BODY_BYTES = 64 * 1024;

export interface McpDoorDeps extends ToolDeps {
  billing: Billing;
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
  const handler = createMcpHandler(({ authInfo }) => toolServer(deps, restOf(authInfo)), {
    legacy: "stateless",
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
      return handler.fetch(request, { authInfo });
    },
  };
}

/** The REST caller the door put in the request's auth info. */
function restOf(authInfo: AuthInfo | undefined): RestCaller {
  const rest = authInfo?.extra?.rest;
  if (typeof rest !== "function")
    throw new Error("an MCP request reached the tools without passing the door");
  return rest as RestCaller;
}
