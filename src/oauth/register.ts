import { hasControlCharacters, redirectUriProblem } from "./redirect-uris.ts";
import { boundedText, jsonNoStore, oauthError } from "./responses.ts";
import type { OAuthClient } from "./seam.ts";
import { newClientId } from "./secrets.ts";

/** A registration body larger than this is refused. */
export const MAX_REGISTRATION_BYTES = 16 * 1024;
/** Redirect URIs one client may register (Cursor sends three). */
export const MAX_REDIRECT_URIS = 10;
/** Characters of a client's name (it is shown on the consent page). */
export const MAX_CLIENT_NAME = 100;
/** Characters of the other short texts kept (software id and version, scope, client URI). */
const MAX_TEXT = 200;

const GRANT_TYPES = new Set(["authorization_code", "refresh_token"]);
const APPLICATION_TYPES = new Set(["native", "web"]);

type Registration = { ok: true; client: OAuthClient } | { ok: false; response: Response };

/**
 * Reads an RFC 7591 registration of a public client (no secret: `token_endpoint_auth_method`
 * is `none` whatever was asked). Unknown fields are ignored; the fields kept are checked and
 * bounded. One bad redirect URI refuses the registration and names the URI; unfamiliar
 * private-use schemes (`cursor://`) are not bad.
 */
export async function readRegistration(request: Request, now: Date): Promise<Registration> {
  const text = await boundedText(request, MAX_REGISTRATION_BYTES);
  if (text === null)
    return refuse(
      "invalid_client_metadata",
      `the registration is larger than ${MAX_REGISTRATION_BYTES} bytes`,
    );
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return refuse("invalid_client_metadata", "the registration must be a JSON object");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return refuse("invalid_client_metadata", "the registration must be a JSON object");
  const fields = body as Record<string, unknown>;
  const uris = fields.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS)
    return refuse("invalid_redirect_uri", `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} URIs`);
  for (const uri of uris) {
    const problem = typeof uri === "string" ? redirectUriProblem(uri) : "a redirect URI must be a string";
    if (problem) return refuse("invalid_redirect_uri", `${JSON.stringify(uri).slice(0, 80)}: ${problem}`);
  }
  const name = optionalText(fields.client_name, MAX_CLIENT_NAME, "client_name");
  if (name.problem) return refuse("invalid_client_metadata", name.problem);
  const grantTypes = fields.grant_types ?? ["authorization_code", "refresh_token"];
  if (!Array.isArray(grantTypes) || grantTypes.length === 0 || grantTypes.some((g) => !GRANT_TYPES.has(g)))
    return refuse(
      "invalid_client_metadata",
      "grant_types may hold only authorization_code and refresh_token",
    );
  if (!grantTypes.includes("authorization_code"))
    return refuse("invalid_client_metadata", "grant_types must include authorization_code");
  const responseTypes = fields.response_types ?? ["code"];
  if (!Array.isArray(responseTypes) || responseTypes.some((r) => r !== "code"))
    return refuse("invalid_client_metadata", 'response_types may hold only "code"');
  const extras: Record<string, unknown> = {};
  for (const field of ["client_uri", "scope", "software_id", "software_version"]) {
    const value = optionalText(fields[field], MAX_TEXT, field);
    if (value.problem) return refuse("invalid_client_metadata", value.problem);
    if (value.text !== null) extras[field] = value.text;
  }
  if (fields.application_type !== undefined) {
    if (!APPLICATION_TYPES.has(fields.application_type as string))
      return refuse("invalid_client_metadata", 'application_type must be "native" or "web"');
    extras.application_type = fields.application_type;
  }
  const clientId = newClientId();
  const createdAt = now.toISOString();
  const metadata = {
    client_id: clientId,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    ...(name.text === null ? {} : { client_name: name.text }),
    redirect_uris: uris as string[],
    grant_types: [...new Set(grantTypes as string[])],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...extras,
  };
  return {
    ok: true,
    client: {
      client_id: clientId,
      client_name: name.text,
      redirect_uris: metadata.redirect_uris,
      grant_types: metadata.grant_types,
      metadata,
      created_at: createdAt,
    },
  };
}

/** A field that is absent or a short printable text; control characters are refused, not stripped. */
function optionalText(value: unknown, max: number, name: string): { text: string | null; problem?: string } {
  if (value === undefined || value === null) return { text: null };
  if (typeof value !== "string") return { text: null, problem: `${name} must be a string` };
  const text = value.trim();
  if (text.length > max) return { text: null, problem: `${name} has at most ${max} characters` };
  if (hasControlCharacters(text)) return { text: null, problem: `${name} has no control characters` };
  return { text: text === "" ? null : text };
}

function refuse(code: "invalid_client_metadata" | "invalid_redirect_uri", description: string): Registration {
  return { ok: false, response: oauthError(code, description) };
}

/** The registration response (RFC 7591 §3.2.1): 201 with what was stored. */
export function registered(client: OAuthClient): Response {
  return jsonNoStore(client.metadata, 201);
}
