/**
 * The app and its edge over a data dir, without a socket: a request can come from any client
 * address (over a socket every test client is 127.0.0.1).
 */
import { join } from "node:path";
import { Billing } from "../../src/accounts/billing.ts";
import { AccountsStore } from "../../src/accounts/store.ts";
import type { Limits } from "../../src/config.ts";
import { createApp } from "../../src/http/app.ts";
import type { Client } from "../../src/http/context.ts";
import { createLogger } from "../../src/log.ts";
import { SnapshotService } from "../../src/query/snapshot.ts";
import { openDuckDb } from "../../src/snapshot/duckdb.ts";

export interface EdgeUnderTest {
  accounts: AccountsStore;
  /** What the server's fetch calls, with the client address it would pass. */
  handle(request: Request, address: string): Promise<Response>;
  newKey(credits: number): { userId: string; key: string };
  close(): Promise<void>;
}

let edgeUsers = 0;

/**
 * The app and its edge over a data dir, built as `startServer` builds them, without a socket:
 * the tests can then present any client address (over a socket every test client is 127.0.0.1).
 */
export async function startEdge(
  dataDir: string,
  limits: Limits,
  opts: { viaElysia?: boolean } = {},
): Promise<EdgeUnderTest> {
  const log = createLogger("silent");
  const accounts = AccountsStore.open(join(dataDir, "accounts.db"));
  const billing = new Billing(accounts, 200);
  const instance = await openDuckDb();
  const snapshots = new SnapshotService(instance, dataDir, log);
  await snapshots.refresh();
  const app = createApp({ accounts, billing, snapshots, log, version: "test", limits });
  const handle = opts.viaElysia ? app.viaElysia : app.handle;
  // One client per address, so that an edge keyed by the client it was given sees the same
  // key for the same address too.
  const clients = new Map<string, Client>();
  const clientAt = (address: string) => {
    let client = clients.get(address);
    if (!client) {
      client = { address: () => address, gone: () => false };
      clients.set(address, client);
    }
    return client;
  };
  const call = async (request: Request, client: Client): Promise<Response> => {
    const reply = await handle(request, client);
    const body =
      reply.body instanceof Response
        ? await reply.body.bytes()
        : Array.isArray(reply.body)
          ? Buffer.concat(reply.body)
          : reply.body;
    return new Response(body, { status: reply.status, headers: reply.headers });
  };
  return {
    accounts,
    handle: (request, address) => call(request, clientAt(address)),
    newKey(credits) {
      const user = accounts.createUser(`edge${++edgeUsers}@example.test`, credits);
      if (!user.ok) throw new Error(user.message);
      return { userId: user.value.id, key: accounts.createKey(user.value.id, null, null).key };
    },
    async close() {
      billing.close();
      snapshots.close();
      accounts.close();
      instance.closeSync();
    },
  };
}
