/**
 * Role alternation: user → assistant → user …, an assistant
 * with tool_calls followed by exactly its tool results, never two user or two
 * assistant messages in a row. Providers reject anything else, so history that
 * breaks the rules (a crash mid-turn, an old import, compression) is repaired:
 * same-role neighbours are merged, orphan tool results dropped, and calls that
 * never got a result receive a stub result the model can read.
 */
import type { AssistantMessage, ContentPart, Message, UserMessage } from "../types.js";

export interface RepairOutcome {
  readonly history: readonly Message[];
  /** Human-readable notes on what was changed (empty when the input was fine). */
  readonly changes: readonly string[];
}

export const MISSING_RESULT_CONTENT = JSON.stringify({ error: "No result was recorded for this tool call (the turn ended before it finished)." });

/** `missingResult`: the content of the stub result a call without one receives. */
export function repairHistory(input: readonly Message[], missingResult: string = MISSING_RESULT_CONTENT): RepairOutcome {
  const out: Message[] = [];
  const changes: string[] = [];
  let open: Map<string, string> | null = null;

  const closeGroup = (): void => {
    if (!open) return;
    for (const [id, name] of open) {
      out.push({ role: "tool", tool_call_id: id, tool_name: name, content: missingResult });
      changes.push(`added a stub result for unanswered tool call ${id}`);
    }
    open = null;
  };

  for (const m of input) {
    if (m.role === "system") {
      changes.push("dropped a system message from history");
      continue;
    }
    if (m.role === "tool") {
      if (open?.has(m.tool_call_id)) {
        out.push(m);
        open.delete(m.tool_call_id);
      } else changes.push(`dropped orphan tool result ${m.tool_call_id}`);
      continue;
    }
    closeGroup();
    const last = out.at(-1);
    if (last && last.role === m.role) {
      out[out.length - 1] = mergeSameRole(last as UserMessage | AssistantMessage, m);
      changes.push(`merged two consecutive ${m.role} messages`);
    } else out.push(m);
    const current = out.at(-1);
    if (current?.role === "assistant" && current.tool_calls?.length) open = new Map(current.tool_calls.map((c) => [c.id, c.function.name]));
  }
  closeGroup();
  return { history: out, changes };
}

/** Whether appending `next` after `history` keeps alternation (cheap check for the hot path). */
export function canAppend(history: readonly Message[], next: Message): boolean {
  const last = history.at(-1);
  if (!last) return next.role !== "tool";
  if (next.role === "tool") return last.role === "tool" || (last.role === "assistant" && Boolean(last.tool_calls?.length));
  return last.role !== next.role;
}

export function mergeSameRole<M extends UserMessage | AssistantMessage>(a: M, b: Message): M {
  if (a.role === "user" && b.role === "user") return { ...a, content: mergeUserContent(a.content, b.content) } as M;
  if (a.role === "assistant" && b.role === "assistant") {
    const reasoning = joinText(a.reasoning, b.reasoning);
    const merged: AssistantMessage = {
      ...a,
      ...b,
      content: joinText(a.content ?? undefined, b.content ?? undefined) ?? null,
      ...(reasoning !== undefined ? { reasoning } : {}),
    };
    return merged as M;
  }
  throw new TypeError(`cannot merge ${a.role} with ${b.role}`);
}

function mergeUserContent(a: UserMessage["content"], b: UserMessage["content"]): UserMessage["content"] {
  if (typeof a === "string" && typeof b === "string") return joinText(a, b) ?? "";
  return [...toParts(a), ...toParts(b)];
}

function toParts(c: UserMessage["content"]): readonly ContentPart[] {
  return typeof c === "string" ? (c ? [{ type: "text", text: c }] : []) : c;
}

function joinText(a: string | undefined, b: string | undefined): string | undefined {
  const parts = [a, b].filter((x): x is string => Boolean(x));
  return parts.length ? parts.join("\n\n") : (a ?? b);
}
