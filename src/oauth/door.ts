import type { Door } from "../http/doors.ts";
import { isOAuthPath, type OAuthServer } from "./server.ts";

/** The largest body the authorization server reads (a registration; the forms are smaller). */
const MAX_BODY_BYTES = 16 * 1024;

/**
 * The authorization server's door (http/doors.ts): `/oauth/*` and `/.well-known/*`, public (a
 * consent proves a key itself), GET for documents and the consent page, POST for the forms
 * and JSON, OPTIONS for browsers' CORS preflights.
 */
export function oauthDoor(oauth: OAuthServer): Door {
  return {
    name: "oauth",
    matches: isOAuthPath,
    methods: ["GET", "POST", "OPTIONS"],
    maxBodyBytes: MAX_BODY_BYTES,
    handle: ({ call }) => oauth.handle(call.request, call.client.address() ?? "unknown"),
  };
}
