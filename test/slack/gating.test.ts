/**
 * Who triggers the bot, and which session a message lands in, through the
 * real bolt app: every event below is acknowledged; only the ones meant for
 * the bot are delivered.
 */
import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { InboundMessage } from "../../adapters/types.js";
import { appMention, CHANNEL, DM_CHANNEL, type MessageEventOpts, mentionBot, messageEvent } from "../fakes/slack-events.js";
import { ALICE, BOT, type FakeMessage, fileShape, OTHER_BOT } from "../fakes/slack-state.js";
import { type Harness, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Sends the event and waits for its ack; resolves with what was delivered for it. */
async function push(event: Record<string, unknown>): Promise<InboundMessage | undefined> {
  const before = h!.sink.committed.length;
  const env = h!.fake.socket.pushEvent(event);
  await h!.fake.socket.until(() => Boolean(h!.fake.socket.acked(env.envelope_id)), "the ack");
  return h!.sink.committed.slice(before).find((e): e is InboundMessage => e.kind === "message");
}

const say = (channel: string, text: string, threadTs?: string): FakeMessage => h!.fake.state.addUserMessage(channel, ALICE, text, threadTs);
const event = (m: FakeMessage, opts?: MessageEventOpts) => messageEvent(m, opts);

describe("who triggers the bot", () => {
  it("answers every DM, each top-level DM message in its own thread session", async () => {
    h = await startHarness();
    const m = say(DM_CHANNEL, "hi there");
    const got = await push(event(m));
    expect(got).toMatchObject({
      chat: { chatId: DM_CHANNEL, chatType: "dm", threadId: m.ts },
      text: "hi there",
      sender: { userId: ALICE.id, displayName: "alice" },
      addressed: true,
    });
  });

  it("keeps one DM session when dm_top_level_threads_as_sessions is off", async () => {
    h = await startHarness({ config: { dm_top_level_threads_as_sessions: false } });
    const got = await push(event(say(DM_CHANNEL, "hi there")));
    expect(got?.chat.threadId).toBeUndefined();
  });

  it("in a channel answers a mention, in the mention's thread, without the mention in the text", async () => {
    h = await startHarness();
    expect(await push(event(say(CHANNEL, "just chatting")))).toBeUndefined();
    const m = say(CHANNEL, mentionBot("what is the time?"));
    const got = await push(appMention(m));
    expect(got).toMatchObject({ eventId: `${CHANNEL}:${m.ts}`, chat: { chatType: "group", threadId: m.ts }, text: "what is the time?" });
  });

  it("answers a channel mention in the channel itself with reply_in_thread off", async () => {
    h = await startHarness({ config: { reply_in_thread: false } });
    const got = await push(event(say(CHANNEL, mentionBot("hello"))));
    expect(got?.chat.threadId).toBeUndefined();
  });

  it("reads replies in a thread the bot is in without a mention, and not in other threads", async () => {
    h = await startHarness();
    const mine = say(CHANNEL, "a question for everyone");
    h.fake.state
      .history(CHANNEL)
      .push({ ...say(CHANNEL, "placeholder"), ts: h.fake.state.nextTs(), user: BOT.id, botId: BOT.botId, threadTs: mine.ts, text: "the bot answered here" });
    const inBotThread = await push(event(say(CHANNEL, "and a follow-up", mine.ts)));
    expect(inBotThread).toMatchObject({ chat: { threadId: mine.ts }, replyTo: { messageId: mine.ts } });
    const other = say(CHANNEL, "another topic");
    expect(await push(event(say(CHANNEL, "reply there", other.ts)))).toBeUndefined();
    // Each thread was looked up once; the answer is remembered.
    await push(event(say(CHANNEL, "one more", mine.ts)));
    expect(h.fake.callsTo("conversations.replies")).toHaveLength(2);
  });

  it("takes a thread in once the bot was mentioned there", async () => {
    h = await startHarness();
    const top = say(CHANNEL, mentionBot("start"));
    await push(appMention(top));
    expect(await push(event(say(CHANNEL, "no mention needed now", top.ts)))).toBeDefined();
    expect(h.fake.callsTo("conversations.replies")).toHaveLength(0);
  });

  it("reads free-response channels, and every channel with require_mention off", async () => {
    h = await startHarness({ config: { free_response_channels: ["C0FREE"] } });
    expect(await push(event(say("C0FREE", "no mention")))).toBeDefined();
    expect(await push(event(say(CHANNEL, "no mention")))).toBeUndefined();
    await h.close();
    h = await startHarness({ config: { require_mention: false } });
    expect(await push(event(say(CHANNEL, "no mention")))).toBeDefined();
  });

  it("ignores its own messages and other bots unless allow_bots says otherwise", async () => {
    h = await startHarness();
    const own = { ...event(say(CHANNEL, mentionBot("echo"))), user: BOT.id, bot_id: BOT.botId };
    expect(await push(own)).toBeUndefined();
    const bot = (text: string) => ({ ...event(say(CHANNEL, text), { subtype: "bot_message", botId: OTHER_BOT.botId }), user: undefined, username: "otherbot" });
    expect(await push(bot(mentionBot("hi from a bot")))).toBeUndefined();
    await h.close();
    h = await startHarness({ config: { allow_bots: "mentions" } });
    expect(await push(bot("not mentioning"))).toBeUndefined();
    expect(await push(bot(mentionBot("mentioning")))).toMatchObject({ sender: { isBot: true, displayName: "otherbot" } });
  });

  it("skips edits, deletions and joins, and reads file shares and thread broadcasts", async () => {
    h = await startHarness();
    for (const subtype of ["message_changed", "message_deleted", "channel_join"]) {
      expect(await push(event(say(CHANNEL, mentionBot("changed")), { subtype })), subtype).toBeUndefined();
    }
    expect(await push(event(say(CHANNEL, mentionBot("broadcast")), { subtype: "thread_broadcast" }))).toBeDefined();
    expect(await push(event(say(DM_CHANNEL, "a file"), { subtype: "file_share" }))).toBeDefined();
  });
});

describe("files in", () => {
  it("downloads a shared file with the bot token into the cache and hands it over as media", async () => {
    h = await startHarness();
    const f = h.fake.state.addFile("notes.txt", Buffer.from("file body"), "text/plain");
    const got = await push(event(say(DM_CHANNEL, "see attached"), { subtype: "file_share", files: [fileShape(f, h.fake.baseUrl)] }));
    expect(got?.media).toHaveLength(1);
    const media = got?.media[0];
    expect(media).toMatchObject({ kind: "document", fileName: "notes.txt", mimeType: "text/plain", sizeBytes: 9 });
    expect(await readFile(media!.path, "utf8")).toBe("file body");
    expect(h.fake.downloads).toEqual([{ fileId: f.id, auth: `Bearer ${h.fake.botToken}` }]);
  });

  it("turns a file over the size limit into a note instead of downloading it", async () => {
    h = await startHarness();
    const f = h.fake.state.addFile("big.bin", Buffer.alloc(2 * 1024 * 1024));
    const got = await push(event(say(DM_CHANNEL, "big one"), { subtype: "file_share", files: [fileShape(f, h.fake.baseUrl)] }));
    expect(got?.media).toHaveLength(0);
    expect(got?.text).toMatch(/big\.bin.*larger than the 1 MB limit/);
    expect(h.fake.downloads).toHaveLength(0);
  });
});
