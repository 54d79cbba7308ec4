/**
 * A PostgreSQL cluster of its own for a test file: `initdb` in a temporary directory, the
 * server on a free loopback port, stopped by its pid. PostgreSQL refuses to run as root, so as
 * root both run as the `postgres` user (through `runuser`), in a directory that user owns.
 * Without the server binaries (Debian's `postgresql` package) `postgresBinaries()` is null and
 * the tests that need PostgreSQL skip with a notice.
 */
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

/** The directory of `initdb` and `postgres`, the newest version installed; null when absent. */
export function postgresBinaries(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : null;
}

/** A free loopback TCP port (asked of the kernel, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`, trusted on loopback. */
  url: string;
  port: number;
  /** Another database in the cluster (created empty), e.g. one per test. */
  database(name: string): Promise<string>;
  /** Stops the server (fast shutdown) and removes its directory. */
  stop(): Promise<void>;
  /** Kills the server at once (SIGKILL) and starts it again on the same port and data. */
  restart(): Promise<void>;
}

const asRoot = userInfo().uid === 0;

function asPostgres(command: string[]): string[] {
  return asRoot ? ["runuser", "-u", "postgres", "--", ...command] : command;
}

/** Starts a cluster of its own; throws when the binaries are missing (check postgresBinaries first). */
export async function startPostgres(): Promise<PostgresCluster> {
  const bin = postgresBinaries();
  if (!bin) throw new Error("PostgreSQL server binaries not found under /usr/lib/postgresql");
  const dir = mkdtempSync(join(tmpdir(), "stockd-pg-"));
  if (asRoot) chownSync(dir, Number(idOf("-u")), Number(idOf("-g")));
  const data = join(dir, "data");
  const init = Bun.spawnSync(
    asPostgres([join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]),
    { stdout: "pipe", stderr: "pipe" },
  );
  if (init.exitCode !== 0) throw new Error(`initdb failed: ${init.stderr.toString()}`);
  const port = await freePort();
  let server: Subprocess | null = null;
  const start = async () => {
    server = Bun.spawn(
      asPostgres([
        join(bin, "postgres"),
        "-D",
        data,
        "-p",
        String(port),
        "-k",
        dir,
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "fsync=off",
        "-c",
        "max_connections=200",
      ]),
      { stdout: "ignore", stderr: "pipe" },
    );
    await ready(bin, port, dir);
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async database(name) {
      const made = Bun.spawnSync([join(bin, "psql"), url, "-c", `CREATE DATABASE "${name}"`], {
        stdout: "pipe",
        stderr: "pipe",
      });
      if (made.exitCode !== 0) throw new Error(`createdb ${name}: ${made.stderr.toString()}`);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async restart() {
      const running = server as Subprocess | null;
      crash(data);
      await running?.exited;
      await start();
    },
    async stop() {
      const running = server as Subprocess | null;
      shutDown(data);
      await running?.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Debian's PgBouncer (package `pgbouncer`); null when it is not installed. */
export function pgbouncerBinary(): string | null {
  return existsSync("/usr/sbin/pgbouncer") ? "/usr/sbin/pgbouncer" : null;
}

export interface PgBouncer {
  /** `postgres://postgres@127.0.0.1:PORT/DATABASE` through the pooler. */
  url: string;
  stop(): Promise<void>;
}

/**
 * PgBouncer in transaction mode in front of one database of `cluster`, on a free loopback
 * port, with a small server pool (so that a client's statements land on different server
 * connections, as they do under load). Run as `postgres`, like the cluster.
 */
export async function startPgBouncer(cluster: PostgresCluster, database: string): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  const bin = postgresBinaries();
  if (!binary || !bin) throw new Error("PgBouncer or PostgreSQL is not installed");
  const dir = mkdtempSync(join(tmpdir(), "stockd-pgbouncer-"));
  if (asRoot) chownSync(dir, Number(idOf("-u")), Number(idOf("-g")));
  const port = await freePort();
  const ini = join(dir, "pgbouncer.ini");
  writeFileSync(
    ini,
    [
      "[databases]",
      `${database} = host=127.0.0.1 port=${cluster.port} dbname=${database} user=postgres`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = any",
      "pool_mode = transaction",
      "default_pool_size = 4",
      "max_client_conn = 500",
      "ignore_startup_parameters = extra_float_digits,options,application_name",
      `logfile = ${join(dir, "pgbouncer.log")}`,
      `pidfile = ${join(dir, "pgbouncer.pid")}`,
    ].join("\n"),
  );
  const proc = Bun.spawn(asPostgres([binary, ini]), { stdout: "ignore", stderr: "pipe" });
  await ready(bin, port, dir);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/${database}`,
    async stop() {
      // SIGTERM by its pid file (runuser does not pass it on): an immediate shutdown.
      try {
        process.kill(Number(readFileSync(join(dir, "pgbouncer.pid"), "utf8").trim()), "SIGTERM");
      } catch {}
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function idOf(flag: "-u" | "-g"): string {
  return Bun.spawnSync(["id", flag, "postgres"]).stdout.toString().trim();
}

/**
 * A fast shutdown: SIGINT to the postmaster by the pid in its data directory (runuser, its
 * parent here, does not pass every signal on); nothing when it is gone already.
 */
function shutDown(data: string): void {
  try {
    const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    if (Number.isSafeInteger(pid) && pid > 0) process.kill(pid, "SIGINT");
  } catch {}
}

/**
 * A crash of the whole server, as a machine losing power sees it: the postmaster and every
 * backend it started SIGKILLed at once. (A postmaster killed alone leaves backends that hold
 * its shared memory and may still commit, and the next postmaster refuses to start until
 * they are gone.)
 */
function crash(data: string): void {
  const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return;
  const backends = readdirSync("/proc").filter((entry) => /^[0-9]+$/.test(entry) && parentOf(entry) === pid);
  for (const each of [pid, ...backends.map(Number)]) {
    try {
      process.kill(each, "SIGKILL");
    } catch {}
  }
}

/** A process's parent pid, from `/proc/PID/stat` (0 when it is gone). */
function parentOf(pid: string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return 0;
  }
}

/** Waits (up to 20 s) until the server accepts connections. */
async function ready(bin: string, port: number, socketDir: string): Promise<void> {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    const probe = Bun.spawnSync([join(bin, "pg_isready"), "-h", "127.0.0.1", "-p", String(port), "-q"]);
    if (probe.exitCode === 0) return;
    await Bun.sleep(50);
  }
  throw new Error(`PostgreSQL did not start on port ${port} (socket dir ${socketDir})`);
}
