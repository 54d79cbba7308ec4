/** `public_url`: the origin OAuth names as its issuer and `/mcp`'s resource, never the Host header. */
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { tempDir } from "../helpers/env.ts";
import { startTestServer } from "../helpers/server.ts";

const withUrl = (value: string) => loadConfig({}, { STOCKD_PUBLIC_URL: value }, tempDir());

describe("public_url", () => {
  test("an https origin, or http on a loopback host; a trailing slash is dropped; unset is null", () => {
    expect(withUrl("https://stocks.example.com/").publicUrl).toBe("https://stocks.example.com");
    expect(withUrl("https://stocks.example.com:8443").publicUrl).toBe("https://stocks.example.com:8443");
    expect(withUrl("http://127.0.0.1:8080").publicUrl).toBe("http://127.0.0.1:8080");
    expect(withUrl("http://localhost:8080").publicUrl).toBe("http://localhost:8080");
    expect(loadConfig({}, {}, tempDir()).publicUrl).toBeNull();
  });

  test.each([
    "http://stocks.example.com",
    "https://stocks.example.com/stockd",
    "https://stocks.example.com/?x=1",
    "ftp://stocks.example.com",
    "stocks.example.com",
  ])("%s is refused, naming the setting", (value) => {
    expect(() => withUrl(value)).toThrow(ConfigError);
    expect(() => withUrl(value)).toThrow(/STOCKD_PUBLIC_URL: expected an https origin/);
  });

  test("a server given a public URL names it in the OAuth documents, whatever address it listens on", async () => {
    const server = await startTestServer(undefined, { config: { publicUrl: "https://stocks.example.com" } });
    try {
      const res = await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`);
      const doc = (await res.json()) as { resource: string; authorization_servers: string[] };
      expect(doc.resource).toBe("https://stocks.example.com/mcp");
      expect(doc.authorization_servers).toEqual(["https://stocks.example.com"]);
      const meta = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as {
        token_endpoint: string;
      };
      expect(meta.token_endpoint).toBe("https://stocks.example.com/oauth/token");
    } finally {
      await server.stop();
    }
  });
});

describe("oauth_client_metadata_documents", () => {
  const withSwitch = (value: string | undefined) =>
    loadConfig({}, value === undefined ? {} : { STOCKD_OAUTH_CLIENT_METADATA_DOCUMENTS: value }, tempDir());

  test("off by default; true or false", () => {
    expect(withSwitch(undefined).oauthClientMetadataDocuments).toBe(false);
    expect(withSwitch("true").oauthClientMetadataDocuments).toBe(true);
    expect(withSwitch("false").oauthClientMetadataDocuments).toBe(false);
    expect(() => withSwitch("yes")).toThrow(/STOCKD_OAUTH_CLIENT_METADATA_DOCUMENTS: expected true or false/);
  });

  test("switched on, a serving stockd says so in its metadata", async () => {
    const server = await startTestServer(undefined, { config: { oauthClientMetadataDocuments: true } });
    try {
      const doc = (await (
        await fetch(`${server.url}/.well-known/oauth-authorization-server`)
      ).json()) as Record<string, unknown>;
      expect(doc.client_id_metadata_document_supported).toBe(true);
    } finally {
      await server.stop();
    }
  });
});
