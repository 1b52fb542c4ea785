/**
 * Tool-call pairing on the Anthropic wire, as Hermes Agent's converter keeps
 * it. Anthropic wants each tool_use answered by a tool_result in the user turn
 * right after it, and no tool_result without its tool_use; compression or an
 * interrupted turn can break either side. So:
 *  - a tool_use without a result in the next turn is removed (the turn keeps
 *    its text; a turn left with nothing says "(tool call removed)"); a signed
 *    thinking block on that turn no longer matches it and goes too;
 *  - a tool_result whose tool_use is gone, or that answers it a second time,
 *    is removed (a turn left with nothing says "(tool result removed)").
 */
import type Anthropic from "@anthropic-ai/sdk";

type Block = Anthropic.ContentBlockParam;

export interface Turn {
  readonly role: "user" | "assistant";
  blocks: Block[];
}

export const TOOL_CALL_REMOVED = "(tool call removed)";
export const TOOL_RESULT_REMOVED = "(tool result removed)";

export function stripOrphanedToolBlocks(turns: Turn[]): void {
  turns.forEach((t, i) => {
    if (t.role === "assistant") dropUnansweredCalls(t, turns[i + 1]);
  });
  const calls = new Set(turns.flatMap((t) => (t.role === "assistant" ? t.blocks.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])) : [])));
  const answered = new Set<string>();
  for (const t of turns) {
    if (t.role !== "user") continue;
    const kept = t.blocks.filter((b) => {
      if (b.type !== "tool_result") return true;
      if (!calls.has(b.tool_use_id) || answered.has(b.tool_use_id)) return false;
      answered.add(b.tool_use_id);
      return true;
    });
    if (kept.length !== t.blocks.length) t.blocks = kept.length ? kept : [text(TOOL_RESULT_REMOVED)];
  }
}

function dropUnansweredCalls(turn: Turn, next: Turn | undefined): void {
  const answers = new Set(next?.role === "user" ? next.blocks.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : [])) : []);
  const kept = turn.blocks.filter((b) => b.type !== "tool_use" || answers.has(b.id));
  if (kept.length === turn.blocks.length) return;
  const withoutThinking = kept.filter((b) => b.type !== "thinking" && b.type !== "redacted_thinking");
  turn.blocks = withoutThinking.length ? withoutThinking : [text(TOOL_CALL_REMOVED)];
}

function text(t: string): Block {
  return { type: "text", text: t };
}
