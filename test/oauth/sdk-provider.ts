/**
 * An MCP SDK client's OAuth storage for tests: in memory, its "browser" the consent bot.
 */
import type {
  OAuthClientInformationContext,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client";
import { consentBot } from "./bot.ts";

/** A client's OAuth storage in memory, whose "browser" is the consent bot pasting `apiKey`. */
export class BotProvider implements OAuthClientProvider {
  private creds = new Map<string, OAuthClientInformationMixed>();
  private stored?: OAuthTokens;
  private verifier?: string;
  private discovery?: OAuthDiscoveryState;
  /** Where the consent sent the browser: the client's callback URL with the code. */
  callback?: URL;
  lastState?: string;
  /** Registered port-less; the callback comes back on another port (loopback: any port). */
  readonly redirectUrl = "http://127.0.0.1:39871/callback";
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: "stockd SDK test",
    redirect_uris: ["http://127.0.0.1/callback"],
    application_type: "native",
  };

  constructor(private readonly apiKey: string) {}

  clientInformation(ctx?: OAuthClientInformationContext) {
    return ctx ? this.creds.get(ctx.issuer) : undefined;
  }
  saveClientInformation(info: OAuthClientInformationMixed, ctx?: OAuthClientInformationContext) {
    if (ctx) this.creds.set(ctx.issuer, info);
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
  }
  state() {
    this.lastState = crypto.randomUUID();
    return this.lastState;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  async redirectToAuthorization(url: URL) {
    const answer = await consentBot(url.href, this.apiKey);
    if (answer.status !== 303) throw new Error(`consent: ${answer.status} ${await answer.text()}`);
    this.callback = new URL(answer.headers.get("location") ?? "");
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error("no code verifier");
    return this.verifier;
  }
}
