/** The redirect-URI policy: what a client may register, and which presented URIs match. */
import { describe, expect, test } from "bun:test";
import { redirectUriProblem, redirectUriRegistered } from "../../src/oauth/redirect-uris.ts";

describe("registering redirect URIs", () => {
  test.each([
    "http://127.0.0.1/callback",
    "http://127.0.0.1:33418/",
    "http://localhost:8787/callback",
    "http://[::1]:6276/oauth/callback",
    "https://claude.ai/api/mcp/auth_callback",
    "https://vscode.dev/redirect",
    "cursor://anysphere.cursor-mcp/oauth/callback",
    "vscode://vscode.github-authentication/did-authenticate",
    "com.example.app:/oauth2redirect",
  ])("%s is accepted", (uri) => {
    expect(redirectUriProblem(uri)).toBeNull();
  });

  test.each([
    ["javascript:alert(1)", /scheme/],
    ["data:text/html,hi", /scheme/],
    ["file:///etc/passwd", /scheme/],
    ["http://example.com/callback", /plain http/],
    ["http://127.0.0.1.evil.example/cb", /plain http/],
    ["https://example.com/cb#frag", /fragment/],
    ["https://user:pw@example.com/cb", /credentials/],
    ["/relative/callback", /absolute/],
    ["https://example.com/a b", /spaces/],
  ])("%s is refused", (uri, why) => {
    expect(redirectUriProblem(uri)).toMatch(why);
  });

  test("a URI longer than 512 characters is refused", () => {
    expect(redirectUriProblem(`https://example.com/${"x".repeat(492)}`)).toBeNull();
    expect(redirectUriProblem(`https://example.com/${"x".repeat(493)}`)).toMatch(/1 to 512 characters/);
  });
});

describe("matching a presented redirect URI", () => {
  const registered = [
    "http://127.0.0.1/callback",
    "http://localhost:8787/callback",
    "cursor://anysphere.cursor-mcp/oauth/callback",
    "https://claude.ai/api/mcp/auth_callback",
  ];

  test("a loopback URI matches on any port, with the registered path only", () => {
    expect(redirectUriRegistered(registered, "http://127.0.0.1:53682/callback")).toBe(true);
    expect(redirectUriRegistered(registered, "http://127.0.0.1/callback")).toBe(true);
    expect(redirectUriRegistered(registered, "http://localhost:9999/callback")).toBe(true);
    expect(redirectUriRegistered(registered, "http://127.0.0.1:53682/other")).toBe(false);
    expect(redirectUriRegistered(registered, "http://127.0.0.1:53682/callback?x=1")).toBe(false);
  });

  test("localhost and 127.0.0.1 do not stand for each other", () => {
    expect(redirectUriRegistered(["http://127.0.0.1/cb"], "http://localhost:5000/cb")).toBe(false);
    expect(redirectUriRegistered(["http://localhost/cb"], "http://127.0.0.1:5000/cb")).toBe(false);
  });

  test("https and private-use URIs match exactly", () => {
    expect(redirectUriRegistered(registered, "cursor://anysphere.cursor-mcp/oauth/callback")).toBe(true);
    expect(redirectUriRegistered(registered, "cursor://anysphere.cursor-mcp/oauth/callback2")).toBe(false);
    expect(redirectUriRegistered(registered, "https://claude.ai/api/mcp/auth_callback")).toBe(true);
    expect(redirectUriRegistered(registered, "https://claude.ai:8443/api/mcp/auth_callback")).toBe(false);
    expect(redirectUriRegistered(registered, "https://claude.ai/api/mcp/auth_callback/")).toBe(false);
  });

  test("a presented URI with a fragment never matches", () => {
    expect(redirectUriRegistered(registered, "http://127.0.0.1:1234/callback#x")).toBe(false);
  });
});
