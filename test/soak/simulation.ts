/**
 * Seeded simulation: random steps (grants and debits through the CLI, bursts of calls that
 * succeed or fail, key disables and enables, SIGKILL and SIGTERM restarts, calls cut off by
 * a kill, tight time budgets that make calls fail with 503) against a model of every
 * balance. After every step: the database is sound, balance = sum(ledger) >= 0 and equals
 * the model, the ledger is append-only, every 2xx received is debited once and no failed
 * call is, nothing stays reserved, and a disabled key gets 401 within the documented 1 s.
 */
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { cli, cliJson } from "../helpers/cli.ts";
import { ServerProcess, stockdEnv } from "../helpers/spawn.ts";
import { checkRestarted } from "./crash.ts";
import {
  type AccountView,
  Checks,
  call,
  checkBalances,
  checkNoDoubleDebit,
  copyDb,
  type DbState,
  deriveSeed,
  integrityOk,
  LedgerWatcher,
  type Outcome,
  Rng,
  readDb,
  readKeyStates,
  type ScenarioResult,
  type SoakContext,
  sleep,
} from "./lib.ts";
import {
  DISABLE_BOUND_MS,
  no402WhenCovered,
  type Planned,
  PROBE_EVERY_MS,
  PROBE_SLACK_MS,
  planCall,
  type SimKey,
  type SimUser,
  STEPS,
  type Step,
} from "./simulation-model.ts";

export async function simulationScenario(ctx: SoakContext): Promise<ScenarioResult> {
  const started = performance.now();
  const seed = deriveSeed(ctx.seed, "simulation");
  const sim = new Simulation(ctx, seed);
  await sim.setup();
  const total = ctx.short ? 40 : 400;
  let done = 0;
  for (; done < total; done++) {
    if (
      !sim.checks.check(
        Date.now() < ctx.deadline,
        () => `time budget exceeded after ${done} of ${total} steps`,
      )
    )
      break;
    const step = sim.rng.weighted(STEPS);
    sim.counts[step] = (sim.counts[step] ?? 0) + 1;
    await sim.run(step, `step ${done + 1} (${step})`);
    sim.invariants(`after step ${done + 1} (${step})`);
    await sim.nothingReserved(`after step ${done + 1} (${step})`);
    if ((done + 1) % 50 === 0) ctx.say(`simulation: ${done + 1}/${total} steps`);
  }
  await sim.finish();
  const f = sim.figures;
  const faults = [
    `${sim.counts.kill ?? 0} SIGKILL idle`,
    `${sim.counts.killUnderLoad ?? 0} SIGKILL under calls`,
    `${sim.counts.term ?? 0} SIGTERM`,
    `${f.tight_budget_starts} tight-budget starts`,
    `${f.disables} disables`,
  ].join(", ");
  return {
    name: "simulation",
    seed,
    runs: `${done} steps`,
    faults,
    checks: sim.checks.count,
    violations: sim.checks.failed,
    messages: sim.checks.messages,
    held: [
      "balance = model = sum(ledger) >= 0 after every step",
      "ledger append-only (count never fell, earlier rows unchanged)",
      "each 2xx debited once at its price, no failed call debited",
      `disabled key 401 within ${DISABLE_BOUND_MS} ms (max seen ${f.disable_latency_ms_max} ms)`,
      "no reservation at rest or after a restart",
    ],
    figures: { ...f, ...Object.fromEntries(Object.entries(sim.counts).map(([k, v]) => [`steps_${k}`, v])) },
    seconds: (performance.now() - started) / 1000,
    workDir: sim.dir,
  };
}

class Simulation {
  readonly rng: Rng;
  readonly checks = new Checks();
  readonly dir: string;
  readonly counts: Partial<Record<Step, number>> = {};
  readonly figures = {
    calls: 0,
    ok_2xx: 0,
    s401: 0,
    s402: 0,
    s503: 0,
    other_4xx: 0,
    no_status: 0,
    credits_charged: 0,
    cli_grants: 0,
    cli_debits_refused: 0,
    disables: 0,
    disable_latency_ms_max: 0,
    disable_latency_ms_mean: 0,
    enable_latency_ms_max: 0,
    restarts: 0,
    tight_budget_starts: 0,
    uncertain_debits_resolved: 0,
    ledger_rows: 0,
  };
  private readonly dataDir: string;
  private readonly logFile: string;
  private readonly users: SimUser[] = [];
  private readonly watcher = new LedgerWatcher();
  /** Request id → credits, of every billed 2xx received. */
  private readonly charged = new Map<string, number>();
  private readonly failed = new Set<string>();
  private server: ServerProcess | null = null;
  private tight = false;
  private disableLatencies: number[] = [];

  constructor(
    private readonly ctx: SoakContext,
    seed: number,
  ) {
    this.rng = new Rng(seed);
    this.dir = join(ctx.workDir, "simulation");
    this.dataDir = join(this.dir, "data");
    this.logFile = join(this.dir, "server.log");
  }

  private get url(): string {
    if (!this.server) throw new Error("no server");
    return this.server.url;
  }

  async setup(): Promise<void> {
    cpSync(this.ctx.template, this.dataDir, { recursive: true });
    for (let u = 0; u < 3; u++) {
      const email = `sim${u}@soak.test`;
      const credits = this.rng.int(0, 60);
      const user = await cliJson<{ id: string }>(
        ["users", "create", "--email", email, "--credits", String(credits)],
        { cwd: this.dir, dataDir: this.dataDir },
      );
      const keys: SimKey[] = [];
      for (let k = 0; k < 2; k++) {
        const key = await cliJson<{ id: string; key: string }>(["keys", "create", "--user", email], {
          cwd: this.dir,
          dataDir: this.dataDir,
        });
        keys.push({ key: key.key, id: key.id, state: "enabled" });
      }
      this.users.push({ id: user.id, email, balance: credits, keys, staleUntil: 0 });
    }
    await this.start();
    this.invariants("setup");
  }

  async finish(): Promise<void> {
    if (this.server) {
      const stopped = await this.server.stop("SIGTERM");
      this.checks.check(
        stopped && this.server.exitCode === 0,
        () => `final SIGTERM: exit ${this.server?.exitCode}`,
      );
      this.server = null;
    }
    const doctor = await cli(["doctor"], { cwd: this.dir, dataDir: this.dataDir });
    this.checks.check(
      doctor.code === 0,
      () => `doctor after the simulation exited ${doctor.code}: ${doctor.stdout}`,
    );
    this.figures.disable_latency_ms_mean = this.disableLatencies.length
      ? Math.round(this.disableLatencies.reduce((a, b) => a + b, 0) / this.disableLatencies.length)
      : 0;
  }

  async run(step: Step, where: string): Promise<void> {
    switch (step) {
      case "grant":
        return this.grant(this.rng.pick(this.users), this.rng.int(1, 300), where);
      case "debit": {
        const user = this.rng.pick(this.users);
        return this.grant(user, -this.rng.int(1, user.balance + 20), where);
      }
      case "calls":
        return this.calls(this.rng.int(1, 40), where);
      case "callsWithGrant":
        return this.callsWithGrant(where);
      case "disable":
        return this.toggle(true, where);
      case "enable":
        return this.toggle(false, where);
      case "kill":
        return this.kill(where);
      case "killUnderLoad":
        return this.killUnderLoad(where);
      case "term":
        return this.term(where);
    }
  }

  /** A grant (amount > 0) or a debit (< 0) through the CLI; a debit below zero is refused (exit 2). */
  private async grant(user: SimUser, amount: number, where: string): Promise<void> {
    const r = await this.grantCli(user, amount);
    const expectOk = user.balance + amount >= 0;
    if (r.code === 0) {
      this.checks.check(expectOk, () => `${where}: grant ${amount} to ${user.balance} was accepted`);
      user.balance += amount;
      const reported = (JSON.parse(r.stdout) as { balance: number }).balance;
      this.checks.check(
        reported === user.balance,
        () => `${where}: credits grant reported ${reported}, model ${user.balance}`,
      );
    } else {
      this.checks.check(
        !expectOk && r.code === 2,
        () => `${where}: grant ${amount} to ${user.balance} exited ${r.code}: ${r.stderr.trim()}`,
      );
    }
  }

  private async grantCli(user: SimUser, amount: number) {
    user.staleUntil = Number.POSITIVE_INFINITY;
    const r = await cli(
      ["credits", "grant", "--user", user.email, `--amount=${amount}`, "--reason", "soak", "--json"],
      { cwd: this.dir, dataDir: this.dataDir },
    );
    user.staleUntil = performance.now() + DISABLE_BOUND_MS + PROBE_SLACK_MS;
    if (r.code === 0) this.figures.cli_grants++;
    else this.figures.cli_debits_refused++;
    return r;
  }

  /** Checks one outcome against its plan and applies its charge to the model. */
  private settle(p: Planned, o: Outcome, where: string): void {
    this.figures.calls++;
    if (o.status === 0) {
      this.figures.no_status++;
      return;
    }
    const ok = o.status >= 200 && o.status < 300;
    if (ok) this.figures.ok_2xx++;
    else if (o.status === 401) this.figures.s401++;
    else if (o.status === 402) this.figures.s402++;
    else if (o.status === 503) this.figures.s503++;
    else this.figures.other_4xx++;
    this.checks.check(
      p.allowed.includes(o.status),
      () =>
        `${where}: ${p.method} ${p.path} got ${o.status}, expected one of ${p.allowed.join("/")}: ${o.body.slice(0, 200)}`,
    );
    const expectCharge = ok && p.cost > 0 ? p.cost : 0;
    this.checks.check(
      o.charged === expectCharge,
      () => `${where}: ${p.method} ${p.path} ${o.status} charged ${o.charged}, expected ${expectCharge}`,
    );
    if (ok && o.charged > 0 && p.user) {
      p.user.balance -= o.charged;
      this.figures.credits_charged += o.charged;
      if (o.requestId) this.charged.set(o.requestId, o.charged);
    } else if (!ok && o.requestId) this.failed.add(o.requestId);
  }

  private async calls(n: number, where: string): Promise<void> {
    const plans = Array.from({ length: n }, () => planCall(this.rng, this.users, this.tight));
    no402WhenCovered(plans);
    const outcomes = await Promise.all(
      plans.map((p) => call(this.url, p.path, { key: p.key, method: p.method })),
    );
    for (const [i, p] of plans.entries()) this.settle(p, outcomes[i] as Outcome, where);
  }

  /** Calls racing a CLI grant or debit on the same user: the commit guard keeps the balance >= 0. */
  private async callsWithGrant(where: string): Promise<void> {
    const user = this.rng.pick(this.users);
    const amount = this.rng.chance(0.5) ? this.rng.int(1, 100) : -this.rng.int(1, user.balance + 5);
    const plans = Array.from({ length: this.rng.int(5, 40) }, () =>
      planCall(this.rng, this.users, this.tight),
    );
    const before = user.balance;
    const [grant, ...outcomes] = await Promise.all([
      this.grantCli(user, amount),
      ...plans.map((p) => call(this.url, p.path, { key: p.key, method: p.method })),
    ]);
    for (const [i, p] of plans.entries()) this.settle(p, outcomes[i] as Outcome, where);
    if (grant.code === 0) user.balance += amount;
    else
      this.checks.check(
        amount < 0 && grant.code === 2,
        () =>
          `${where}: grant ${amount} (balance was ${before}) exited ${grant.code}: ${grant.stderr.trim()}`,
      );
  }

  /** Disables an enabled key (or enables a disabled one) through the CLI and probes the running server. */
  private async toggle(disable: boolean, where: string): Promise<void> {
    const candidates = this.users.flatMap((u) =>
      u.keys.filter((k) => k.state === (disable ? "enabled" : "disabled")).map((k) => ({ u, k })),
    );
    if (candidates.length === 0) return this.calls(5, where);
    const { k } = this.rng.pick(candidates);
    const r = await cli(["keys", disable ? "disable" : "enable", k.id, "--json"], {
      cwd: this.dir,
      dataDir: this.dataDir,
    });
    const committed = performance.now();
    if (
      !this.checks.check(
        r.code === 0,
        () => `${where}: keys ${disable ? "disable" : "enable"} exited ${r.code}`,
      )
    )
      return;
    k.state = "uncertain";
    // /account is free, so probing charges nothing.
    let latency: number | null = null;
    while (performance.now() - committed < 3000) {
      const sent = performance.now();
      const o = await call(this.url, "/account", { key: k.key });
      if (disable ? o.status === 401 : o.status === 200) {
        latency = Math.max(0, sent - committed);
        break;
      }
      await sleep(PROBE_EVERY_MS);
    }
    if (disable) {
      this.figures.disables++;
      const seen = latency ?? Number.POSITIVE_INFINITY;
      this.disableLatencies.push(Math.round(seen));
      this.figures.disable_latency_ms_max = Math.max(this.figures.disable_latency_ms_max, Math.round(seen));
      this.checks.check(
        seen <= DISABLE_BOUND_MS + PROBE_SLACK_MS,
        () => `${where}: disabled key still accepted ${Math.round(seen)} ms after "keys disable" returned`,
      );
    } else {
      const seen = latency ?? Number.POSITIVE_INFINITY;
      this.figures.enable_latency_ms_max = Math.max(this.figures.enable_latency_ms_max, Math.round(seen));
      this.checks.check(seen < 3000, () => `${where}: enabled key still refused after 3 s`);
    }
    if (latency !== null) k.state = disable ? "disabled" : "enabled";
  }

  private async kill(where: string): Promise<void> {
    const server = this.server as ServerProcess;
    await server.stop("SIGKILL");
    this.afterKill(where);
    await this.start();
  }

  private async term(where: string): Promise<void> {
    const server = this.server as ServerProcess;
    const stopped = await server.stop("SIGTERM");
    this.checks.check(stopped && server.exitCode === 0, () => `${where}: SIGTERM: exit ${server.exitCode}`);
    await this.start();
  }

  /** Calls cut off by a SIGKILL: the balance lands between "none of the cut-off calls debited" and "all". */
  private async killUnderLoad(where: string): Promise<void> {
    const server = this.server as ServerProcess;
    const plans = Array.from({ length: this.rng.int(10, 60) }, () =>
      planCall(this.rng, this.users, this.tight),
    );
    const delay = this.rng.int(0, 300);
    const pending = plans.map((p) => call(this.url, p.path, { key: p.key, method: p.method }));
    await sleep(delay);
    server.killNow();
    await server.exited;
    const outcomes = await Promise.all(pending);
    const uncertain = new Map<SimUser, number>();
    plans.forEach((p, i) => {
      const o = outcomes[i] as Outcome;
      this.settle(p, o, where);
      if (o.status === 0 && p.user && p.cost > 0)
        uncertain.set(p.user, (uncertain.get(p.user) ?? 0) + p.cost);
    });
    const state = this.afterKill(where);
    for (const user of this.users) {
      const onDisk = state.users.find((u) => u.id === user.id)?.balance ?? Number.NaN;
      const open = uncertain.get(user) ?? 0;
      this.checks.check(
        onDisk <= user.balance && onDisk >= user.balance - open,
        () =>
          `${where}: ${user.email} has ${onDisk} on disk; model ${user.balance} with ${open} credits in flight at the kill`,
      );
      // Debits committed for calls whose response never arrived: now known, from the ledger.
      if (onDisk < user.balance) this.figures.uncertain_debits_resolved += user.balance - onDisk;
      user.balance = onDisk;
    }
    await this.start();
  }

  /** The database as the kill left it (a copy): integrity, balances, ledger. */
  private afterKill(where: string): DbState {
    const copyDir = join(this.dir, "after-kill");
    rmSync(copyDir, { recursive: true, force: true });
    const state = readDb(copyDb(this.dataDir, copyDir), { integrity: "full", mode: "copy" });
    this.checks.check(integrityOk(state), () => `${where}: integrity_check: ${state.integrity.join("; ")}`);
    checkBalances(state, this.checks, `${where} (as killed)`);
    rmSync(copyDir, { recursive: true, force: true });
    return state;
  }

  private async start(): Promise<void> {
    this.tight = this.rng.chance(0.25);
    const budget: Record<string, string> = this.tight
      ? { STOCKD_REQUEST_TIMEOUT_MS: String(this.rng.int(2, 25)) }
      : {};
    if (this.tight) this.figures.tight_budget_starts++;
    this.server = await ServerProcess.start({
      cwd: this.dir,
      dataDir: this.dataDir,
      logFile: this.logFile,
      env: stockdEnv(budget),
    });
    this.figures.restarts++;
    // A fresh process reads every key from the database: the model's uncertainty ends here.
    const disabled = readKeyStates(join(this.dataDir, "accounts.db"));
    for (const user of this.users) {
      user.staleUntil = 0;
      for (const key of user.keys) key.state = disabled.get(key.id) ? "disabled" : "enabled";
    }
  }

  /** The invariants that hold after every step, read from the live database. */
  invariants(where: string): void {
    const state = readDb(join(this.dataDir, "accounts.db"), { integrity: "quick", mode: "live" });
    this.checks.check(integrityOk(state), () => `${where}: quick_check: ${state.integrity.join("; ")}`);
    checkBalances(state, this.checks, where);
    checkNoDoubleDebit(state, this.checks, where);
    this.watcher.observe(state.ledger, this.checks, where);
    for (const user of this.users) {
      const onDisk = state.users.find((u) => u.id === user.id)?.balance;
      this.checks.check(
        onDisk === user.balance,
        () => `${where}: ${user.email} has ${onDisk} in accounts.db; the model says ${user.balance}`,
      );
    }
    const refunded = new Set(state.ledger.flatMap((r) => (r.reason === "refund" ? [r.request_id] : [])));
    // What stands debited: usage rows that no refund took back.
    const byRequest = new Map(
      state.ledger.flatMap((r) =>
        r.request_id && r.reason === "usage" && !refunded.has(r.request_id)
          ? [[r.request_id, r.delta] as const]
          : [],
      ),
    );
    let missing = 0;
    let wrong = 0;
    for (const [id, credits] of this.charged) {
      const delta = byRequest.get(id);
      if (delta === undefined) missing++;
      else if (delta !== -credits) wrong++;
    }
    this.checks.check(
      missing === 0 && wrong === 0,
      () => `${where}: ${missing} 2xx without a debit, ${wrong} with another amount`,
    );
    const chargedFailures = [...this.failed].filter((id) => byRequest.has(id)).length;
    this.checks.check(chargedFailures === 0, () => `${where}: ${chargedFailures} failed calls were debited`);
    this.figures.ledger_rows = state.ledger.length;
  }

  /** At rest nothing is held: /account shows reserved 0 for every user with a usable key. */
  async nothingReserved(where: string): Promise<void> {
    const server = this.server as ServerProcess;
    const keys = this.users.flatMap((u) => {
      const k = u.keys.find((key) => key.state === "enabled");
      return k ? [{ key: k.key, userId: u.id }] : [];
    });
    if (!this.tight) return checkRestarted(server, keys, this.dataDir, this.checks, where);
    // A tight budget may answer /account itself with 503: retry a little.
    for (const k of keys) {
      for (let attempt = 0; attempt < 20; attempt++) {
        const o = await call(server.url, "/account", { key: k.key });
        if (o.status === 503) continue;
        if (o.status === 200) {
          const a = JSON.parse(o.body) as AccountView;
          this.checks.check(a.reserved === 0, () => `${where}: ${a.reserved} credits reserved at rest`);
        }
        break;
      }
    }
  }
}
