import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildConfig, ConfigError, collectSecrets, loadConfig } from "../../config/index.js";

const build = (yamlText: string, env: Record<string, string> = {}) => buildConfig({ yamlText, env, file: "config.yaml", home: "/h" });

function problemsOf(fn: () => unknown): { path: string; line?: number; message: string }[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return [...(err as ConfigError).problems];
  }
  throw new Error("expected a ConfigError");
}

describe("config defaults", () => {
  it("fills every section from the schema with nothing configured", () => {
    const c = build("");
    expect(c.agent.max_turns).toBe(90);
    expect(c.model.provider).toBe("openrouter");
    expect(c.gateway.http).toEqual({ host: "127.0.0.1", port: 8642 });
    expect(c.gateway.busy_input_mode).toBe("interrupt");
    expect(c.approvals).toMatchObject({ mode: "manual", timeout_s: 60, cron_mode: "deny" });
    expect(c.compression).toMatchObject({ enabled: true, threshold: 0.5, protect_last_n: 20 });
    expect(c.auxiliary.approval).toEqual({ extra_body: {} });
    expect(c.mcp.discovery_timeout_s).toBe(120);
    expect(c.gateway.platforms.telegram).toMatchObject({
      enabled: false,
      api_root: "https://api.telegram.org",
      transport: "polling",
      busy_input_mode: "interrupt",
    });
    expect(c.gateway.platforms.telegram.rate_limits).toEqual({ per_chat_per_s: 1, per_group_per_min: 20, global_per_s: 30 });
    expect(c.gateway.platforms.discord.require_mention).toBe(true);
    expect(c.logging).toEqual({ level: "info", format: "auto" });
    expect(c.home).toBe("/h");
  });

  it("is frozen all the way down", () => {
    const c = build("gateway:\n  allowed_users: [1]\n");
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.gateway.platforms.telegram.rate_limits)).toBe(true);
    expect(() => {
      (c.gateway.allowed_users as string[]).push("2");
    }).toThrow();
  });

  it("platform blocks inherit the gateway busy mode unless they set their own", () => {
    const c = build("gateway:\n  busy_input_mode: queue\n  platforms:\n    discord:\n      busy_input_mode: steer\n");
    expect(c.gateway.platforms.telegram.busy_input_mode).toBe("queue");
    expect(c.gateway.platforms.discord.busy_input_mode).toBe("steer");
  });
});

describe("config layering", () => {
  it("yaml overrides defaults, environment overrides yaml", () => {
    const yaml = "model:\n  provider: openai\n  model: gpt-5\ngateway:\n  http:\n    port: 9000\n";
    expect(build(yaml).gateway.http.port).toBe(9000);
    const c = build(yaml, {
      HERMES_HTTP_PORT: "9100",
      HERMES_MODEL: "gpt-5-mini",
      TELEGRAM_BOT_TOKEN: "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghi",
      TELEGRAM_ALLOWED_USERS: "1, 2 ,3",
    });
    expect(c.gateway.http.port).toBe(9100);
    expect(c.model).toMatchObject({ provider: "openai", model: "gpt-5-mini" });
    expect(c.gateway.platforms.telegram).toMatchObject({ enabled: true, allowed_users: ["1", "2", "3"] });
  });

  it("an explicit enabled: false wins over a present token", () => {
    const c = build("gateway:\n  platforms:\n    telegram:\n      enabled: false\n", { TELEGRAM_BOT_TOKEN: "1:x" });
    expect(c.gateway.platforms.telegram.enabled).toBe(false);
  });

  it("expands ${VAR} and ${VAR:-default} inside yaml values", () => {
    const c = build("providers:\n  custom:\n    base_url: http://${HOST}:${PORT:-8080}/v1\n    api_key: ${KEY}\n", { HOST: "llm.local", KEY: "k-123456" });
    expect(c.providers.custom?.base_url).toBe("http://llm.local:8080/v1");
    expect(c.providers.custom?.api_key).toBe("k-123456");
  });

  it("reports an unset ${VAR} with its path", () => {
    const problems = problemsOf(() => build("providers:\n  custom:\n    api_key: ${MISSING_KEY}\n"));
    expect(problems).toContainEqual(expect.objectContaining({ path: "providers.custom.api_key", message: expect.stringContaining("MISSING_KEY") }));
  });

  it("reads HERMES_HOME/config.yaml and .env, with the process environment winning", async () => {
    const home = await mkdtemp(join(tmpdir(), "hermes-cfg-"));
    try {
      await writeFile(join(home, "config.yaml"), "gateway:\n  platforms:\n    telegram:\n      token: ${TG_TOKEN}\n");
      await writeFile(join(home, ".env"), "TG_TOKEN=from-dotenv-1234\nHERMES_LOG_LEVEL=debug\n");
      const c = await loadConfig({ home, env: { HERMES_LOG_LEVEL: "warn" } });
      expect(c.gateway.platforms.telegram.token).toBe("from-dotenv-1234");
      expect(c.logging.level).toBe("warn");
      expect(c.configPath).toBe(join(home, "config.yaml"));
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it("an explicit --config path that does not exist is an error; a missing default file is not", async () => {
    const home = await mkdtemp(join(tmpdir(), "hermes-cfg-"));
    try {
      await expect(loadConfig({ home, env: {} })).resolves.toMatchObject({ configPath: null });
      await expect(loadConfig({ home, env: {}, configPath: join(home, "nope.yaml") })).rejects.toBeInstanceOf(ConfigError);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe("config errors", () => {
  it("lists every bad key with its YAML path and line", () => {
    const yaml = [
      "model:", //1
      "  provder: openai", //2
      "agent:", //3
      "  max_turns: 0", //4
      "gateway:", //5
      "  http:", //6
      "    port: not-a-port", //7
      "  busy_input_mode: sometimes", //8
      "  platforms:", //9
      "    telegram:", //10
      "      transport: carrier-pigeon", //11
      "mcp_servers:", //12
      "  both:", //13
      "    command: node", //14
      "    url: http://x", //15
      "bogus_section: 1", //16
    ].join("\n");
    const problems = problemsOf(() => build(yaml));
    const byPath = Object.fromEntries(problems.map((p) => [p.path, p.line]));
    expect(byPath).toMatchObject({
      "model.provder": 2,
      "agent.max_turns": 4,
      "gateway.http.port": 7,
      "gateway.busy_input_mode": 8,
      "gateway.platforms.telegram.transport": 11,
      "mcp_servers.both": 13,
      bogus_section: 16,
    });
    expect(problems).toHaveLength(7);
    const message = new ConfigError(problems, "config.yaml").message;
    expect(message).toContain("7 problems");
    expect(message).toContain("gateway.http.port (line 7)");
  });

  it("reports YAML syntax errors with a line", () => {
    const problems = problemsOf(() => build("model:\n  provider: [unclosed\n"));
    expect(problems[0]?.message).toMatch(/YAML syntax/);
    expect(problems[0]?.line).toBeGreaterThan(0);
  });

  it("rejects a top level that is not a mapping", () => {
    expect(problemsOf(() => build("- a\n- b\n"))[0]?.message).toMatch(/mapping/);
  });

  it("lists every invalid regular expression with its path and line", () => {
    const yaml = [
      "gateway:",
      "  platforms:",
      "    telegram:",
      "      mention_patterns:",
      "        - '^hermes\\b'",
      "        - '(unclosed'",
      "        - '[z-a]'",
    ].join("\n");
    const problems = problemsOf(() => build(yaml));
    expect(problems.map((p) => [p.path, p.line])).toEqual([
      ["gateway.platforms.telegram.mention_patterns.1", 6],
      ["gateway.platforms.telegram.mention_patterns.2", 7],
    ]);
    expect(problems[0]?.message).toMatch(/not a valid regular expression .*Unterminated group/);
    expect(
      build("gateway:\n  platforms:\n    telegram:\n      mention_patterns: ['^hermes\\b', '\\p{L}+bot']\n").gateway.platforms.telegram.mention_patterns,
    ).toHaveLength(2);
  });

  it("refuses a YAML alias bomb as a config problem, before it expands", () => {
    const names = "abcdefghi";
    const lines = [`a: &a [${Array(9).fill('"lol"').join(", ")}]`];
    for (let i = 1; i < names.length; i++)
      lines.push(
        `${names[i]}: &${names[i]} [${Array(9)
          .fill(`*${names[i - 1]}`)
          .join(", ")}]`,
      );
    const problems = problemsOf(() => build(lines.join("\n")));
    expect(problems).toEqual([{ path: "", message: expect.stringMatching(/YAML aliases expand too far/) }]);
    // A config that reuses a block a few times is fine.
    expect(build("providers:\n  a: &d {max_retries: 2}\n  b: *d\n  c: *d\n").providers.c?.max_retries).toBe(2);
  });
});

describe("secrets", () => {
  it("collects every value tagged secret, wherever it sits", () => {
    const c = build(
      "providers:\n  custom:\n    api_key: sk-custom-1\n    api_keys: [sk-pool-2]\n    headers:\n      X-Token: hdr-secret-3\nmcp_servers:\n  s:\n    command: x\n    env:\n      GITHUB_TOKEN: ghp-env-4\n",
      { TELEGRAM_BOT_TOKEN: "999:tg-secret-5", API_SERVER_KEY: "api-key-6" },
    );
    expect(collectSecrets(c).sort()).toEqual(["999:tg-secret-5", "api-key-6", "ghp-env-4", "hdr-secret-3", "sk-custom-1", "sk-pool-2"]);
  });
});
