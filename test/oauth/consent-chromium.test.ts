/**
 * The consent page in a real browser: headless Chromium (Debian's `chromium`) renders it from
 * stockd on loopback, with nothing else to load. Skipped where /usr/bin/chromium is missing.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/env.ts";
import { authorizationUrl, pkce, register } from "./bot.ts";
import { startAuthServer } from "./harness.ts";

const CHROMIUM = "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
if (!available) console.warn(`${CHROMIUM} is missing: the consent page is not looked at in a browser`);

/** Runs headless Chromium on `url` with `args`; a fresh profile and no outside connections. */
async function chromium(url: string, ...args: string[]): Promise<string> {
  const child = Bun.spawn(
    [
      CHROMIUM,
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${tempDir("chromium-")}`,
      ...args,
      url,
    ],
    { stdout: "pipe", stderr: "ignore" },
  );
  const killer = setTimeout(() => child.kill(), 45_000);
  const out = await new Response(child.stdout).text();
  await child.exited;
  clearTimeout(killer);
  return out;
}

describe.skipIf(!available)("the consent page in Chromium", () => {
  const auth = startAuthServer();
  afterAll(() => auth.stop());

  async function pageUrl(name: string): Promise<string> {
    const res = await register(auth.base, {
      client_name: name,
      redirect_uris: ["http://127.0.0.1/callback"],
    });
    const { client_id } = (await res.json()) as { client_id: string };
    return authorizationUrl(auth.base, {
      clientId: client_id,
      redirectUri: "http://127.0.0.1:43123/callback",
      challenge: pkce().challenge,
    });
  }

  test("the rendered DOM shows the client's name as text and the key form; a hostile name runs nothing", async () => {
    const dom = await chromium(
      await pageUrl('Claude Code <img src=x onerror="document.title=1">'),
      "--dump-dom",
    );
    expect(dom).toContain('id="client-name">Claude Code &lt;img src=x onerror="document.title=1"&gt;</span>');
    expect(dom).not.toContain("<img");
    expect(dom).toContain("<title>Connect an application to stockd</title>");
    expect(dom).toMatch(/<form method="post" action="\/oauth\/authorize" id="consent">/);
    expect(dom).toContain('<input type="password" id="api_key" name="api_key"');
    expect(dom).toContain('id="redirect-host">127.0.0.1:43123</p>');
  }, 60_000);

  test("a screenshot is taken (for a person to look at: CONSENT_SCREENSHOT=path keeps it)", async () => {
    const path = process.env.CONSENT_SCREENSHOT ?? join(tempDir("consent-"), "consent.png");
    await chromium(
      await pageUrl("MCP Inspector"),
      `--screenshot=${path}`,
      "--window-size=800,900",
      "--hide-scrollbars",
    );
    expect(existsSync(path)).toBe(true);
    // A blank page compresses to a few hundred bytes; the rendered form does not.
    expect(statSync(path).size).toBeGreaterThan(10_000);
  }, 60_000);
});
