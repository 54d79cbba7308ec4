import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, SETTINGS } from "../../src/config.ts";
import { main } from "../../src/index.ts";
import { tempDir } from "../helpers/env.ts";

const TOKEN = "metrics-token-0123456789";

/** Runs the CLI with a fixed environment; returns the exit code and what it printed. */
async function run(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) }, env);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("configuration sources", () => {
  test("defaults apply with no flag, variable or file", () => {
    const cwd = tempDir();
    const config = loadConfig({}, {}, cwd);
    expect(config).toMatchObject({
      dataDir: join(cwd, "data"),
      host: "127.0.0.1",
      port: 8080,
      logLevel: "info",
      metricsToken: null,
      configFile: null,
    });
  });

  test("a flag beats the environment, which beats the file, which beats the default", () => {
    const cwd = tempDir();
    writeFileSync(
      join(cwd, "stockd.toml"),
      `port = 7000\nhost = "0.0.0.0"\nlog_level = "debug"\nmetrics_token = "${TOKEN}"\n`,
    );
    const env = { PORT: "7001", STOCKD_LOG_LEVEL: "warn" };
    const all = loadConfig({ port: "7002", logLevel: "error" }, env, cwd);
    expect(all.port, "the flag wins").toBe(7002);
    expect(all.logLevel, "the flag wins").toBe("error");
    expect(all.host, "only the file sets host").toBe("0.0.0.0");
    expect(all.metricsToken, "only the file sets the token").toBe(TOKEN);
    expect(all.configFile).toBe(join(cwd, "stockd.toml"));
    const noFlags = loadConfig({}, env, cwd);
    expect(noFlags.port, "the environment beats the file").toBe(7001);
    expect(noFlags.logLevel, "the environment beats the file").toBe("warn");
    const fileOnly = loadConfig({}, {}, cwd);
    expect([fileOnly.port, fileOnly.logLevel], "the file beats the defaults").toEqual([7000, "debug"]);
  });

  test("an empty environment variable counts as unset", () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "stockd.toml"), "port = 7000\n");
    expect(loadConfig({}, { PORT: "", STOCKD_METRICS_TOKEN: "" }, cwd).port).toBe(7000);
  });

  test("stockd.toml in the data dir is preferred to the one in the working dir", () => {
    const cwd = tempDir();
    const dataDir = join(cwd, "d");
    mkdirSync(dataDir);
    writeFileSync(join(cwd, "stockd.toml"), "port = 7000\n");
    writeFileSync(join(dataDir, "stockd.toml"), "port = 7100\n");
    const config = loadConfig({ dataDir }, {}, cwd);
    expect(config.port).toBe(7100);
    expect(config.configFile).toBe(join(dataDir, "stockd.toml"));
  });

  test("--config reads JSON; a relative data_dir in it is relative to the file", () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, "etc"));
    writeFileSync(
      join(cwd, "etc", "stockd.json"),
      JSON.stringify({ data_dir: "../var/stockd", port: "9000" }),
    );
    const config = loadConfig({ config: "etc/stockd.json" }, {}, cwd);
    expect(config.dataDir).toBe(join(cwd, "var", "stockd"));
    expect(config.port).toBe(9000);
  });

  test("STOCKD_CONFIG names the file like --config", () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "other.toml"), 'log_level = "error"\n');
    expect(loadConfig({}, { STOCKD_CONFIG: "other.toml" }, cwd).logLevel).toBe("error");
  });
});

describe("bad settings: exit 2 naming the setting and its source", () => {
  const cases: [string, (dir: string) => { argv: string[]; env?: Record<string, string> }, RegExp][] = [
    [
      "a bad value in the file names the file and the key",
      (dir) => {
        writeFileSync(join(dir, "stockd.toml"), 'port = "eighty"\n');
        return { argv: [] };
      },
      /stockd\.toml: port: expected an integer from 0 to 65535, got "eighty"/,
    ],
    [
      "an unknown key in the file is named",
      (dir) => {
        writeFileSync(join(dir, "stockd.toml"), "prot = 8080\n");
        return { argv: [] };
      },
      /stockd\.toml: prot: unknown setting/,
    ],
    [
      "a file that is not TOML is named",
      (dir) => {
        writeFileSync(join(dir, "stockd.toml"), "port = = 1\n");
        return { argv: [] };
      },
      /stockd\.toml: not valid TOML/,
    ],
    [
      "a bad variable is named",
      () => ({ argv: [], env: { STOCKD_LOG_LEVEL: "loud" } }),
      /STOCKD_LOG_LEVEL: expected one of debug, info, warn, error, silent, got "loud"/,
    ],
    ["a bad flag is named", () => ({ argv: ["--port", "99999"] }), /--port: expected an integer/],
    [
      "a bad --log-level is named",
      () => ({ argv: ["--log-level", "chatty"] }),
      /--log-level: expected one of/,
    ],
    [
      "a missing --config file is named",
      () => ({ argv: ["--config", "/nonexistent/x.toml"] }),
      /--config: no file/,
    ],
  ];
  for (const [name, setup, message] of cases) {
    test(name, async () => {
      const dir = tempDir();
      const { argv, env } = setup(dir);
      const result = await run(["snapshots", "list", "--data-dir", dir, ...argv], env);
      expect(result.code, result.err).toBe(2);
      expect(result.err).toMatch(message);
    });
  }

  test("a short metrics token is refused without printing it", async () => {
    const dir = tempDir();
    const result = await run(["snapshots", "list", "--data-dir", dir], { STOCKD_METRICS_TOKEN: "hunter2" });
    expect(result.code).toBe(2);
    expect(result.err).toContain("STOCKD_METRICS_TOKEN: expected 16 to 200 printable ASCII characters");
    expect(result.err).not.toContain("hunter2");
  });

  test("a Redis URL that is not redis:// or rediss:// is refused without printing it; the replicas are a positive integer", () => {
    const dir = tempDir();
    const message = (env: Record<string, string>) => {
      try {
        loadConfig({}, env, dir);
        return "";
      } catch (error) {
        return String(error);
      }
    };
    const refused = message({ STOCKD_REDIS_URL: "http://user:s3cret@cache:6379" });
    expect(refused).toContain("STOCKD_REDIS_URL: expected a redis://");
    expect(refused).not.toContain("s3cret");
    expect(message({ STOCKD_RATE_LIMIT_REPLICAS: "0" })).toContain(
      "STOCKD_RATE_LIMIT_REPLICAS: expected a positive integer",
    );
    const config = loadConfig(
      {},
      { STOCKD_REDIS_URL: "rediss://:pw@cache:6380", STOCKD_RATE_LIMIT_REPLICAS: "3" },
      dir,
    );
    expect(config.rateSharing).toEqual({ replicas: 3, redisUrl: "rediss://:pw@cache:6380" });
    expect(loadConfig({}, {}, dir).rateSharing).toEqual({ replicas: 1, redisUrl: null });
  });

  test("the config file in the data dir may not move the data dir", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "stockd.toml"), 'data_dir = "/elsewhere"\n');
    const result = await run(["snapshots", "list", "--data-dir", dir]);
    expect(result.code).toBe(2);
    expect(result.err).toContain("stockd.toml: data_dir: cannot be set");
  });

  test("good settings from every source let the command run", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "stockd.toml"), `metrics_token = "${TOKEN}"\nlog_level = "warn"\n`);
    const result = await run(["snapshots", "list", "--json", "--data-dir", dir, "--log-level", "debug"], {
      PORT: "8181",
    });
    expect(result.code, result.err).toBe(0);
    expect(JSON.parse(result.out)).toEqual({ active: null, snapshots: [] });
  });
});

test("docs/operations.md's configuration table documents every setting (file key, flag, variable)", () => {
  const operations = readFileSync(join(import.meta.dir, "../../docs/operations.md"), "utf8");
  const section = operations.slice(operations.indexOf("## Configuration"));
  for (const [key, setting] of Object.entries(SETTINGS)) {
    const row = section.split("\n").find((line) => line.startsWith("|") && line.includes(`\`${key}\``));
    expect(row, `a table row for ${key}`).toBeDefined();
    expect(row).toContain(`\`${setting.env}\``);
    if (setting.flag)
      expect(row).toContain(`\`--${setting.flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}\``);
  }
});
