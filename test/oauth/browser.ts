/**
 * A stand-in for the person's browser, for clients that open one (the MCP Inspector CLI, via
 * `BROWSER`): given the authorization URL, it pastes the key in STOCKD_CONSENT_KEY on the
 * consent page (the consent bot), then follows the redirect to the client's loopback callback.
 */
import { consentBot } from "./bot.ts";

const url = process.argv[2];
const key = process.env.STOCKD_CONSENT_KEY;
if (!url || !key) throw new Error("usage: STOCKD_CONSENT_KEY=sk_... browser.ts AUTHORIZATION_URL");
const decided = await consentBot(url, key);
const callback = decided.headers.get("location");
if (decided.status !== 303 || !callback)
  throw new Error(`consent: ${decided.status} ${await decided.text()}`);
const answered = await fetch(callback);
console.log(`callback ${new URL(callback).origin}${new URL(callback).pathname}: ${answered.status}`);
