/**
 * What a full chat platform (Telegram, Discord, Slack) can do: buttons, edits,
 * threads, reactions and typing all exist, replies stream by editing one
 * message when the platform's `streaming` config allows, and every call goes
 * through the outbound scheduler, which tells a send's `dispatch` as each call
 * leaves. Only the message limit and the text format differ per platform.
 */
import type { Capabilities } from "../types.js";

export interface ChatStreamingConfig {
  readonly enabled: boolean;
  readonly edit_interval_ms: number;
}

export function chatCapabilities(text: Pick<Capabilities, "maxMessageLength" | "lengthUnit" | "format">, streaming: ChatStreamingConfig): Capabilities {
  return {
    ...text,
    buttons: true,
    edits: true,
    threads: true,
    reactions: true,
    typing: true,
    streams: streaming.enabled,
    editIntervalMs: streaming.edit_interval_ms,
    reportsDispatch: true,
  };
}
