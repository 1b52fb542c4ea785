/**
 * send_message: post a message (text, and files named in it with MEDIA:
 * tags or markdown images) to another chat — the current one ("origin"), a
 * platform's home channel ("telegram"), or "platform:chat_id[:thread_id]" —
 * through ctx.messenger, which allows only the chats the configuration
 * names. `action: list` shows those targets.
 */
import type { ArgsOf, ToolDefinition } from "../../agent/types.js";
import { defineTool } from "../common/define-tool.js";
import { aborted, fail, ok } from "../files/shared.js";

const PARAMETERS = {
  type: "object",
  properties: {
    action: {
      type: "string",
      enum: ["send", "list"],
      default: "send",
      description: '"send" (default) posts `message` to `target`; "list" shows the targets you may use.',
    },
    target: {
      type: "string",
      maxLength: 200,
      description:
        'Where to send: "origin" (this chat), a platform name for its home channel (e.g. "telegram"), or "platform:chat_id" / "platform:chat_id:thread_id".',
    },
    message: { type: "string", maxLength: 20_000, description: "The text to send. Files: put MEDIA:/absolute/path (or a markdown image) in it." },
  },
} as const;

const DESCRIPTION =
  "Send a message to a chat other than as your reply: another chat the gateway is allowed to write to, a platform's home channel, or this chat (origin). " +
  'Use action "list" first to see the allowed targets. Your normal reply already goes to this chat; use this only for other chats or when asked to notify someone.';

export function createSendMessageTool(): ToolDefinition<ArgsOf<typeof PARAMETERS>> {
  return defineTool({
    name: "send_message",
    toolset: "messaging",
    description: DESCRIPTION,
    parameters: PARAMETERS,
    parallelSafe: false,
    maxResultChars: 10_000,
    execute: async (args, ctx, signal) => {
      const messenger = ctx.messenger;
      if (!messenger) return fail("Messages to other chats are not available here (no chat platform delivers them).");
      const { action, message } = args;
      // A target is used trimmed (a model sometimes pads it).
      const target = args.target?.trim();
      if (action === "list") return ok({ targets: messenger.targets() });
      if (!target) return fail('Give a `target` (use action "list" to see them).');
      if (!message?.trim()) return fail("Give the `message` to send.");
      if (signal.aborted) return aborted();
      const r = await messenger.send(target, message, signal);
      return r.ok ? ok({ sent: true, target: r.target, message_ids: r.messageIds }) : fail(r.error);
    },
  });
}
