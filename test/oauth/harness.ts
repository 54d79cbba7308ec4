/**
 * The authorization server on its own: `createOAuthServer` over a real accounts database and
 * the real key check (`Billing`), served by a real HTTP server on loopback, with a clock the
 * test moves.
 */
import { join } from "node:path";
import { Billing } from "../../src/accounts/billing.ts";
import { AccountsStore } from "../../src/accounts/store.ts";
import { AuthFailureThrottle } from "../../src/http/limits.ts";
import type { DocumentFetcher } from "../../src/oauth/client-metadata.ts";
import { createOAuthServer, type OAuthServer } from "../../src/oauth/server.ts";
import { SqliteOAuthStore } from "../../src/oauth/store.ts";
import { tempDir } from "../helpers/env.ts";

export interface AuthHarness {
  base: string;
  oauth: OAuthServer;
  accounts: AccountsStore;
  /** Moves the server's clock forward. */
  advance(ms: number): void;
  now(): Date;
  newKey(credits?: number, expiresAt?: string | null): { userId: string; key: string; keyId: string };
  stop(): Promise<void>;
}

let users = 0;

/**
 * Starts one; `authFailuresPerMinute` and `registrationsPerMinute` are the throttles' limits,
 * `documents` the fetcher of client-ID metadata documents (absent: they are off).
 */
export function startAuthServer(
  opts: { authFailuresPerMinute?: number; registrationsPerMinute?: number; documents?: DocumentFetcher } = {},
): AuthHarness {
  const accounts = AccountsStore.open(join(tempDir(), "accounts.db"));
  const billing = new Billing(accounts, 50);
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  let base = "";
  const oauth = createOAuthServer({
    store: new SqliteOAuthStore(accounts.db),
    keys: billing,
    publicUrl: () => base,
    authFailures: new AuthFailureThrottle(opts.authFailuresPerMinute ?? 1000),
    registrations: new AuthFailureThrottle(opts.registrationsPerMinute ?? 1000),
    documents: opts.documents ?? null,
    now,
  });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request, srv) => oauth.handle(request, srv.requestIP(request)?.address ?? "unknown"),
    // A store that fails is a 500, as the app's error handler answers it.
    error: () => new Response("internal error", { status: 500 }),
  });
  base = `http://127.0.0.1:${server.port}`;
  return {
    base,
    oauth,
    accounts,
    advance: (ms) => {
      offset += ms;
    },
    now,
    newKey(credits = 100, expiresAt = null) {
      const user = accounts.createUser(`oauth${++users}-${process.pid}@example.test`, credits);
      if (!user.ok) throw new Error(user.message);
      const { key, info } = accounts.createKey(user.value.id, "laptop", expiresAt);
      return { userId: user.value.id, key, keyId: info.id };
    },
    async stop() {
      await server.stop(true);
      billing.close();
      accounts.close();
    },
  };
}
