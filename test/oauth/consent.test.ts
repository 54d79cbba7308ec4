/**
 * The consent page: what it shows, its headers, and a clear page for every failure, none of
 * which sends anything to a redirect URI that is in doubt.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { MAX_PENDING_PER_ADDRESS } from "../../src/oauth/pending.ts";
import {
  authorizationUrl,
  consentBot,
  hiddenFields,
  pkce,
  postConsent,
  register,
  registerClient,
} from "./bot.ts";
import { startAuthServer } from "./harness.ts";

const auth = startAuthServer();
afterAll(() => auth.stop());

const REDIRECT = "http://127.0.0.1:41000/callback";

async function openPage(clientId: string, over: Record<string, string> = {}) {
  const url = new URL(
    authorizationUrl(auth.base, { clientId, redirectUri: REDIRECT, challenge: pkce().challenge }),
  );
  for (const [name, value] of Object.entries(over)) url.searchParams.set(name, value);
  return fetch(url, { redirect: "manual" });
}

describe("the consent page", () => {
  test("shows the client's name marked unverified, the redirect host, the loopback warning and the form, with strict headers", async () => {
    const clientId = await registerClient(auth.base);
    const res = await openPage(clientId);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<span class="client" id="client-name">Test client</span>');
    expect(html).toContain("unverified");
    expect(html).toContain('<p class="host" id="redirect-host">127.0.0.1:41000</p>');
    expect(html).toContain("a program on the computer that opened this page");
    expect(html).toContain('name="api_key"');
    expect(html).not.toMatch(/<script|<img|<link|https?:\/\/(?!127\.0\.0\.1)/);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });

  test("a hostile client name is shown as text, never as markup", async () => {
    const name = `<script>alert(1)</script><img src=x onerror="alert(2)">&'`;
    const reg = await register(auth.base, { client_name: name, redirect_uris: [REDIRECT] });
    const { client_id } = (await reg.json()) as { client_id: string };
    const html = await (await openPage(client_id)).text();
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain(
      "&#60;script&#62;alert(1)&#60;/script&#62;&#60;img src=x onerror=&#34;alert(2)&#34;&#62;&#38;&#39;",
    );
  });

  test("an unknown client or an unregistered redirect URI gets an error page and no redirect", async () => {
    const unknown = await openPage("stc_nobody");
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get("location")).toBeNull();
    expect(await unknown.text()).toContain("Unknown application");
    const clientId = await registerClient(auth.base);
    const elsewhere = await openPage(clientId, { redirect_uri: "https://evil.example/callback" });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get("location")).toBeNull();
    const html = await elsewhere.text();
    expect(html).toContain("Unregistered return address");
    expect(html).not.toContain("evil.example");
  });

  test("no PKCE, plain PKCE, another resource: an error page whose only link tells the client", async () => {
    const clientId = await registerClient(auth.base);
    for (const [over, error] of [
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ code_challenge: "short" }, "invalid_request"],
      [{ resource: "https://other.example/mcp" }, "invalid_target"],
      [{ response_type: "token" }, "unsupported_response_type"],
    ] as const) {
      const res = await openPage(clientId, over);
      expect(res.status).toBe(400);
      const html = await res.text();
      const back = /id="back" href="([^"]+)"|href="([^"]+)" id="back"/.exec(html);
      const link = new URL((back?.[1] ?? back?.[2] ?? "").replaceAll("&#38;", "&"));
      expect(link.origin + link.pathname).toBe(REDIRECT);
      expect(link.searchParams.get("error")).toBe(error);
      expect(link.searchParams.get("iss")).toBe(auth.base);
      expect(link.searchParams.get("state")).toBe("st4te");
    }
  });

  test("a repeated parameter gets an error page", async () => {
    const clientId = await registerClient(auth.base);
    const url = `${authorizationUrl(auth.base, { clientId, redirectUri: REDIRECT, challenge: pkce().challenge })}&client_id=${clientId}`;
    const res = await fetch(url);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("client_id is given more than once");
  });
});

describe("the decision", () => {
  test("Deny sends access_denied with state and iss back to the client", async () => {
    const clientId = await registerClient(auth.base);
    const url = authorizationUrl(auth.base, { clientId, redirectUri: REDIRECT, challenge: pkce().challenge });
    const res = await consentBot(url, "", "deny");
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location") ?? "");
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("state")).toBe("st4te");
    expect(location.searchParams.get("iss")).toBe(auth.base);
    expect(location.searchParams.get("code")).toBeNull();
  });

  test("a wrong CSRF token is refused, and the page cannot be used after", async () => {
    const clientId = await registerClient(auth.base);
    const page = await (await openPage(clientId)).text();
    const { request, csrf } = hiddenFields(page);
    const { key } = auth.newKey();
    const forged = await postConsent(auth.base, {
      request,
      // The last character changed, never to itself.
      csrf: `${csrf.slice(0, -1)}${csrf.endsWith("A") ? "B" : "A"}`,
      api_key: key,
      decision: "allow",
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.get("location")).toBeNull();
    const after = await postConsent(auth.base, { request, csrf, api_key: key, decision: "allow" });
    expect(after.status).toBe(400);
    expect(await after.text()).toContain("expired");
  });

  test("a bad key shows the form again with a message; five bad keys close the page", async () => {
    const clientId = await registerClient(auth.base);
    const fields = hiddenFields(await (await openPage(clientId)).text());
    for (let i = 1; i <= 4; i++) {
      const res = await postConsent(auth.base, { ...fields, api_key: `sk_wrong${i}`, decision: "allow" });
      expect(res.status).toBe(401);
      expect(await res.text()).toContain("not a valid stockd API key");
    }
    const fifth = await postConsent(auth.base, { ...fields, api_key: "sk_wrong5", decision: "allow" });
    expect(await fifth.text()).toContain("Too many refused keys");
    const { key } = auth.newKey();
    const late = await postConsent(auth.base, { ...fields, api_key: key, decision: "allow" });
    expect(late.status).toBe(400);
  });

  test("a disabled key is refused like an unknown one", async () => {
    const clientId = await registerClient(auth.base);
    const { key, keyId } = auth.newKey();
    auth.accounts.setKeyDisabled(keyId, true);
    const res = await consentBot(
      authorizationUrl(auth.base, { clientId, redirectUri: REDIRECT, challenge: pkce().challenge }),
      key,
    );
    expect(res.status).toBe(401);
  });

  test("an address that keeps failing is throttled as REST throttles failed authentications: an unchecked key waits, a key known good passes", async () => {
    const strict = startAuthServer({ authFailuresPerMinute: 3 });
    try {
      const clientId = await registerClient(strict.base);
      const url = () =>
        authorizationUrl(strict.base, { clientId, redirectUri: REDIRECT, challenge: pkce().challenge });
      const known = strict.newKey().key;
      const fresh = strict.newKey().key;
      // Checked once, the key is known to be valid (a new key would reset what is known).
      expect((await consentBot(url(), known)).status).toBe(303);
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await consentBot(url(), "sk_bad")).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
      const res = await consentBot(url(), fresh);
      expect(res.status).toBe(429);
      expect(await res.text()).toContain("Too many refused keys from this address");
      expect((await consentBot(url(), known)).status).toBe(303);
    } finally {
      await strict.stop();
    }
  });

  test(`one address holds at most ${MAX_PENDING_PER_ADDRESS} open approval pages; deciding one frees a place`, async () => {
    const own = startAuthServer();
    try {
      const clientId = await registerClient(own.base);
      const open = () =>
        fetch(authorizationUrl(own.base, { clientId, redirectUri: REDIRECT, challenge: pkce().challenge }));
      const pages: Response[] = [];
      for (let i = 0; i < MAX_PENDING_PER_ADDRESS; i++) pages.push(await open());
      expect(pages.every((p) => p.status === 200)).toBe(true);
      const refused = await open();
      expect(refused.status).toBe(429);
      expect(await refused.text()).toContain("Too many approval pages are open");
      const fields = hiddenFields(await (pages[0] as Response).text());
      expect((await postConsent(own.base, { ...fields, api_key: "", decision: "deny" })).status).toBe(303);
      expect((await open()).status).toBe(200);
    } finally {
      await own.stop();
    }
  });

  test("an approval page expires after 10 minutes", async () => {
    const clientId = await registerClient(auth.base);
    const fields = hiddenFields(await (await openPage(clientId)).text());
    auth.advance(10 * 60_000 + 1000);
    const res = await postConsent(auth.base, { ...fields, api_key: "sk_x", decision: "allow" });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("This approval page has expired");
  });
});
