/**
 * The daemon's surroundings for the Discord benchmark: the fake Discord (one
 * guild with extra free-response channels and bench users), an instant fake
 * LLM, the config.yaml and env that point the built daemon at them, and one
 * turn as a user sees it: a message posted → the reply that carries its token.
 */
import { stringify } from "yaml";
import { FakeDiscord } from "../test/fakes/discord-api.js";
import { ChannelKind, type DUser, user } from "../test/fakes/discord-objects.js";
import { GUILD_ID } from "../test/fakes/discord-state.js";
import { type FakeLlmServer, type FakeRequest, startFakeLlmServer } from "../test/fakes/llm-server.js";
import type { Cleanup } from "./daemon-harness.js";
import { lastUserText, TOKEN } from "./daemon-world.js";

export interface DiscordWorld {
  readonly discord: FakeDiscord;
  readonly llm: FakeLlmServer;
  readonly users: readonly DUser[];
  /** Free-response text channels (no mention needed), one per burst chat. */
  readonly channels: readonly string[];
  /** performance.now() when the fake LLM received the request for each load token. */
  readonly llmMarks: Map<string, number>;
}

export async function startDiscordWorld(cleanup: Cleanup, opts: { users: number; channels: number }): Promise<DiscordWorld> {
  const discord = new FakeDiscord();
  await discord.start();
  cleanup.add("close the fake Discord", () => discord.close());
  const llm = await startFakeLlmServer();
  cleanup.add("close the fake LLM", () => llm.close());
  const llmMarks = new Map<string, number>();
  llm.respondWith((req: FakeRequest) => {
    const text = lastUserText(req);
    const token = TOKEN.exec(text)?.[0];
    if (token) llmMarks.set(token, performance.now());
    return { text: `re: ${text}` };
  });
  const users = Array.from({ length: opts.users }, (_, i) => user(String(600_000_000_000_000_000n + BigInt(i)), `u${i}`));
  for (const u of users) {
    discord.state.users.set(u.id, u);
    discord.state.members.set(u.id, []);
  }
  const channels = Array.from({ length: opts.channels }, (_, i) => {
    const id = String(830_000_000_000_000_000n + BigInt(i));
    discord.state.channels.set(id, { id, type: ChannelKind.GuildText, name: `bench-${i}`, guild_id: GUILD_ID, last_message_id: null });
    return id;
  });
  return { discord, llm, users, channels, llmMarks };
}

export function discordConfigYaml(w: DiscordWorld, gateway: Record<string, unknown> = {}): string {
  const discord = { allow_all_users: true, free_response_channels: [...w.channels], auto_thread: false };
  return stringify({
    model: { provider: "custom", base_url: w.llm.openaiBaseUrl, model: "fake-model", request_timeout_s: 30 },
    gateway: { drain_timeout_s: 2, busy_input_mode: "queue", busy_ack: false, ...gateway, platforms: { discord } },
  });
}

export function discordEnv(w: DiscordWorld): Record<string, string> {
  return { DISCORD_BOT_TOKEN: w.discord.token, DISCORD_API_URL: w.discord.apiUrl };
}

export interface DiscordTurn {
  readonly token: string;
  /** Message posted → its model request at the fake LLM. */
  readonly llmMs: number;
  /** Message posted → the reply carrying its token at the fake Discord. */
  readonly replyMs: number;
}

/** Posts `token` as `author` in `channelId` and resolves once the reply that carries it arrives. */
export async function discordTurn(w: DiscordWorld, author: DUser, channelId: string, token: string, timeoutMs = 60_000): Promise<DiscordTurn> {
  let repliedAt = 0;
  const mine = new RegExp(`${token}(?!\\d)`);
  const reply = w.discord.waitFor((c) => {
    if (
      !(c.route === "POST /channels/:id/messages" || c.route === "PATCH /channels/:id/messages/:id") ||
      c.params[0] !== channelId ||
      !mine.test(String(c.body.content ?? ""))
    )
      return false;
    repliedAt ||= performance.now();
    return true;
  }, timeoutMs);
  const pushedAt = performance.now();
  w.discord.say(author, channelId, token);
  await reply;
  const llmAt = w.llmMarks.get(token) ?? Number.NaN;
  w.llmMarks.delete(token);
  return { token, llmMs: llmAt - pushedAt, replyMs: repliedAt - pushedAt };
}

/** The DM channel the fake keeps for `u` (created on first use). */
export function dmOf(w: DiscordWorld, u: DUser): string {
  return w.discord.state.dmChannel(u).id;
}

/** How many of the bot's messages (as they read now, in `channels`) carry each token. */
export function repliesPerToken(w: DiscordWorld, channels: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const ch of channels) {
    for (const m of w.discord.state.list(ch)) {
      if (m.author.id !== w.discord.state.bot.id) continue;
      for (const t of m.content.match(new RegExp(TOKEN.source, "g")) ?? []) counts.set(t, (counts.get(t) ?? 0) + 1);
    }
  }
  return counts;
}

/** The fake's record of calls grows with every turn: dropped between phases. */
export function trimDiscordRecords(w: DiscordWorld): void {
  w.discord.calls.splice(0, w.discord.calls.length);
  const reqs = w.llm.requests as FakeRequest[];
  reqs.splice(0, reqs.length);
}
