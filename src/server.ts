import { openServingAccounts, type ServingAccounts } from "./accounts/open.ts";
import type { Accounts } from "./accounts/seam.ts";
import type { Config } from "./config.ts";
import { createApp } from "./http/app.ts";
import type { Door } from "./http/doors.ts";
import { AuthFailureThrottle } from "./http/limits.ts";
import { openKeyRate } from "./http/shared-rate.ts";
import { listenHttp } from "./http/transport.ts";
import type { Logger } from "./log.ts";
import { mcpDoor } from "./mcp/door.ts";
import { fetchDocument } from "./oauth/client-metadata.ts";
import { oauthDoor } from "./oauth/door.ts";
import { createOAuthServer, REGISTRATIONS_PER_MINUTE } from "./oauth/server.ts";
import { SnapshotService } from "./query/snapshot.ts";
import { openDuckDb } from "./snapshot/duckdb.ts";
import { SnapshotFollower } from "./snapshot/follow.ts";
import { openSnapshotSource } from "./snapshot/source.ts";
import { renderSyncMetrics } from "./sync/metrics.ts";
import { VERSION } from "./version.ts";

export interface RunningServer {
  url: string;
  port: number;
  accounts: Accounts;
  snapshots: SnapshotService;
  /**
   * Stops accepting, lets calls in flight finish (each settles its own reservation) for at
   * most `drainMs`, cuts off what is left, commits queued debits and closes the stores.
   */
  stop(drainMs?: number): Promise<void>;
}

/** Listening on every address: no host name to allow beyond the loopback ones. */
const WILDCARD_HOSTS = ["0.0.0.0", "::", ""];

/**
 * The host names clients may reach this server by besides the loopback ones (what `/mcp`
 * accepts in `Host` and `Origin`): the listen address, unless it is every address, and the
 * public URL's host.
 */
function hostNames(config: Config): string[] {
  const names = WILDCARD_HOSTS.includes(config.host)
    ? []
    : [config.host.includes(":") ? `[${config.host}]` : config.host];
  if (config.publicUrl) names.push(new URL(config.publicUrl).hostname);
  return names;
}

/** How long a shutdown waits for calls in flight: within `docker stop`'s 10 s before SIGKILL. */
export const DRAIN_TIMEOUT_MS = 8_000;

/** Wires the stores and the app and listens. Used by `stockd serve` and by the tests. */
export async function startServer(config: Config, log: Logger): Promise<RunningServer> {
  const opened = await openServingAccounts(config, log);
  const { accounts, billing } = opened;
  const instance = await openDuckDb();
  const snapshots = new SnapshotService(instance, config.dataDir, log);
  await snapshots.refresh();
  snapshots.watch(config.accountsPollMs);
  // Started after the first load: a replica serves what its data dir holds while it pulls (docs/scale-out.md).
  const follower =
    config.snapshotSource === null
      ? null
      : new SnapshotFollower(openSnapshotSource(config.snapshotSource), config.dataDir, snapshots, log, {
          pollMs: config.snapshotPollMs,
          keep: config.snapshotsKept,
        });
  follower?.start();
  // The URL clients reach this server at: the configured one, else known once it listens.
  let publicUrl = config.publicUrl ?? "";
  const rate = openKeyRate(config.limits, config.rateSharing, log);
  const { handle, delivered, bodyLimit, idempotency } = createApp({
    accounts,
    billing,
    snapshots,
    log,
    version: VERSION,
    limits: config.limits,
    rate,
    metricsToken: config.metricsToken,
    snapshotSource: follower ? () => follower.status() : undefined,
    // Sync's counters and runs, from the data dir's sync state (this process's runs and others').
    moreMetrics: () => renderSyncMetrics(config.dataDir),
    // Paths outside the REST API, each with its own methods and body limit (http/doors.ts).
    doors: doors(opened, config, snapshots, () => publicUrl),
  });
  // Remembered idempotent responses are replayed for 24 h; forget older ones hourly.
  const forget = () => {
    Promise.resolve()
      .then(() => idempotency.purge())
      .catch((error) => log.warn("forgetting old idempotent responses failed", { error: String(error) }));
  };
  forget();
  const purge = setInterval(forget, 3600_000);
  purge.unref();
  const transport = await listenHttp({ handle, delivered, bodyLimit }, config.port, config.host);
  const address = transport.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  publicUrl = config.publicUrl ?? url;
  log.info("listening", { url, snapshot: snapshots.current()?.id ?? null, version: VERSION });
  return {
    url,
    port,
    accounts,
    snapshots,
    async stop(drainMs = DRAIN_TIMEOUT_MS) {
      const outcome = await transport.stop(drainMs);
      if (outcome === "timeout")
        log.warn("shutdown: cut off calls still in flight", {
          pending: transport.inFlight(),
          after_ms: drainMs,
        });
      clearInterval(purge);
      // Calls cut off before their commit never settled: their holds live only in this
      // process's memory and vanish with it, which is the same as releasing them. Those cut
      // off while being written were refunded before the transport's stop returned.
      await opened.close();
      await follower?.stop();
      rate.close();
      snapshots.close();
      instance.closeSync();
      log.info("stopped");
    },
  };
}

/** The doors (http/doors.ts): /mcp and OAuth, on either accounts store (docs/oauth.md). */
function doors(
  opened: ServingAccounts,
  config: Config,
  snapshots: SnapshotService,
  publicUrl: () => string,
): Door[] {
  const oauth = createOAuthServer({
    store: opened.oauth,
    keys: opened.billing,
    publicUrl,
    authFailures: new AuthFailureThrottle(config.limits.authFailuresPerMinute),
    registrations: new AuthFailureThrottle(REGISTRATIONS_PER_MINUTE),
    documents: config.oauthClientMetadataDocuments ? fetchDocument : null,
  });
  const mcp = mcpDoor({
    billing: opened.billing,
    oauth,
    publicUrl,
    allowedHosts: hostNames(config),
    activeSnapshot: () => snapshots.current()?.manifest ?? null,
  });
  return [mcp, oauthDoor(oauth)];
}
