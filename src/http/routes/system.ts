import { t } from "elysia";
import type { Accounts, Biller } from "../../accounts/seam.ts";
import { ApiError } from "../../errors.ts";
import type { FollowStatus } from "../../snapshot/follow.ts";
import { StrOrNull } from "../models/common.ts";
import { defineRoute, type Route } from "../route.ts";

/** The snapshot source a replica follows (docs/scale-out.md); where it is and why a pull failed are in the log only. */
const SnapshotSource = t.Object({
  published: t.Union([t.String(), t.Null()], {
    description: "the snapshot the source's CURRENT named at the last look",
  }),
  pulling: t.Union([t.String(), t.Null()], { description: "the snapshot being downloaded now" }),
  failed: t.Boolean({
    description:
      "true when the last look or pull failed (the active snapshot is still served; the log says why); false once one succeeds",
  }),
  checked_at: t.Union([t.String(), t.Null()], { description: "when the source's CURRENT was last read" }),
});

const Health = t.Object({
  status: t.Literal("ok"),
  snapshot_id: t.String(),
  data_as_of: StrOrNull,
  snapshot_created_at: t.String(),
  time: t.String(),
  snapshot_source: t.Optional(SnapshotSource),
});

const Account = t.Object({
  user_id: t.String(),
  email: t.String(),
  balance: t.Integer(),
  reserved: t.Integer(),
  available: t.Integer(),
  key: t.Object({ id: t.String(), prefix: t.String(), name: StrOrNull, expires_at: StrOrNull }),
  usage_30d: t.Object({
    calls: t.Integer(),
    credits: t.Integer(),
    by_endpoint: t.Array(t.Object({ endpoint: t.String(), calls: t.Integer(), credits: t.Integer() })),
  }),
});

/**
 * /health answers 503 while the replica cannot serve: no snapshot, or (shared accounts) the
 * accounts database unreachable, so that a load balancer takes it out of rotation.
 */
const health = (billing: Biller, source: (() => FollowStatus) | undefined) =>
  defineRoute({
    path: "/health",
    endpoint: "health",
    public: true,
    response: Health,
    summary: "Health",
    description:
      "Readiness and the active snapshot (and, on a replica following a snapshot source, that source's state). No key needed; 503 while no snapshot is active or the accounts database does not answer.",
    handler({ call }) {
      const snapshot = call.snapshot;
      const following = source?.();
      if (!snapshot)
        throw new ApiError("unavailable", `no data snapshot is active${following ? waiting(following) : ""}`);
      if (!billing.reachable) throw new ApiError("unavailable", "the accounts database does not answer");
      const { id, data_as_of, created_at } = snapshot.manifest;
      return {
        status: "ok" as const,
        snapshot_id: id,
        data_as_of,
        snapshot_created_at: created_at,
        time: new Date().toISOString(),
        ...(following ? { snapshot_source: following } : {}),
      };
    },
  });

/** What a replica with no snapshot yet is waiting for, said in its 503 (the log says why a pull failed). */
function waiting(s: FollowStatus): string {
  if (s.pulling) return `; pulling ${s.pulling} from the snapshot source`;
  if (s.failed) return "; the last pull from the snapshot source failed (see the log)";
  return s.published
    ? `; ${s.published} is published at the snapshot source`
    : "; nothing is published at the snapshot source yet";
}

function account(billing: Biller, accounts: Accounts) {
  return defineRoute({
    path: "/account",
    endpoint: "account",
    unversioned: true,
    response: Account,
    summary: "Your account",
    description:
      "Balance, credits held by calls in flight, the key in use and usage by endpoint over the last 30 UTC days (today included).",
    async handler({ call }) {
      const key = call.key;
      const user = key ? await accounts.findUser(key.user_id) : null;
      if (!key || !user) throw new ApiError("unauthorized", "a valid API key is required");
      // The last 30 UTC days, today included.
      const since = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
      const byEndpoint = await accounts.usageSince(user.id, since);
      const reserved = await billing.heldFor(user.id);
      return {
        user_id: user.id,
        email: user.email,
        balance: user.balance,
        reserved,
        available: user.balance - reserved,
        key: { id: key.id, prefix: key.prefix, name: key.name, expires_at: key.expires_at },
        usage_30d: {
          calls: byEndpoint.reduce((n, e) => n + e.calls, 0),
          credits: byEndpoint.reduce((n, e) => n + e.credits, 0),
          by_endpoint: byEndpoint,
        },
      };
    },
  });
}

/** /health (no key, free; `source`: the snapshot source followed) and /account (key, free). */
export function systemRoutes(
  billing: Biller,
  accounts: Accounts,
  source?: (() => FollowStatus) | undefined,
): Route[] {
  return [health(billing, source), account(billing, accounts)];
}
