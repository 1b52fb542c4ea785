/**
 * `doctor` and the daemon's setup status for Slack: the credential each
 * transport needs, and Slack's own answer — auth.test's team and bot, a
 * refused token, the OAuth scopes the token lacks (x-oauth-scopes).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawnCli } from "../fakes/daemon-process.js";
import { FakeSlackApi } from "../fakes/slack-api.js";
import { ALL_SCOPES } from "../fakes/slack-state.js";

let home: string;
let slack: FakeSlackApi;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "hermes-slack-doctor-"));
  slack = new FakeSlackApi();
  await slack.start();
});

afterEach(async () => {
  await slack.close();
  await rm(home, { recursive: true, force: true });
});

async function doctor(env: Record<string, string>): Promise<string> {
  const d = spawnCli(["doctor"], { HERMES_HOME: home, SLACK_API_URL: slack.apiUrl, ...env });
  await d.exited;
  return d.stdout();
}

describe("doctor for Slack", () => {
  it("names the team and the bot auth.test reports, and the transport", async () => {
    const out = await doctor({ SLACK_BOT_TOKEN: slack.botToken, SLACK_APP_TOKEN: slack.appToken, SLACK_ALLOWED_USERS: "U0ALICE" });
    expect(out).toMatch(/✓ platform slack +Socket Mode; 1 allowlisted user\(s\)/);
    expect(out).toMatch(/✓ slack api +team Fake Team \(T0FAKE\), bot @hermes \(U0BOT\), Socket Mode/);
    expect(slack.callsTo("auth.test")).toHaveLength(1);
  });

  it("says Socket Mode lacks an app token, and HTTP events the signing secret", async () => {
    expect(await doctor({ SLACK_BOT_TOKEN: slack.botToken })).toMatch(/✗ platform slack +Socket Mode needs an app-level token: set SLACK_APP_TOKEN/);
    expect(await doctor({ SLACK_BOT_TOKEN: slack.botToken, SLACK_TRANSPORT: "http" })).toMatch(
      /✗ platform slack +HTTP events need the app's signing secret: set SLACK_SIGNING_SECRET/,
    );
  });

  it("names the scopes the token lacks", async () => {
    slack.state.scopes = ALL_SCOPES.filter((s) => s !== "files:write" && s !== "reactions:write");
    const out = await doctor({ SLACK_BOT_TOKEN: slack.botToken, SLACK_APP_TOKEN: slack.appToken });
    expect(out).toMatch(/✗ slack api +the bot token lacks reactions:write \(the working reaction\), files:write \(files the agent sends\)/);
  });

  it("reports a token Slack refuses", async () => {
    const out = await doctor({ SLACK_BOT_TOKEN: "xoxb-revoked", SLACK_APP_TOKEN: slack.appToken });
    expect(out).toMatch(/✗ slack api +Slack auth\.test failed: invalid_auth/);
  });

  it("says nothing to Slack when Slack is not configured", async () => {
    const out = await doctor({});
    expect(out).toMatch(/· platform slack +not configured/);
    expect(out).not.toContain("slack api");
    expect(slack.calls).toHaveLength(0);
  });
});
