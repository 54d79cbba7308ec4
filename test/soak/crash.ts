/**
 * Crash durability: `stockd serve` under load from many concurrent clients is SIGKILLed at a
 * random moment, again and again. After every kill the accounts database (as the kill left
 * it) is sound, every 2xx a client received has its ledger row, no failed call has one, at
 * most the calls in flight at the kill were debited without their response arriving, and the
 * restarted server holds no reservation.
 */
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { cli, cliJson } from "../helpers/cli.ts";
import { ServerProcess } from "../helpers/spawn.ts";
import { billedCall, failingCall, fastBilledCall } from "./calls.ts";
import {
  type AccountView,
  Checks,
  call,
  checkBalances,
  checkNoDoubleDebit,
  copyDb,
  deriveSeed,
  integrityOk,
  LedgerWatcher,
  Rng,
  readDb,
  type ScenarioResult,
  type SoakContext,
  sleep,
} from "./lib.ts";

interface Key {
  key: string;
  keyId: string;
  userId: string;
  email: string;
}

/** What the clients saw, over all kills. */
class ClientRecord {
  /** Request id → credits charged, for every billed 2xx received. */
  readonly charged = new Map<string, number>();
  /** Request ids of every non-2xx response received. */
  readonly failed = new Set<string>();
  requests = 0;
  ok = 0;
  notOk = 0;
  /** Calls that got no status: refused, reset or cut off by the kill. */
  noStatus = 0;
}

export async function crashScenario(ctx: SoakContext): Promise<ScenarioResult> {
  const started = performance.now();
  const seed = deriveSeed(ctx.seed, "crash");
  const rng = new Rng(seed);
  const checks = new Checks();
  const kills = ctx.short ? 3 : 20;
  const dir = join(ctx.workDir, "crash");
  const dataDir = join(dir, "data");
  const logFile = join(dir, "server.log");
  cpSync(ctx.template, dataDir, { recursive: true });

  const keys = await makeKeys(dir, dataDir);
  const poor = keys.find((k) => k.email.startsWith("poor")) as Key;
  const record = new ClientRecord();
  const watcher = new LedgerWatcher();
  const figures = {
    kills_done: 0,
    requests: 0,
    ok_2xx_billed: 0,
    non_2xx: 0,
    no_status: 0,
    in_flight_at_kill_max: 0,
    in_flight_at_kill_total: 0,
    debited_without_response_max: 0,
    debited_without_response_total: 0,
    missing_2xx_in_ledger: 0,
    grants_during_load: 0,
    ledger_rows: 0,
    kill_after_ms_min: Number.POSITIVE_INFINITY,
    kill_after_ms_max: 0,
    workers_max: 0,
  };
  let lastLedgerId = 0;

  for (let i = 1; i <= kills; i++) {
    if (
      !checks.check(Date.now() < ctx.deadline, () => `time budget exceeded after ${i - 1} of ${kills} kills`)
    )
      break;
    const where = `kill ${i}/${kills}`;
    const server = await ServerProcess.start({ cwd: dir, dataDir, logFile });
    await checkRestarted(server, keys, dataDir, checks, `${where}: after restart`);

    const workers = rng.int(8, 48);
    const killAfter = rng.int(30, 1500);
    const grantAt = rng.chance(0.5) ? rng.int(0, killAfter) : null;
    const grantAmount = rng.int(1, 400);
    const workerSeeds = Array.from({ length: workers }, (_, w) => deriveSeed(seed, `kill ${i} worker ${w}`));
    ctx.say(`crash ${where}: ${workers} clients, SIGKILL after ${killAfter} ms`);

    let stop = false;
    let inFlight = 0;
    const load = workerSeeds.map(async (workerSeed) => {
      const wr = new Rng(workerSeed);
      while (!stop) {
        const roll = wr.next();
        const key = wr.pick(keys).key;
        const target =
          roll < 0.6
            ? { ...fastBilledCall(wr), method: "GET", key, expect: null }
            : roll < 0.85
              ? { ...billedCall(wr), method: "GET", key, expect: null }
              : roll < 0.95
                ? { ...failingCall(wr), key, expect: null }
                : { path: "/stocks/DWGT/profile", method: "GET", key: `sk_${wr.word(43)}`, expect: 401 };
        record.requests++;
        inFlight++;
        const outcome = await call(server.url, target.path, {
          key: target.key,
          method: target.method,
          onSettled: () => inFlight--,
        });
        if (outcome.status === 0) {
          record.noStatus++;
          continue;
        }
        const success = outcome.status >= 200 && outcome.status < 300;
        checks.check(
          outcome.requestId !== null,
          () => `${where}: ${target.method} ${target.path} ${outcome.status} without X-Request-Id`,
        );
        if (target.expect !== null)
          checks.check(
            outcome.status === target.expect,
            () => `${where}: bad key on ${target.path} got ${outcome.status}, not ${target.expect}`,
          );
        if (success && "cost" in target) {
          record.ok++;
          checks.check(
            outcome.charged === target.cost,
            () => `${where}: ${target.path} 2xx charged ${outcome.charged}, the price is ${target.cost}`,
          );
          if (outcome.requestId) record.charged.set(outcome.requestId, outcome.charged);
        } else {
          if (!success) record.notOk++;
          checks.check(
            outcome.charged === 0,
            () => `${where}: ${target.method} ${target.path} ${outcome.status} charged ${outcome.charged}`,
          );
          if (outcome.requestId && !success) record.failed.add(outcome.requestId);
        }
      }
    });
    const grant =
      grantAt === null
        ? null
        : sleep(grantAt).then(() =>
            cli(["credits", "grant", "--user", poor.email, "--amount", String(grantAmount)], {
              cwd: dir,
              dataDir,
            }),
          );
    await sleep(killAfter);
    stop = true;
    const inFlightAtKill = inFlight;
    server.killNow();
    await server.exited;
    await Promise.all(load);
    if (grant) {
      const g = await grant;
      figures.grants_during_load++;
      checks.check(g.code === 0, () => `${where}: credits grant during load exited ${g.code}: ${g.stderr}`);
    }
    checks.check(server.signalCode === "SIGKILL", () => `${where}: server ended by ${server.signalCode}`);

    // The database exactly as the kill left it (a copy: the next start recovers the original).
    const copyDir = join(dir, `after-kill-${i}`);
    const state = readDb(copyDb(dataDir, copyDir), { integrity: "full", mode: "copy" });
    checks.check(integrityOk(state), () => `${where}: integrity_check: ${state.integrity.join("; ")}`);
    checkBalances(state, checks, where);
    checkNoDoubleDebit(state, checks, where);
    watcher.observe(state.ledger, checks, where);
    const refunded = new Set(state.ledger.flatMap((r) => (r.reason === "refund" ? [r.request_id] : [])));
    // What stands debited: usage rows that no refund took back.
    const byRequest = new Map(
      state.ledger.flatMap((r) =>
        r.request_id && r.reason === "usage" && !refunded.has(r.request_id)
          ? [[r.request_id, r] as const]
          : [],
      ),
    );
    let missing = 0;
    for (const [id, charged] of record.charged) {
      const row = byRequest.get(id);
      if (!row) missing++;
      else
        checks.check(
          row.delta === -charged,
          () => `${where}: ledger row of ${id} has delta ${row.delta}; the response said ${charged}`,
        );
    }
    figures.missing_2xx_in_ledger += missing;
    checks.check(missing === 0, () => `${where}: ${missing} received 2xx responses have no ledger row`);
    const chargedFailures = [...record.failed].filter((id) => byRequest.has(id));
    checks.check(
      chargedFailures.length === 0,
      () => `${where}: ${chargedFailures.length} failed calls were debited, e.g. ${chargedFailures[0]}`,
    );
    const orphans = state.ledger.filter(
      (r) =>
        r.id > lastLedgerId &&
        r.reason === "usage" &&
        !refunded.has(r.request_id) &&
        !record.charged.has(r.request_id ?? ""),
    ).length;
    checks.check(
      orphans <= inFlightAtKill,
      () => `${where}: ${orphans} debits without a response but only ${inFlightAtKill} calls were in flight`,
    );
    lastLedgerId = state.ledger.reduce((m, r) => Math.max(m, r.id), lastLedgerId);
    rmSync(copyDir, { recursive: true, force: true });

    figures.kills_done++;
    figures.in_flight_at_kill_max = Math.max(figures.in_flight_at_kill_max, inFlightAtKill);
    figures.in_flight_at_kill_total += inFlightAtKill;
    figures.debited_without_response_max = Math.max(figures.debited_without_response_max, orphans);
    figures.debited_without_response_total += orphans;
    figures.kill_after_ms_min = Math.min(figures.kill_after_ms_min, killAfter);
    figures.kill_after_ms_max = Math.max(figures.kill_after_ms_max, killAfter);
    figures.workers_max = Math.max(figures.workers_max, workers);
    figures.ledger_rows = state.ledger.length;
  }

  // The last kill's state, recovered by a real start, then a clean stop and a doctor run.
  const server = await ServerProcess.start({ cwd: dir, dataDir, logFile });
  await checkRestarted(server, keys, dataDir, checks, "final restart");
  const stopped = await server.stop("SIGTERM");
  checks.check(stopped && server.exitCode === 0, () => `final SIGTERM: exit ${server.exitCode}`);
  const doctor = await cli(["doctor"], { cwd: dir, dataDir });
  checks.check(doctor.code === 0, () => `doctor after the kills exited ${doctor.code}: ${doctor.stdout}`);

  figures.requests = record.requests;
  figures.ok_2xx_billed = record.ok;
  figures.non_2xx = record.notOk;
  figures.no_status = record.noStatus;
  return {
    name: "crash",
    seed,
    runs: `${figures.kills_done} kills`,
    faults: `${figures.kills_done} SIGKILL under load (${figures.kill_after_ms_min}-${figures.kill_after_ms_max} ms in)`,
    checks: checks.count,
    violations: checks.failed,
    messages: checks.messages,
    held: [
      "integrity_check ok after every kill",
      "every received 2xx has its ledger row (0 missing)",
      "no failed call debited",
      `debits without a response <= calls in flight (max ${figures.debited_without_response_max} <= ${figures.in_flight_at_kill_max})`,
      "balance = sum(ledger) >= 0; ledger append-only",
      "no reservation survives a restart",
    ],
    figures,
    seconds: (performance.now() - started) / 1000,
    workDir: dir,
  };
}

async function makeKeys(dir: string, dataDir: string): Promise<Key[]> {
  const keys: Key[] = [];
  for (const [email, credits, count] of [
    ["rich@soak.test", 1_000_000, 2],
    ["poor@soak.test", 200, 1],
  ] as const) {
    const user = await cliJson<{ id: string }>(
      ["users", "create", "--email", email, "--credits", String(credits)],
      { cwd: dir, dataDir },
    );
    for (let k = 0; k < count; k++) {
      const key = await cliJson<{ id: string; key: string }>(["keys", "create", "--user", email], {
        cwd: dir,
        dataDir,
      });
      keys.push({ key: key.key, keyId: key.id, userId: user.id, email });
    }
  }
  return keys;
}

/** After a start: every key's account shows nothing reserved and the balance on disk. */
export async function checkRestarted(
  server: ServerProcess,
  keys: readonly { key: string; userId: string }[],
  dataDir: string,
  checks: Checks,
  where: string,
): Promise<void> {
  const state = readDb(join(dataDir, "accounts.db"), { integrity: "quick", mode: "live" });
  for (const k of keys) {
    const outcome = await call(server.url, "/account", { key: k.key });
    if (outcome.status === 401) continue; // a disabled key (the simulation) has no view
    if (!checks.check(outcome.status === 200, () => `${where}: GET /account ${outcome.status}`)) continue;
    const account = JSON.parse(outcome.body) as AccountView;
    const onDisk = state.users.find((u) => u.id === k.userId)?.balance;
    checks.check(
      account.reserved === 0 && account.available === account.balance,
      () => `${where}: reservation survived: reserved ${account.reserved}, available ${account.available}`,
    );
    checks.check(
      account.balance === onDisk,
      () => `${where}: /account balance ${account.balance}, accounts.db ${onDisk}`,
    );
  }
}
