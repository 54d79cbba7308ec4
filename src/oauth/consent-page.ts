import { createHash } from "node:crypto";
import { pageHeaders } from "./responses.ts";

/**
 * The pages a person sees: the consent form and the failure page. Served by stockd itself,
 * with one inline style block (allowed by its hash) and no script, image or font: they work
 * offline and load nothing. Every text that comes from a client is escaped.
 */

const STYLE = `body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;background:#f4f5f7;color:#1c1e21;margin:0}
main{max-width:34rem;margin:3rem auto;background:#fff;border:1px solid #d8dbe0;border-radius:8px;padding:2rem}
h1{font-size:1.35rem;margin:0 0 1rem}
.client{font-weight:600}
.badge{display:inline-block;font-size:.75rem;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:#7a4b00;background:#fff1d6;border-radius:4px;padding:0 .4rem;margin-left:.4rem;vertical-align:middle}
.badge.verified{color:#0b5a2a;background:#dcf5e3;text-transform:none}
.host{font-size:1.5rem;font-weight:700;word-break:break-all;margin:.25rem 0 1rem}
.warn{background:#fff6e5;border-left:4px solid #e0a100;padding:.5rem .75rem;margin:0 0 1rem}
.error{background:#fdecec;border-left:4px solid #c62828;padding:.5rem .75rem;margin:0 0 1rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=password]{box-sizing:border-box;width:100%;font:inherit;padding:.5rem;border:1px solid #aab0b8;border-radius:4px}
.buttons{display:flex;gap:.75rem;margin-top:1.25rem}
button{font:inherit;font-weight:600;padding:.5rem 1.25rem;border-radius:4px;border:1px solid #aab0b8;background:#fff;cursor:pointer}
button.allow{background:#1a56db;border-color:#1a56db;color:#fff}
.small{font-size:.875rem;color:#555}`;

const HEADERS = pageHeaders(`sha256-${createHash("sha256").update(STYLE).digest("base64")}`);

/** Text made safe for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string, status: number, headers: Record<string, string> = {}): Response {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
  return new Response(html, { status, headers: { ...HEADERS, ...headers } });
}

/** What the consent form shows and posts back. */
export interface ConsentView {
  /** The pending request's id and its CSRF token, posted back as hidden fields. */
  requestId: string;
  csrf: string;
  clientName: string | null;
  /** The host of the client's metadata document, which vouches for its name; null for a registered client. */
  verifiedHost: string | null;
  /** Where the code goes: the redirect URI's host (or scheme), shown large. */
  redirectHost: string;
  /** The redirect goes to a program on this machine. */
  loopback: boolean;
  /** The message of a failed attempt (bad key, too many attempts), if any. */
  error?: string;
}

/** The consent form: who asks, where the answer goes, what it costs, and the key field. */
export function consentPage(view: ConsentView, status = 200): Response {
  const name = escapeHtml(view.clientName ?? "An application that gave no name");
  const loopbackWarning = view.loopback
    ? `<p class="warn">The answer goes to a program on the computer that opened this page. Approve only if you just connected an application on it to stockd.</p>`
    : "";
  const badge = view.verifiedHost
    ? `<span class="badge verified">${escapeHtml(view.verifiedHost)}</span>`
    : `<span class="badge">unverified</span>`;
  const origin = view.verifiedHost
    ? `The name comes from the application's metadata published at ${escapeHtml(view.verifiedHost)}.`
    : "The name is what the application registered itself as; stockd cannot confirm it.";
  const error = view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : "";
  const body = `<h1>Connect an application to stockd</h1>
${error}<p><span class="client" id="client-name">${name}</span>${badge} asks to read stock data in your name.</p>
<p class="small">${origin} The approval is sent to:</p>
<p class="host" id="redirect-host">${escapeHtml(view.redirectHost)}</p>
${loopbackWarning}<p>Every tool call it makes is charged to the credits of the key you paste, at the price of the same REST call.</p>
<form method="post" action="/oauth/authorize" id="consent">
<input type="hidden" name="request" value="${escapeHtml(view.requestId)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<label for="api_key">Your stockd API key</label>
<input type="password" id="api_key" name="api_key" autocomplete="off" spellcheck="false" placeholder="sk_..." maxlength="200">
<p class="small">The key proves the account is yours; it is not given to the application. The access ends when you disable this key.</p>
<div class="buttons"><button type="submit" class="allow" name="decision" value="allow">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button></div>
</form>`;
  return page("Connect an application to stockd", body, status);
}

/**
 * A failure the person must see, never sent to the client's redirect URI (whose ownership is
 * not established, or which the page must not act on by itself). `back`, when given, is a
 * link to the client's (registered) redirect URI with the OAuth error, for the person to follow.
 */
export function failurePage(
  title: string,
  message: string,
  status: number,
  back?: string,
  headers: Record<string, string> = {},
): Response {
  const link = back
    ? `<p><a href="${escapeHtml(back)}" id="back">Return to the application</a> (it is told the request failed).</p>`
    : `<p class="small">Start the connection again from the application.</p>`;
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1><p class="error" role="alert">${escapeHtml(message)}</p>${link}`,
    status,
    headers,
  );
}
