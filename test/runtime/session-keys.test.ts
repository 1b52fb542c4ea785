import { describe, expect, it } from "vitest";
import { buildSessionKey, isSharedSession } from "../../gateway/runtime/session-key.js";

const perUser = { groupSessionsPerUser: true, threadSessionsPerUser: false };
const alice = { userId: "alice" };

describe("session keys", () => {
  it("keys a DM by its chat, never by the user", () => {
    expect(buildSessionKey({ platform: "telegram", chatId: "99", chatType: "dm" }, alice, perUser)).toBe("agent:main:telegram:dm:99");
    expect(buildSessionKey({ platform: "telegram", chatId: "99", chatType: "dm", threadId: "topic-1" }, alice, perUser)).toBe(
      "agent:main:telegram:dm:99:topic-1",
    );
  });
  it("gives each user their own session in a group by default", () => {
    const chat = { platform: "telegram", chatId: "-100", chatType: "group" as const };
    expect(buildSessionKey(chat, alice, perUser)).toBe("agent:main:telegram:group:-100:alice");
    expect(buildSessionKey(chat, { userId: "bob" }, perUser)).toBe("agent:main:telegram:group:-100:bob");
    expect(isSharedSession(chat, perUser)).toBe(false);
  });
  it("shares threads and forum topics", () => {
    const topic = { platform: "telegram", chatId: "-100", chatType: "group" as const, threadId: "17" };
    expect(buildSessionKey(topic, alice, perUser)).toBe("agent:main:telegram:group:-100:17");
    expect(buildSessionKey(topic, { userId: "bob" }, perUser)).toBe("agent:main:telegram:group:-100:17");
    expect(isSharedSession(topic, perUser)).toBe(true);
    const thread = { platform: "discord", chatId: "456", chatType: "thread" as const, threadId: "456" };
    expect(buildSessionKey(thread, alice, perUser)).toBe("agent:main:discord:thread:456:456");
  });
  it("follows thread_sessions_per_user and group_sessions_per_user", () => {
    const topic = { platform: "slack", chatId: "C1", chatType: "group" as const, threadId: "1712.1" };
    expect(buildSessionKey(topic, alice, { groupSessionsPerUser: true, threadSessionsPerUser: true })).toBe("agent:main:slack:group:C1:1712.1:alice");
    const chat = { platform: "slack", chatId: "C1", chatType: "group" as const };
    expect(buildSessionKey(chat, alice, { groupSessionsPerUser: false, threadSessionsPerUser: false })).toBe("agent:main:slack:group:C1");
  });
});
