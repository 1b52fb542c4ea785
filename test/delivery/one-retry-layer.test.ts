/**
 * One retry layer per outbound call: a reply the gateway sends (Egress) is
 * tried by the platform's adapter — its scheduler, or its SDK's own queue for
 * rate limits — and by nothing above it. Each failing send here goes through
 * the real Egress, the real adapter and the real SDK client against the
 * platform's fake, and the fake counts the requests: exactly the documented
 * number of attempts, never that number times another layer's.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_TIMING as DISCORD_DEFAULTS } from "../../adapters/discord/options.js";
import { DEFAULT_TIMING as SLACK_DEFAULTS } from "../../adapters/slack/options.js";
import { DEFAULT_TIMING as TELEGRAM_DEFAULTS } from "../../adapters/telegram/options.js";
import type { Adapter, ChatRef } from "../../adapters/types.js";
import type { Egress } from "../../gateway/runtime/egress.js";
import { type Harness as DiscordHarness, GENERAL_CHAT, startHarness as startDiscord } from "../discord/harness.js";
import { egressOver as rig } from "../fakes/dispatch-log.js";
import { CHANNEL } from "../fakes/slack-events.js";
import { type Harness as SlackHarness, startHarness as startSlack } from "../slack/harness.js";
import { startHarness as startTelegram, type Harness as TelegramHarness } from "../telegram/harness.js";

let close: (() => Promise<void>) | undefined;
let closeStore: (() => void) | undefined;
afterEach(async () => {
  await close?.();
  closeStore?.();
  close = undefined;
  closeStore = undefined;
});

function egressOver(adapter: Adapter): Egress {
  const r = rig(adapter);
  closeStore = r.close;
  return r.egress;
}

describe("Telegram: the adapter's scheduler is the one layer", () => {
  const DM: ChatRef = { platform: "telegram", chatId: "42", chatType: "dm" };
  let h: TelegramHarness;
  const setup = async (timing: { requestTimeoutS?: number } = {}): Promise<Egress> => {
    h = await startTelegram({ timing });
    close = () => h.close();
    return egressOver(h.adapter);
  };
  const statuses = () => h.fake.callsTo("sendMessage").map((c) => c.status);

  it("a send answered 500 every time is tried sendMaxAttempts times in all", async () => {
    const egress = await setup();
    h.fake.fail("sendMessage", { kind: "error", code: 500, description: "Internal Server Error" }, { times: 100 });
    expect((await egress.send(DM, { text: "hello" }, "k-500")).status).toBe("failed");
    expect(statuses()).toEqual(Array.from({ length: TELEGRAM_DEFAULTS.sendMaxAttempts }, () => 500));
  });

  it("a send whose connection drops every time is tried sendMaxAttempts times in all", async () => {
    const egress = await setup();
    h.fake.fail("sendMessage", { kind: "drop" }, { times: 100 });
    expect((await egress.send(DM, { text: "hello" }, "k-drop")).status).toBe("failed");
    expect(h.fake.callsTo("sendMessage")).toHaveLength(TELEGRAM_DEFAULTS.sendMaxAttempts);
  });

  it("a 429 is waited out (retry_after) without counting as an attempt, and nothing is sent inside the window", async () => {
    const egress = await setup();
    h.fake.fail("sendMessage", { kind: "error", code: 429, description: "Too Many Requests: retry after 1", retryAfter: 1 });
    h.fake.fail("sendMessage", { kind: "error", code: 500, description: "Internal Server Error" }, { times: 100 });
    expect((await egress.send(DM, { text: "hello" }, "k-429")).status).toBe("failed");
    expect(statuses()).toEqual([429, ...Array.from({ length: TELEGRAM_DEFAULTS.sendMaxAttempts }, () => 500)]);
    const [limited, next] = h.fake.callsTo("sendMessage");
    expect((next?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(1000 - 60);
  });

  it("a send whose answer was lost (uncertain) is tried once", async () => {
    const egress = await setup({ requestTimeoutS: 1 });
    h.fake.fail("sendMessage", { kind: "no-answer" });
    expect((await egress.send(DM, { text: "maybe posted" }, "k-lost")).status).toBe("uncertain");
    expect(h.fake.callsTo("sendMessage")).toHaveLength(1);
  });
});

describe("Discord: discord.js waits out rate limits, the adapter retries transient failures, nothing above", () => {
  /** Not the default, so a layer that ignored the setting would show. */
  const ATTEMPTS = 4;
  let h: DiscordHarness;
  const setup = async (timing: { requestTimeoutMs?: number } = {}): Promise<Egress> => {
    h = await startDiscord({ timing: { sendMaxAttempts: ATTEMPTS, ...timing } });
    close = () => h.close();
    return egressOver(h.adapter);
  };
  const posts = () => h.fake.callsTo("POST /channels/:id/messages");

  it("a message create answered 502 every time is tried sendMaxAttempts times in all", async () => {
    const egress = await setup();
    h.fake.fail("POST /channels/:id/messages", { kind: "error", status: 502, message: "Bad Gateway" }, { times: 100 });
    expect((await egress.send(GENERAL_CHAT, { text: "hello" }, "k-502")).status).toBe("failed");
    expect(posts().map((c) => c.status)).toEqual(Array.from({ length: ATTEMPTS }, () => 502));
    expect(ATTEMPTS).not.toBe(DISCORD_DEFAULTS.sendMaxAttempts);
  });

  it("a create whose connection drops every time is tried sendMaxAttempts times; one whose answer was lost, once", async () => {
    const egress = await setup({ requestTimeoutMs: 400 });
    h.fake.fail("POST /channels/:id/messages", { kind: "drop" }, { times: ATTEMPTS });
    expect((await egress.send(GENERAL_CHAT, { text: "hello" }, "k-drop")).status).toBe("failed");
    expect(posts()).toHaveLength(ATTEMPTS);
    h.fake.fail("POST /channels/:id/messages", { kind: "no-answer" });
    expect((await egress.send(GENERAL_CHAT, { text: "maybe posted" }, "k-lost")).status).toBe("uncertain");
    expect(posts()).toHaveLength(ATTEMPTS + 1);
  });

  it("a 429 is waited out by discord.js and then sent: two requests", async () => {
    const egress = await setup();
    h.fake.fail("POST /channels/:id/messages", { kind: "error", status: 429, retryAfterS: 0.3 });
    expect((await egress.send(GENERAL_CHAT, { text: "after the limit" }, "k-429")).status).toBe("sent");
    expect(posts().map((c) => c.status)).toEqual([429, 200]);
  });
});

describe("Slack: the Web API client waits out rate limits, the scheduler retries transient failures, nothing above", () => {
  const thread: ChatRef = { platform: "slack", chatId: CHANNEL, chatType: "group", threadId: "1700000000.000001" };
  let h: SlackHarness;
  const setup = async (): Promise<Egress> => {
    h = await startSlack({ timing: { rateLimitRetries: 1 } });
    close = () => h.close();
    return egressOver(h.adapter);
  };
  const posts = () => h.fake.callsTo("chat.postMessage");

  it("a post answered 500 every time is tried sendMaxAttempts times in all", async () => {
    const egress = await setup();
    h.fake.fail("chat.postMessage", { kind: "http", status: 500 }, { times: 100 });
    expect((await egress.send(thread, { text: "hello" }, "k-500")).status).toBe("failed");
    expect(posts().map((c) => c.status)).toEqual(Array.from({ length: SLACK_DEFAULTS.sendMaxAttempts }, () => 500));
  });

  it("a post rate limited every time is tried once plus rateLimitRetries, each after its Retry-After", async () => {
    const egress = await setup();
    h.fake.fail("chat.postMessage", { kind: "ratelimit", retryAfter: 1 }, { times: 100 });
    expect((await egress.send(thread, { text: "hello" }, "k-429")).status).toBe("failed");
    const [first, second, ...rest] = posts();
    expect([first?.status, second?.status, rest.length]).toEqual([429, 429, 0]);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1000 - 60);
  });
});
