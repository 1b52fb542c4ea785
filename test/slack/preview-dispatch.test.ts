/**
 * The Slack adapter reports the Web API request that posts a streamed reply's
 * preview as the shared contract says: once, as it leaves, with its text and
 * whether the preview shows all of it; not the edits after it. The real Web
 * API client against the fake Slack.
 */
import type { ChatRef } from "../../adapters/types.js";
import { previewDispatchContract } from "../fakes/preview-dispatch-contract.js";
import { CHANNEL } from "../fakes/slack-events.js";
import { startHarness } from "./harness.js";

const GENERAL: ChatRef = { platform: "slack", chatId: CHANNEL, chatType: "group" };

previewDispatchContract(
  "Slack",
  async (opts = {}) => {
    const h = await startHarness(opts.requestTimeoutMs ? { timing: { requestTimeoutMs: opts.requestTimeoutMs } } : {});
    return {
      adapter: h.adapter,
      chat: GENERAL,
      posts: () => h.fake.callsTo("chat.postMessage", CHANNEL).length,
      edits: () => h.fake.callsTo("chat.update", CHANNEL).filter((c) => c.result?.ok === true).length,
      texts: () =>
        h.fake.state
          .history(CHANNEL)
          .filter((m) => m.user === "U0BOT" && !m.deleted)
          .map((m) => m.text),
      refuseNextPost: () => h.fake.fail("chat.postMessage", { kind: "error", error: "not_in_channel" }),
      rateLimitNextPost: () => h.fake.fail("chat.postMessage", { kind: "ratelimit", retryAfter: 1 }),
      holdPosts: () => h.fake.fail("chat.postMessage", { kind: "hang" }, { times: 100 }),
      when: (check) => h.fake.waitFor(() => check()),
      close: () => h.close(),
    };
  },
  {
    long: Array.from({ length: 2500 }, (_, i) => `Paragraph ${i} has some words in it.`).join("\n\n"),
    // 34,000 characters, over 39,000 once `&`, `<` and `>` are escaped as entities.
    longOnceFormatted: "Q&A <ok> & more. ".repeat(2000),
  },
);
