import { afterEach, describe, expect, it } from "vitest";
import type { ChatRef } from "../../adapters/types.js";
import type { RecordedCall } from "../fakes/telegram-api.js";
import { type Harness, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CHATS = Array.from({ length: 20 }, (_, i) => String(5000 + i));
const PER_CHAT = 5;
/** Chats whose calls get a 429 (retry_after 1 s) injected on their 2nd and 4th message. */
const LIMITED = new Set(CHATS.slice(0, 6));

function chat(id: string): ChatRef {
  return { platform: "telegram", chatId: id, chatType: "dm" };
}

describe("outbound rate limits (real clock, fake Bot API with flood control)", () => {
  it("100 sends across 20 chats with 429s: all delivered, in order, never inside retry_after, per-chat rate kept", async () => {
    h = await startHarness({
      config: { rate_limits: { per_chat_per_s: 1, per_group_per_min: 20, global_per_s: 30 } },
      // Tolerance absorbs loopback jitter on a busy 2-core machine.
      fake: { flood: { perChatPerS: 1, globalPerS: 30, toleranceMs: 150 } },
    });
    for (const id of LIMITED) {
      for (const n of [2, 4]) {
        h.fake.fail(
          "sendMessage",
          { kind: "error", code: 429, description: "Too Many Requests: retry after 1", retryAfter: 1 },
          { when: (p) => String(p.chat_id) === id && p.text === `msg ${n}` },
        );
      }
    }
    const sends = CHATS.flatMap((id) => Array.from({ length: PER_CHAT }, (_, n) => h!.adapter.send(chat(id), { text: `msg ${n + 1}` })));
    const results = await Promise.all(sends);
    expect(results.every((r) => r.messageIds.length === 1)).toBe(true);

    const calls = h.fake.callsTo("sendMessage");
    // Every message arrived, in order, exactly once per chat.
    for (const id of CHATS) expect(h.fake.state.messages(id).map((m) => m.text)).toEqual(["msg 1", "msg 2", "msg 3", "msg 4", "msg 5"]);
    // The injected 429s happened, and nothing was sent to that chat inside the window.
    const limited = calls.filter((c) => c.status === 429);
    expect(limited).toHaveLength(LIMITED.size * 2);
    for (const hit of limited) {
      const inside = calls.filter((c) => c.chatId === hit.chatId && c.at > hit.at && c.at < hit.at + 1000);
      expect(inside).toEqual([]);
    }
    // Our pacing matches Telegram's: flood control never fired, per-chat spacing ≥ 1 s (minus jitter).
    expect(h.fake.flood429s).toBe(0);
    for (const id of CHATS) {
      const times = calls.filter((c: RecordedCall) => c.chatId === id).map((c) => c.at);
      for (let i = 1; i < times.length; i++) expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThanOrEqual(1000 - 60);
    }
  }, 30_000);

  it("group chats are paced per minute; typing takes no message slot", async () => {
    h = await startHarness({
      config: { rate_limits: { per_chat_per_s: 1, per_group_per_min: 60, global_per_s: 30 } },
      fake: { flood: { perChatPerS: 1, perGroupPerMin: 60, globalPerS: 30, toleranceMs: 150 } },
    });
    const group: ChatRef = { platform: "telegram", chatId: "-100777", chatType: "group" };
    await Promise.all([h.adapter.typing(group), h.adapter.send(group, { text: "a" }), h.adapter.send(group, { text: "b" })]);
    const calls = h.fake.calls.filter((c) => c.chatId === "-100777");
    expect(calls.map((c) => c.method)).toEqual(["sendChatAction", "sendMessage", "sendMessage"]);
    // The typing call took no message slot: "a" follows it at once, "b" a second after "a".
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBeLessThan(500);
    expect((calls[2]?.at ?? 0) - (calls[1]?.at ?? 0)).toBeGreaterThanOrEqual(1000 - 60);
    expect(h.fake.flood429s).toBe(0);
  });
});
