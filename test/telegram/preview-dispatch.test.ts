/**
 * The Telegram adapter reports the Bot API request that posts a streamed
 * reply's preview as the shared contract says: once, as it leaves the
 * outbound scheduler, with its text and whether the preview shows all of it;
 * not the edits after it. Real grammY client, fake Bot API.
 */
import type { ChatRef } from "../../adapters/types.js";
import { previewDispatchContract } from "../fakes/preview-dispatch-contract.js";
import { startHarness } from "./harness.js";

const DM: ChatRef = { platform: "telegram", chatId: "42", chatType: "dm" };

previewDispatchContract(
  "Telegram",
  async (opts = {}) => {
    const h = await startHarness(opts.requestTimeoutMs ? { timing: { requestTimeoutS: opts.requestTimeoutMs / 1000 } } : {});
    return {
      adapter: h.adapter,
      chat: DM,
      posts: () => h.fake.callsTo("sendMessage", 42).length,
      edits: () => h.fake.callsTo("editMessageText", 42).filter((c) => c.status === 200).length,
      texts: () => h.fake.state.messages(42).map((m) => m.text),
      refuseNextPost: () => h.fake.fail("sendMessage", { kind: "error", code: 403, description: "Forbidden: bot was blocked by the user" }),
      rateLimitNextPost: () => h.fake.fail("sendMessage", { kind: "error", code: 429, description: "Too Many Requests: retry after 1", retryAfter: 1 }),
      holdPosts: () => h.fake.fail("sendMessage", { kind: "hang" }, { times: 100 }),
      when: (check) => h.fake.waitFor(() => check()),
      close: () => h.close(),
    };
  },
  {
    long: Array.from({ length: 300 }, (_, i) => `Line ${i} of the answer.`).join("\n"),
    // 3,000 characters, over 4,096 once `<`, `&` and `>` are written as HTML entities.
    longOnceFormatted: "1 < 2 & 3 > 0. ".repeat(200),
  },
);
