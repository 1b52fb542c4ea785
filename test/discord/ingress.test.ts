/**
 * Who triggers the bot, and how messages arrive: the real discord.js client
 * against the fake Discord, delivering to a recording sink.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { InboundMessage } from "../../adapters/types.js";
import { ADA, BOB, BOT, BOT_ROLE, CAROL, GENERAL, MODS_ROLE, OTHER_BOT, RANDOM } from "../fakes/discord-state.js";
import { type Harness, sleepMs, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const mention = `<@${BOT.id}>`;
const messages = (): InboundMessage[] => (h?.sink.committed ?? []).filter((e): e is InboundMessage => e.kind === "message");
const lastMessage = (): InboundMessage | undefined => messages().at(-1);

describe("Discord ingress", () => {
  it("connects as name#id and delivers a DM, addressed, in the DM chat", async () => {
    h = await startHarness();
    expect(h.adapter.health()).toMatchObject({ state: "connected", detail: `as hermes#${BOT.id}` });
    const m = h.fake.dm(ADA, "hello there");
    await h.sink.until(() => messages().length === 1);
    const e = lastMessage();
    expect(e).toMatchObject({
      eventId: m.id,
      messageId: m.id,
      text: "hello there",
      addressed: true,
      chat: { platform: "discord", chatType: "dm", chatId: m.channel_id },
    });
    expect(e?.sender).toMatchObject({ userId: ADA.id, displayName: "Ada", isBot: false });
  });

  it("in a server channel: unaddressed chatter is delivered unaddressed, per channel as a group", async () => {
    h = await startHarness();
    h.fake.say(ADA, GENERAL, "just chatting");
    await h.sink.until(() => messages().length === 1);
    expect(lastMessage()).toMatchObject({ addressed: false, chat: { chatType: "group", chatId: GENERAL }, text: "just chatting" });
  });

  it("a mention opens a thread: the message is delivered to the thread-to-be, with the mention removed", async () => {
    h = await startHarness();
    const m = h.fake.say(ADA, GENERAL, `${mention} what is the weather on Mars?`);
    await h.sink.until(() => messages().length === 1);
    expect(lastMessage()).toMatchObject({
      addressed: true,
      text: "what is the weather on Mars?",
      chat: { chatType: "thread", chatId: GENERAL, threadId: m.id },
    });
    // Nothing is created until something is sent there.
    expect(h.fake.callsTo("POST /channels/:id/messages/:id/threads")).toHaveLength(0);
  });

  it("without auto_thread a mention is answered in the channel; role mentions of the bot count, other roles don't", async () => {
    h = await startHarness({ config: { auto_thread: false } });
    h.fake.say(ADA, GENERAL, `<@&${BOT_ROLE}> ping via role`);
    h.fake.say(ADA, GENERAL, `<@&${MODS_ROLE}> not for the bot`);
    await h.sink.until(() => messages().length === 2);
    const [viaRole, other] = messages();
    expect(viaRole).toMatchObject({ addressed: true, text: "ping via role", chat: { chatType: "group", chatId: GENERAL } });
    expect(other).toMatchObject({ addressed: false, text: "@mods not for the bot" });
  });

  it("a reply to the bot is addressed and carries the replied text; a free-response channel needs no mention", async () => {
    h = await startHarness({ config: { free_response_channels: [RANDOM] } });
    const bots = h.fake.state.post(GENERAL, BOT, { content: "I am the bot" });
    h.fake.say(BOB, GENERAL, "replying to you", { replyTo: bots.id });
    h.fake.say(BOB, RANDOM, "no mention needed here");
    await h.sink.until(() => messages().length === 2);
    const [reply, free] = messages();
    expect(reply).toMatchObject({ addressed: true, replyTo: { messageId: bots.id, fromBot: true, text: "I am the bot" }, chat: { chatType: "group" } });
    expect(free).toMatchObject({ addressed: true, chat: { chatType: "group", chatId: RANDOM } });
  });

  it("require_mention: false addresses every channel message, without opening threads", async () => {
    h = await startHarness({ config: { require_mention: false } });
    h.fake.say(ADA, GENERAL, "anyone?");
    await h.sink.until(() => messages().length === 1);
    expect(lastMessage()).toMatchObject({ addressed: true, chat: { chatType: "group" } });
  });

  it("carries the sender's roles for the gateway's role allowlist", async () => {
    h = await startHarness();
    h.fake.say(CAROL, GENERAL, `${mention} hi`);
    await h.sink.until(() => messages().length === 1);
    expect(lastMessage()?.sender.roles).toEqual([MODS_ROLE]);
  });

  it("ignores its own messages and other bots unless allow_bots says so", async () => {
    h = await startHarness();
    h.fake.say(OTHER_BOT, GENERAL, `${mention} bot talking`);
    h.fake.say(BOT, GENERAL, "my own message");
    h.fake.say(ADA, GENERAL, "a person");
    await h.sink.until(() => messages().length === 1);
    await sleepMs(100);
    expect(messages().map((e) => e.sender.userId)).toEqual([ADA.id]);
    await h.close();

    h = await startHarness({ config: { allow_bots: "mentions" } });
    h.fake.say(OTHER_BOT, GENERAL, "bot chatter");
    h.fake.say(OTHER_BOT, GENERAL, `${mention} bot asking`);
    await h.sink.until(() => messages().length === 1);
    await sleepMs(100);
    expect(messages()).toHaveLength(1);
    expect(lastMessage()).toMatchObject({ text: "bot asking", sender: { isBot: true } });
  });

  it("in a thread someone else started: a mention is needed until the bot has posted there", async () => {
    h = await startHarness();
    const starter = h.fake.say(ADA, GENERAL, "a topic");
    const thread = h.fake.state.startThread(GENERAL, starter.id, "a topic", ADA);
    h.fake.gateway.dispatch("THREAD_CREATE", {
      id: thread.id,
      type: 11,
      guild_id: thread.guild_id,
      parent_id: GENERAL,
      owner_id: ADA.id,
      name: "a topic",
      thread_metadata: { archived: false, auto_archive_duration: 1440, locked: false, archive_timestamp: new Date().toISOString() },
    });
    h.fake.say(BOB, thread.id, "chatter in the thread");
    h.fake.say(BOB, thread.id, `${mention} now you`);
    await h.sink.until(() => messages().length === 3);
    const [, chatter, mentioned] = messages();
    expect(chatter).toMatchObject({ addressed: false, chat: { chatType: "thread", chatId: GENERAL, threadId: thread.id } });
    expect(mentioned).toMatchObject({ addressed: true, text: "now you", chat: { chatType: "thread", threadId: thread.id } });
    await h.adapter.send(mentioned!.chat, { text: "here I am" });
    h.fake.say(BOB, thread.id, "no mention needed any more");
    await h.sink.until(() => messages().length === 4);
    expect(lastMessage()).toMatchObject({ addressed: true, text: "no mention needed any more" });
    // A thread already there is posted into, not created again.
    expect(h.fake.callsTo("POST /channels/:id/messages/:id/threads")).toHaveLength(0);
  });

  it("keeps one channel's messages in order", async () => {
    h = await startHarness();
    for (let i = 0; i < 10; i++) h.fake.dm(ADA, `message ${i}`);
    await h.sink.until(() => messages().length === 10);
    expect(messages().map((e) => e.text)).toEqual(Array.from({ length: 10 }, (_, i) => `message ${i}`));
  });
});
