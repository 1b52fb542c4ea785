/**
 * The adapter's memory of threads stays bounded over a long run.
 */
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { Threads } from "../../adapters/discord/threads.js";
import { AdapterSendError, type ChatRef } from "../../adapters/types.js";

describe("Discord thread records", () => {
  it("keep the most recent 10,000 threads: an older one is looked up again", async () => {
    const offline = (): never => {
      throw new AdapterSendError("Discord is not connected.", "network");
    };
    const threads = new Threads(offline, () => false, pino({ level: "silent" }));
    for (let i = 0; i <= 10_000; i++) threads.seen(`t${i}`);
    const chat = (threadId: string): ChatRef => ({ platform: "discord", chatId: "c", chatType: "thread", threadId });
    expect(await threads.target(chat("t10000"))).toBe("t10000");
    expect(await threads.target(chat("t1"))).toBe("t1");
    await expect(threads.target(chat("t0"))).rejects.toThrow("not connected");
  });
});
