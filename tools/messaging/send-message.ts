/**
 * send_message: post a message (text, and files named in it with MEDIA:
 * tags or markdown images) to another chat — the current one ("origin"), a
 * platform's home channel ("telegram"), or "platform:chat_id[:thread_id]" —
 * through ctx.messenger, which allows only the chats the configuration
 * names. `action: list` shows those targets.
 */
import { z } from "zod";
import type { ToolDefinition } from "../../agent/types.js";
import { aborted, fail, ok, parseArgs, toolSchema } from "../files/shared.js";

const Args = z.object({
  action: z.enum(["send", "list"]).default("send").describe('"send" (default) posts `message` to `target`; "list" shows the targets you may use.'),
  target: z
    .string()
    .trim()
    .max(200)
    .optional()
    .describe('Where to send: "origin" (this chat), a platform name for its home channel (e.g. "telegram"), or "platform:chat_id" / "platform:chat_id:thread_id".'),
  message: z.string().max(20_000).optional().describe("The text to send. Files: put MEDIA:/absolute/path (or a markdown image) in it."),
});

const DESCRIPTION =
  "Send a message to a chat other than as your reply: another chat the gateway is allowed to write to, a platform's home channel, or this chat (origin). " +
  'Use action "list" first to see the allowed targets. Your normal reply already goes to this chat; use this only for other chats or when asked to notify someone.';

export function createSendMessageTool(): ToolDefinition {
  return {
    name: "send_message",
    toolset: "messaging",
    schema: toolSchema("send_message", DESCRIPTION, Args),
    parallelSafe: false,
    maxResultChars: 10_000,
    execute: async (raw, ctx, signal) => {
      const parsed = parseArgs(Args, raw);
      if (!parsed.ok) return fail(parsed.error);
      const messenger = ctx.messenger;
      if (!messenger) return fail("Messages to other chats are not available here (no chat platform delivers them).");
      const { action, target, message } = parsed.value;
      if (action === "list") return ok({ targets: messenger.targets() });
      if (!target) return fail('Give a `target` (use action "list" to see them).');
      if (!message?.trim()) return fail("Give the `message` to send.");
      if (signal.aborted) return aborted();
      const r = await messenger.send(target, message, signal);
      return r.ok ? ok({ sent: true, target: r.target, message_ids: r.messageIds }) : fail(r.error);
    },
  };
}
