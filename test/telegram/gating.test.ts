import { Api } from "grammy";
import type { Update } from "grammy/types";
import { afterEach, describe, expect, it } from "vitest";
import { compilePatterns } from "../../adapters/telegram/gating.js";
import { MediaFetcher } from "../../adapters/telegram/media-in.js";
import { type TranslateContext, translateGroup } from "../../adapters/telegram/translate.js";
import { ADA, autoEntities, BOB, dmText, groupText, type NewUpdate } from "../fakes/telegram-updates.js";
import { type Harness, startHarness } from "./harness.js";

const BOT = { id: 999, username: "hermes_bot" };
const BOT_USER = { id: 999, is_bot: true, first_name: "Hermes", username: "hermes_bot" };
const GROUP = -1001;

function ctx(overrides: { requireMention?: boolean; patterns?: string[]; free?: string[]; topics?: string[]; ignored?: string[] } = {}): TranslateContext {
  return {
    bot: BOT,
    rules: {
      requireMention: overrides.requireMention ?? true,
      freeResponseChats: new Set(overrides.free ?? []),
      mentionPatterns: compilePatterns(overrides.patterns ?? []),
    },
    allowedTopics: new Set(overrides.topics ?? []),
    ignoredThreads: new Set(overrides.ignored ?? []),
    editedMessages: false,
    // Never reached: these messages carry no files.
    media: new MediaFetcher({
      api: new Api("1:x", { apiRoot: "http://127.0.0.1:9" }),
      apiRoot: "http://127.0.0.1:9",
      token: "1:x",
      downloadDir: "/nonexistent",
      maxDocumentBytes: 1,
      maxMediaBytes: 1,
    }),
    now: () => 1_700_000_000_000,
  };
}

function upd(u: NewUpdate, id = 1): Update {
  return { ...u, update_id: id } as Update;
}

type Row = [name: string, update: NewUpdate, context: TranslateContext, expected: { addressed: boolean; text?: string } | "ignored"];

const TABLE: Row[] = [
  ["DM is always addressed", dmText("hi"), ctx(), { addressed: true }],
  ["group without mention, require_mention on", groupText(GROUP, "just chatting"), ctx(), { addressed: false }],
  ["group without mention, require_mention off", groupText(GROUP, "just chatting"), ctx({ requireMention: false }), { addressed: true }],
  ["@mention entity of this bot", groupText(GROUP, "hey @hermes_bot look"), ctx(), { addressed: true }],
  ["@mention is case-insensitive", groupText(GROUP, "hey @Hermes_Bot"), ctx(), { addressed: true }],
  ["@mention of someone else", groupText(GROUP, "hey @ada"), ctx(), { addressed: false }],
  [
    "text_mention entity of this bot",
    groupText(GROUP, "Hermes do it", { entities: [{ type: "text_mention", offset: 0, length: 6, user: BOT_USER }] }),
    ctx(),
    { addressed: true },
  ],
  ["bare @name without entity does not count", groupText(GROUP, "hey @hermes_bot", { entities: [] }), ctx(), { addressed: false }],
  ["/cmd@thisbot is addressed and loses the suffix", groupText(GROUP, "/status@hermes_bot now"), ctx(), { addressed: true, text: "/status now" }],
  ["/cmd@otherbot is ignored", groupText(GROUP, "/status@other_bot"), ctx({ requireMention: false }), "ignored"],
  ["/cmd@otherbot is ignored in a DM too", dmText("/start@other_bot"), ctx(), "ignored"],
  ["bare /cmd in a group with require_mention on is not addressed", groupText(GROUP, "/status"), ctx(), { addressed: false }],
  [
    "reply to the bot",
    groupText(GROUP, "and then?", { replyTo: { message_id: 5, date: 1, chat: { id: GROUP, type: "supergroup" }, from: BOT_USER, text: "earlier answer" } }),
    ctx(),
    { addressed: true },
  ],
  [
    "reply to someone else",
    groupText(GROUP, "agreed", { replyTo: { message_id: 6, date: 1, chat: { id: GROUP, type: "supergroup" }, from: BOB, text: "x" } }),
    ctx(),
    { addressed: false },
  ],
  ["mention pattern matches", groupText(GROUP, "Hey Hermes, what's up"), ctx({ patterns: ["\\bhermes\\b"] }), { addressed: true }],
  ["mention pattern does not match", groupText(GROUP, "hermetic seal"), ctx({ patterns: ["\\bhermes\\b"] }), { addressed: false }],
  ["free-response chat", groupText(GROUP, "anything"), ctx({ free: [String(GROUP)] }), { addressed: true }],
  [
    "caption mention counts",
    groupText(GROUP, "", { extra: { caption: "look @hermes_bot", caption_entities: autoEntities("look @hermes_bot") } }),
    ctx(),
    { addressed: true },
  ],
  ["own message is dropped", groupText(GROUP, "echo", { from: BOT_USER }), ctx({ requireMention: false }), "ignored"],
  ["other bots are processed", groupText(GROUP, "@hermes_bot ping", { from: { id: 5, is_bot: true, first_name: "Other" } }), ctx(), { addressed: true }],
];

describe("Telegram mention gating", () => {
  for (const [name, update, context, expected] of TABLE) {
    it(name, async () => {
      const t = await translateGroup([upd(update)], context);
      if (expected === "ignored") {
        expect(t.kind).toBe("skip");
        return;
      }
      expect(t.kind).toBe("deliver");
      if (t.kind !== "deliver" || t.event.kind !== "message") throw new Error("expected a message");
      expect(t.event.addressed).toBe(expected.addressed);
      if (expected.text !== undefined) expect(t.event.text).toBe(expected.text);
    });
  }

  it("reports replyTo with fromBot, but not the forum-topic creation message", async () => {
    const reply = await translateGroup(
      [upd(groupText(GROUP, "ok", { replyTo: { message_id: 5, date: 1, chat: { id: GROUP, type: "supergroup" }, from: BOT_USER, text: "answer" } }))],
      ctx(),
    );
    expect(reply.kind === "deliver" && reply.event.kind === "message" && reply.event.replyTo).toEqual({ messageId: "5", text: "answer", fromBot: true });
    const topic = await translateGroup(
      [
        upd(
          groupText(GROUP, "in topic", {
            forum: true,
            threadId: 7,
            replyTo: { message_id: 7, date: 1, chat: { id: GROUP, type: "supergroup" }, from: ADA, forum_topic_created: { name: "t", icon_color: 1 } },
          }),
        ),
      ],
      ctx(),
    );
    expect(topic.kind === "deliver" && topic.event.kind === "message" && topic.event.replyTo).toBeUndefined();
  });

  it("forum topics become threadId; the General topic is '1'; plain groups have none", async () => {
    const inTopic = await translateGroup([upd(groupText(GROUP, "x", { forum: true, threadId: 42 }))], ctx());
    const general = await translateGroup([upd(groupText(GROUP, "x", { forum: true }))], ctx());
    const plain = await translateGroup([upd(groupText(GROUP, "x"))], ctx());
    expect(inTopic.kind === "deliver" && inTopic.event.chat).toEqual({ platform: "telegram", chatId: String(GROUP), chatType: "group", threadId: "42" });
    expect(general.kind === "deliver" && general.event.chat.threadId).toBe("1");
    expect(plain.kind === "deliver" && plain.event.chat.threadId).toBeUndefined();
  });

  it("allowed_topics and ignored_threads filter forum topics", async () => {
    const only7 = ctx({ topics: ["7"] });
    expect((await translateGroup([upd(groupText(GROUP, "x", { forum: true, threadId: 7 }))], only7)).kind).toBe("deliver");
    expect((await translateGroup([upd(groupText(GROUP, "x", { forum: true, threadId: 8 }))], only7)).kind).toBe("skip");
    expect((await translateGroup([upd(groupText(GROUP, "x", { forum: true }))], ctx({ ignored: ["1"] }))).kind).toBe("skip");
  });

  it("anonymous admins post as their chat", async () => {
    const t = await translateGroup(
      [upd(groupText(GROUP, "x", { extra: { sender_chat: { id: GROUP, type: "supergroup", title: "Team" } } }))],
      ctx({ requireMention: false }),
    );
    expect(t.kind === "deliver" && t.event.sender).toEqual({ userId: String(GROUP), displayName: "Team", isBot: false });
  });
});

describe("gating end to end", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("delivers group messages with addressed flags and topic thread ids through the real loop", async () => {
    h = await startHarness({ config: { require_mention: true } });
    h.fake.pushUpdate(groupText(GROUP, "chatter", { forum: true, threadId: 3 }));
    h.fake.pushUpdate(groupText(GROUP, "@hermes_bot help", { forum: true, threadId: 3 }));
    h.fake.pushUpdate(groupText(GROUP, "/new@other_bot"));
    h.fake.pushUpdate(dmText("dm"));
    await h.sink.until(() => h!.sink.committed.length === 3);
    const got = h.sink.committed.map((e) => (e.kind === "message" ? [e.text, e.addressed, e.chat.threadId ?? null] : null));
    expect(got).toEqual([
      ["chatter", false, "3"],
      ["@hermes_bot help", true, "3"],
      ["dm", true, null],
    ]);
  });
});
