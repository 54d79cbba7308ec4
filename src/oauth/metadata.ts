/**
 * The discovery documents: RFC 9728 protected-resource metadata (for `/mcp`) and RFC 8414
 * authorization-server metadata. Every URL in them is built from the configured public URL
 * (the issuer), never from the request's `Host`, so a spoofed host cannot poison them.
 */

/** The one scope: read the data. `offline_access` is listed for clients that ask for it before refreshing. */
export const READ_SCOPE = "stockd:read";
export const OFFLINE_SCOPE = "offline_access";
export const SUPPORTED_SCOPES: readonly string[] = [READ_SCOPE, OFFLINE_SCOPE];

/** Paths of the endpoints, under the issuer. */
export const ENDPOINTS = {
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  register: "/oauth/register",
  revoke: "/oauth/revoke",
} as const;

/** The protected resource: the MCP endpoint, as clients name it in `resource`. */
export function resourceOf(issuer: string): string {
  return `${issuer}/mcp`;
}

/** RFC 9728 protected-resource metadata of `/mcp`. */
export function protectedResourceMetadata(issuer: string) {
  return {
    resource: resourceOf(issuer),
    authorization_servers: [issuer],
    scopes_supported: [READ_SCOPE],
    bearer_methods_supported: ["header"],
    resource_name: "stockd",
  };
}

/**
 * RFC 8414 metadata. Clients refuse to go on without `code_challenge_methods_supported`;
 * `client_id_metadata_document_supported` says whether clients may use a metadata document's
 * URL as their `client_id` (only when configured: the server then fetches such documents).
 */
export function authorizationServerMetadata(issuer: string, metadataDocuments: boolean) {
  return {
    issuer,
    authorization_endpoint: issuer + ENDPOINTS.authorize,
    token_endpoint: issuer + ENDPOINTS.token,
    registration_endpoint: issuer + ENDPOINTS.register,
    revocation_endpoint: issuer + ENDPOINTS.revoke,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    scopes_supported: SUPPORTED_SCOPES,
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: metadataDocuments,
  };
}
