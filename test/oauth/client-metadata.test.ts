/**
 * Client-ID metadata documents (off by default): the address guard, the guarded https fetch
 * against a loopback TLS server (caps, redirects, time), and the flow of a client known by its
 * document's URL, with an injected fetcher.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  documentFetcher,
  type Fetched,
  fetchDocument,
  isClientMetadataUrl,
  isPublicAddress,
  MAX_DOCUMENT_BYTES,
} from "../../src/oauth/client-metadata.ts";
import { tempDir } from "../helpers/env.ts";
import { authorizationUrl, codeOf, consentBot, pkce, tokenRequest } from "./bot.ts";
import { startAuthServer } from "./harness.ts";

describe("what may be fetched", () => {
  test.each([
    ["8.8.8.8", true],
    ["2606:4700:4700::1111", true],
    ["127.0.0.1", false],
    ["10.1.2.3", false],
    ["172.20.0.1", false],
    ["192.168.1.1", false],
    ["169.254.169.254", false],
    ["100.64.0.1", false],
    ["0.0.0.0", false],
    ["224.0.0.1", false],
    ["::1", false],
    ["::", false],
    ["fd00::1", false],
    ["fe80::1", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:10.0.0.1", false],
    ["64:ff9b::a00:1", false],
    ["not-an-ip", false],
  ])("%s public: %p", (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  test("a metadata document's URL is https with a path, as given", () => {
    expect(isClientMetadataUrl("https://claude.ai/oauth/claude-code-client-metadata")).toBe(true);
    expect(isClientMetadataUrl("https://vscode.dev/oauth/client-metadata.json")).toBe(true);
    for (const id of [
      "stc_abc",
      "http://claude.ai/meta",
      "https://claude.ai/",
      "https://claude.ai",
      "https://user@claude.ai/meta",
      "https://claude.ai/meta#x",
      "https://CLAUDE.ai/meta",
    ])
      expect(isClientMetadataUrl(id)).toBe(false);
  });

  test("the serving fetcher refuses this machine and private networks before any byte is sent", async () => {
    for (const url of [
      "https://127.0.0.1/meta.json",
      "https://[::1]/meta.json",
      "https://10.0.0.1/meta.json",
    ]) {
      const fetched = await fetchDocument(new URL(url));
      expect(fetched).toEqual({ ok: false, problem: "the document's host is not a public address" });
    }
    const byName = await fetchDocument(new URL("https://localhost/meta.json"));
    expect(byName.ok).toBe(false);
    expect(byName.ok ? "" : byName.problem).toMatch(/not public/);
    expect((await fetchDocument(new URL("http://example.com/meta.json"))).ok).toBe(false);
  });
});

describe("the guarded fetch, against a loopback TLS server", () => {
  let cert = "";
  let server: ReturnType<typeof Bun.serve>;
  beforeAll(() => {
    const dir = tempDir("tls-");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    cert = readFileSync(join(dir, "cert.pem"), "utf8");
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert, key: readFileSync(join(dir, "key.pem"), "utf8") },
      fetch: async (request) => {
        const path = new URL(request.url).pathname;
        if (path === "/ok") return new Response('{"a":1}', { headers: { "cache-control": "max-age=60" } });
        if (path === "/big") return new Response("x".repeat(MAX_DOCUMENT_BYTES + 1));
        if (path === "/moved") return Response.redirect("https://127.0.0.1/ok", 302);
        if (path === "/slow") await Bun.sleep(6_000);
        return new Response("nope", { status: 404 });
      },
    });
  });
  afterAll(() => server.stop(true));

  const fetcher = () => documentFetcher({ allowed: () => true, ca: cert });
  const get = (path: string): Promise<Fetched> =>
    fetcher()(new URL(`https://127.0.0.1:${server.port}${path}`));

  test("a document and its max-age", async () => {
    expect(await get("/ok")).toEqual({ ok: true, body: '{"a":1}', maxAgeMs: 60_000 });
  });

  test("larger than 64 KB, a redirect, a 404, a certificate not trusted: refused", async () => {
    expect(await get("/big")).toEqual({
      ok: false,
      problem: `the document is larger than ${MAX_DOCUMENT_BYTES} bytes`,
    });
    expect(await get("/moved")).toEqual({
      ok: false,
      problem: "fetching the document answered 302 (redirects are not followed)",
    });
    expect((await get("/missing")).ok).toBe(false);
    const untrusted = await documentFetcher({ allowed: () => true })(
      new URL(`https://127.0.0.1:${server.port}/ok`),
    );
    expect(untrusted.ok).toBe(false);
  });

  test("a server that does not answer within 5 seconds is given up", async () => {
    const started = performance.now();
    expect(await get("/slow")).toEqual({
      ok: false,
      problem: "fetching the document took longer than 5000 ms",
    });
    expect(performance.now() - started).toBeLessThan(5_900);
  }, 15_000);
});

describe("a client known by its metadata document", () => {
  const CLIENT = "https://client.example/oauth/metadata.json";
  const documents = new Map<string, unknown>();
  let fetches = 0;
  const auth = startAuthServer({
    documents: async (url) => {
      fetches++;
      const doc = documents.get(url.href);
      return doc === undefined
        ? { ok: false, problem: "the document could not be fetched" }
        : { ok: true, body: JSON.stringify(doc), maxAgeMs: 0 };
    },
  });
  const off = startAuthServer();
  afterAll(async () => {
    await auth.stop();
    await off.stop();
  });
  documents.set(CLIENT, {
    client_id: CLIENT,
    client_name: "Example Agent",
    redirect_uris: ["http://127.0.0.1/callback"],
  });
  documents.set("https://client.example/wrong.json", {
    client_id: CLIENT,
    redirect_uris: ["http://127.0.0.1/callback"],
  });

  const url = (base: string, clientId: string, redirectUri = "http://127.0.0.1:40111/callback") =>
    authorizationUrl(base, { clientId, redirectUri, challenge: pkce().challenge });

  test("the metadata says whether the switch is on", async () => {
    const on = await (await fetch(`${auth.base}/.well-known/oauth-authorization-server`)).json();
    const offDoc = await (await fetch(`${off.base}/.well-known/oauth-authorization-server`)).json();
    expect((on as Record<string, unknown>).client_id_metadata_document_supported).toBe(true);
    expect((offDoc as Record<string, unknown>).client_id_metadata_document_supported).toBe(false);
  });

  test("its consent page names it with the document's host as verified; the whole flow works with the URL as client_id", async () => {
    const page = await (await fetch(url(auth.base, CLIENT))).text();
    expect(page).toContain(
      'id="client-name">Example Agent</span><span class="badge verified">client.example</span>',
    );
    const { key } = auth.newKey();
    const { verifier, challenge } = pkce();
    const redirectUri = "http://127.0.0.1:40112/callback";
    const redirect = await consentBot(
      authorizationUrl(auth.base, { clientId: CLIENT, redirectUri, challenge }),
      key,
    );
    expect(redirect.status).toBe(303);
    const res = await tokenRequest(auth.base, {
      grant_type: "authorization_code",
      code: codeOf(redirect, auth.base),
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: CLIENT,
    });
    expect(res.status).toBe(200);
    const { access_token } = (await res.json()) as { access_token: string };
    expect((await auth.oauth.verifyAccessToken(access_token, auth.now()))?.clientId).toBe(CLIENT);
  });

  test("a document naming another client_id, a redirect URI it does not list, a fetch that fails: an error page, no redirect", async () => {
    const wrong = await fetch(url(auth.base, "https://client.example/wrong.json"), { redirect: "manual" });
    expect([wrong.status, wrong.headers.get("location")]).toEqual([400, null]);
    expect(await wrong.text()).toContain("client_id is not the URL it was fetched from");
    const elsewhere = await fetch(url(auth.base, CLIENT, "https://evil.example/cb"), { redirect: "manual" });
    expect([elsewhere.status, elsewhere.headers.get("location")]).toEqual([400, null]);
    const missing = await fetch(url(auth.base, "https://client.example/none.json"), { redirect: "manual" });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain("could not be fetched");
  });

  test("switched off, a URL client_id is an unknown application and nothing is fetched", async () => {
    const before = fetches;
    const res = await fetch(url(off.base, CLIENT));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("Unknown application");
    expect(fetches).toBe(before);
  });
});
