/**
 * `hermes-gateway setup` against the fake LLM server and the platforms' fakes:
 * one real provider request, tokens checked live, the owner allowlisted,
 * config.yaml and .env edited in place (comments kept, secrets only in .env,
 * mode 0600), nothing written when a check fails; scripted and interactive.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../config/index.js";
import { setupCommand } from "../../gateway/cli/setup.js";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";
import { startFakeDiscordIdentity, startFakeSlackAuth } from "../fakes/setup-platform-fakes.js";
import { FakeTelegramApi } from "../fakes/telegram-api.js";
import { captureIo } from "./helpers.js";

const DISCORD_TOKEN = "MTEwMDAw.discord-token.for-setup-tests";
const SLACK_BOT = "xoxb-1-2-setup-test";
const SLACK_APP = "xapp-1-A0-setup-test";
const MODEL_KEY = "sk-local-setup-test-key";

let home: string;
let llm: FakeLlmServer;
let tg: FakeTelegramApi;
let discord: Awaited<ReturnType<typeof startFakeDiscordIdentity>>;
let slack: Awaited<ReturnType<typeof startFakeSlackAuth>>;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "hermes-setup-"));
  llm = await startFakeLlmServer({ acceptKeys: [MODEL_KEY] });
  llm.respondWith(() => ({ text: "ready" }));
  tg = new FakeTelegramApi();
  await tg.start();
  discord = await startFakeDiscordIdentity({ token: DISCORD_TOKEN, ownerId: "1200000000000000777" });
  slack = await startFakeSlackAuth({ botToken: SLACK_BOT });
});

afterEach(async () => {
  await Promise.all([llm.close(), tg.close(), discord.close(), slack.close()]);
  await rm(home, { recursive: true, force: true });
});

function env(): Record<string, string> {
  return { HERMES_HOME: home, HOME: home, TELEGRAM_API_ROOT: tg.apiRoot, DISCORD_API_URL: discord.apiUrl, SLACK_API_URL: slack.apiUrl, HERMES_HTTP_PORT: "9" };
}

async function setup(args: string[], answers?: string[], vars: Record<string, string> = env()) {
  const io = captureIo();
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (d: Buffer) => (shown += d.toString()));
  if (answers) input.end(answers.map((a) => `${a}\n`).join(""));
  else input.end();
  const code = await setupCommand(args, vars, io, { input, output });
  return { code, out: io.stdout(), err: io.stderr(), prompts: shown };
}

const read = (name: string) => readFile(join(home, name), "utf8");
const modeOf = async (name: string) => (await stat(join(home, name))).mode & 0o777;

const ALL_FLAGS = [
  "--non-interactive",
  "--provider",
  "custom",
  "--base-url",
  "", // set per test
  "--api-key",
  MODEL_KEY,
  "--model",
  "local-model",
  "--telegram-token",
  "", // set per test
  "--telegram-user",
  "4242",
  "--discord-token",
  DISCORD_TOKEN,
  "--slack-bot-token",
  SLACK_BOT,
  "--slack-app-token",
  SLACK_APP,
  "--slack-user",
  "U0OWNER",
];
const allFlags = () =>
  ALL_FLAGS.map((a, i) => (ALL_FLAGS[i - 1] === "--base-url" ? llm.openaiBaseUrl : ALL_FLAGS[i - 1] === "--telegram-token" ? tg.token : a));

describe("setup, scripted", () => {
  it("tests the provider with one request, checks every token live, writes config.yaml and .env (0600, secrets in .env only), then shows doctor", async () => {
    const r = await setup(allFlags());
    expect(r.err).toBe("");
    expect(r.code).toBe(0);

    // One real request, with the key.
    expect(llm.completions()).toHaveLength(1);
    expect(llm.completions()[0]?.apiKey).toBe(MODEL_KEY);
    expect(r.out).toMatch(/✓ provider custom: local-model answered in \d+ ms/);
    // Each platform asked once by setup, at the configured address; the doctor report that ends setup asks Discord
    // again for itself (Discord's bot user and the application's intents, Slack's auth.test).
    expect(tg.calls.map((c) => c.method)).toEqual(["getMe"]);
    expect(discord.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      "GET /api/v10/users/@me",
      "GET /api/v10/oauth2/applications/@me",
      "GET /api/v10/users/@me",
      "GET /api/v10/applications/@me",
    ]);
    expect(slack.calls.map((c) => `${c.method} ${c.path} ${c.authorization}`)).toEqual([
      `POST /api/auth.test Bearer ${SLACK_BOT}`,
      `POST /api/auth.test Bearer ${SLACK_BOT}`,
    ]);
    expect(r.out).toContain("✓ Telegram: the token is @hermes_bot's (id 999)");

    const yamlText = await read("config.yaml");
    for (const secret of [MODEL_KEY, tg.token, DISCORD_TOKEN, SLACK_BOT, SLACK_APP]) expect(yamlText).not.toContain(secret);
    expect(parse(yamlText)).toEqual({
      model: { provider: "custom", model: "local-model", base_url: llm.openaiBaseUrl, api_key: "${HERMES_MODEL_API_KEY}" },
      gateway: {
        platforms: {
          telegram: { allowed_users: ["4242"] },
          // Nobody was given: the application's owner, offered, is taken.
          discord: { allowed_users: ["1200000000000000777"] },
          slack: { allowed_users: ["U0OWNER"] },
        },
      },
    });
    expect(await read(".env")).toBe(
      [
        `HERMES_MODEL_API_KEY=${MODEL_KEY}`,
        `TELEGRAM_BOT_TOKEN=${tg.token}`,
        `DISCORD_BOT_TOKEN=${DISCORD_TOKEN}`,
        `SLACK_BOT_TOKEN=${SLACK_BOT}`,
        `SLACK_APP_TOKEN=${SLACK_APP}`,
        "",
      ].join("\n"),
    );
    expect(await modeOf(".env")).toBe(0o600);
    expect(await modeOf("config.yaml")).toBe(0o600);

    // What the daemon will load from the two files.
    const config = await loadConfig({ home, env: {} });
    expect(config.model.api_key).toBe(MODEL_KEY);
    expect(config.gateway.platforms.telegram).toMatchObject({ enabled: true, token: tg.token, allowed_users: ["4242"] });
    expect(config.gateway.platforms.slack).toMatchObject({ bot_token: SLACK_BOT, app_token: SLACK_APP });

    // Doctor's report ends the run.
    expect(r.out).toMatch(/✓ config +.*config\.yaml/);
    expect(r.out).toMatch(/✓ provider custom +model local-model/);
    expect(r.out).toMatch(/✓ platform telegram +1 allowlisted user/);
  });

  it("edits an existing setup in place: comments, other keys and other .env lines stay; an inline secret moves to .env", async () => {
    await writeFile(
      join(home, "config.yaml"),
      [
        "# my notes about this gateway",
        "agent:",
        "  max_turns: 50 # keep it short",
        "gateway:",
        "  platforms:",
        "    telegram:",
        "      token: 111:old-inline-token",
        "      enabled: false",
        "      allowed_users: [7]",
        "",
      ].join("\n"),
    );
    await writeFile(join(home, ".env"), "# keys\nOTHER_SETTING=1\nexport TELEGRAM_BOT_TOKEN=111:older\n");
    const r = await setup(["--non-interactive", "--telegram-token", tg.token, "--telegram-user", "4242"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(llm.completions()).toHaveLength(0); // no provider value given: no request

    const yamlText = await read("config.yaml");
    expect(yamlText).toContain("# my notes about this gateway");
    expect(yamlText).toContain("max_turns: 50 # keep it short");
    expect(yamlText).not.toContain("old-inline-token");
    expect(parse(yamlText).gateway.platforms.telegram).toEqual({ enabled: true, allowed_users: [7, "4242"] });
    expect(yamlText).toContain('allowed_users: [ 7, "4242" ]');
    expect(await read(".env")).toBe(`# keys\nOTHER_SETTING=1\nTELEGRAM_BOT_TOKEN=${tg.token}\n`);
    expect(r.out).toContain("gateway.platforms.telegram.token");

    // Running it again with the same values changes nothing.
    const again = await setup(["--non-interactive", "--telegram-token", tg.token, "--telegram-user", "4242"]);
    expect(again.code).toBe(0);
    expect(again.out).toContain("nothing to change");
    expect(await read("config.yaml")).toBe(yamlText);
  });

  it("writes nothing when a check fails, unless told to keep unverified values", async () => {
    const badToken = await setup(["--non-interactive", "--telegram-token", "123:wrong"]);
    expect(badToken.code).toBe(1);
    expect(badToken.err).toContain("✗ Telegram: Telegram refused the token: Unauthorized");
    expect(badToken.err).toContain("nothing was written");
    expect(badToken.err).not.toContain("123:wrong");
    expect(existsSync(join(home, "config.yaml")) || existsSync(join(home, ".env"))).toBe(false);

    const badKey = await setup(["--non-interactive", "--provider", "custom", "--base-url", llm.openaiBaseUrl, "--api-key", "sk-wrong", "--model", "m"]);
    expect(badKey.code).toBe(1);
    expect(badKey.err).toMatch(/✗ provider custom: .*/);
    expect(existsSync(join(home, ".env"))).toBe(false);

    const unreachable = await setup(["--non-interactive", "--discord-token", DISCORD_TOKEN]);
    expect(unreachable.code).toBe(0); // the fake answers: sanity check before the refused one
    await discord.close();
    const refused = await setup(["--non-interactive", "--slack-bot-token", "xoxb-wrong", "--keep-unverified"]);
    expect(refused.code).toBe(0);
    expect(refused.err).toContain("Slack refused the token: invalid_auth");
    expect(refused.err).toContain("saving this Slack token anyway (--keep-unverified)");
    expect(await read(".env")).toContain("SLACK_BOT_TOKEN=xoxb-wrong");
  });

  it("leaves a provider it does not configure alone unless told which one to set", async () => {
    const before = "model:\n  provider: myproxy\n  model: big-model\nproviders:\n  myproxy:\n    base_url: http://127.0.0.1:9/v1\n";
    await writeFile(join(home, "config.yaml"), before);
    const r = await setup(["--non-interactive", "--model", "other-model"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("the provider is myproxy, which setup does not configure: pass --provider");
    expect(await read("config.yaml")).toBe(before);
    expect(llm.completions()).toHaveLength(0);
  });

  it("says when a platform's API cannot be reached, naming the address and never the token", async () => {
    const vars = env();
    const root = tg.apiRoot;
    await tg.close();
    const r = await setup(["--non-interactive", "--telegram-token", "555:secret-part"], undefined, vars);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`could not reach ${root}: ECONNREFUSED`);
    expect(r.err).not.toContain("secret-part");
    tg = new FakeTelegramApi(); // for afterEach
    await tg.start();
  });

  it("refuses to edit an invalid configuration, and has --help", async () => {
    await writeFile(join(home, "config.yaml"), "agent:\n  max_turns: lots\n");
    const r = await setup(["--non-interactive"]);
    expect(r.code).toBe(78);
    expect(r.err).toContain("agent.max_turns (line 2)");
    const help = await setup(["--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("--telegram-token TOKEN");
    expect((await setup(["--frob"])).code).toBe(64);
  });
});

describe("setup, interactive", () => {
  it("asks each question, re-asks after a refused token, offers the Discord owner, and writes the answers", async () => {
    const r = await setup(
      [],
      [
        "custom", // provider
        llm.openaiBaseUrl, // server URL
        MODEL_KEY, // key
        "local-model", // model
        "999:refused", // Telegram token: refused …
        "n", // … not saved anyway
        tg.token, // a good one
        "4242", // Telegram user id
        DISCORD_TOKEN,
        "", // Discord user: Enter takes the offered owner
        "", // Slack bot token: skipped
      ],
    );
    expect(r.err).toContain("✗ Telegram: Telegram refused the token");
    expect(r.code).toBe(0);
    expect(r.prompts).toContain("Model provider (openrouter, openai, anthropic, custom) [openrouter]: ");
    expect(r.prompts).toContain("API key, if the server wants one (Enter: none): ");
    expect(r.prompts).toContain("Model: ");
    expect(r.prompts).toContain("Save this Telegram token anyway? (y/N): ");
    expect(r.prompts).toContain("Your Discord user id, allowlisted (Enter takes the application's owner) [1200000000000000777]: ");
    expect(r.prompts).not.toContain(MODEL_KEY);
    const config = parse(await read("config.yaml"));
    expect(config.gateway.platforms).toEqual({ telegram: { allowed_users: ["4242"] }, discord: { allowed_users: ["1200000000000000777"] } });
    expect(await read(".env")).toContain(`TELEGRAM_BOT_TOKEN=${tg.token}\n`);
    expect(await read(".env")).not.toContain("999:refused");
  });

  it("writes nothing when the input ends before every question is answered", async () => {
    const r = await setup([], ["custom", llm.openaiBaseUrl]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("setup cancelled");
    expect(existsSync(join(home, "config.yaml"))).toBe(false);
  });
});
