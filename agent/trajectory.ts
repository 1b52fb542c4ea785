/**
 * Trajectory export in ShareGPT format (message-format notes): one JSON object
 * per line. Tool calls go in <tool_call> tags, results in <tool_response>,
 * reasoning in <think>. The ephemeral prompt is never part of a trajectory:
 * pass the stored session system prompt, not the one sent at call time.
 */
import { appendFile } from "node:fs/promises";
import type { AssistantMessage, Message, ToolSchema, UserMessage } from "./types.js";

export interface ShareGptTurn {
  readonly from: "system" | "human" | "gpt" | "tool";
  readonly value: string;
}

export interface ShareGptConversation {
  readonly conversations: readonly ShareGptTurn[];
  /** JSON text of the tools in OpenAI function format. */
  readonly tools: string;
  readonly source: string;
}

export interface TrajectoryEntry extends ShareGptConversation {
  readonly timestamp: string;
  readonly model: string;
  readonly completed: boolean;
}

export const TRAJECTORY_SOURCE = "hermes-gateway";

export function toShareGpt(system: string, history: readonly Message[], tools: readonly ToolSchema[]): ShareGptConversation {
  const turns: ShareGptTurn[] = system ? [{ from: "system", value: system }] : [];
  let toolBlock: string[] = [];
  const flushTools = (): void => {
    if (toolBlock.length) turns.push({ from: "tool", value: toolBlock.join("\n") });
    toolBlock = [];
  };
  for (const m of history) {
    if (m.role === "tool") {
      toolBlock.push(`<tool_response>\n${m.content}\n</tool_response>`);
      continue;
    }
    flushTools();
    // The session's system prompt is the first turn; any stray system message is not training data.
    if (m.role === "user") turns.push({ from: "human", value: userText(m) });
    else if (m.role === "assistant") turns.push({ from: "gpt", value: assistantText(m) });
  }
  flushTools();
  return { conversations: turns, tools: JSON.stringify(tools.map((t) => ({ type: "function", function: t }))), source: TRAJECTORY_SOURCE };
}

export function trajectoryEntry(conversation: ShareGptConversation, model: string, completed: boolean, at: Date): TrajectoryEntry {
  return { ...conversation, timestamp: at.toISOString(), model, completed };
}

/** One JSONL line, non-ASCII kept as is. */
export function trajectoryLine(entry: TrajectoryEntry): string {
  return `${JSON.stringify(entry)}\n`;
}

/** Appends one entry to a JSONL file (completed and failed trajectories usually go to separate files). */
export async function appendTrajectory(path: string, entry: TrajectoryEntry, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  await appendFile(path, trajectoryLine(entry), { encoding: "utf8" });
}

function userText(m: UserMessage): string {
  return typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");
}

function assistantText(m: AssistantMessage): string {
  const parts: string[] = [];
  if (m.reasoning) parts.push(`<think>\n${m.reasoning}\n</think>`);
  if (m.content) parts.push(m.content);
  for (const c of m.tool_calls ?? []) {
    parts.push(`<tool_call>\n${JSON.stringify({ name: c.function.name, arguments: parseArgs(c.function.arguments) })}\n</tool_call>`);
  }
  return parts.join("\n");
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // History holds valid JSON (the loop repairs it); anything else is exported as the raw string.
    return text;
  }
}
