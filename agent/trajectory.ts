/**
 * Trajectory export in ShareGPT format, written exactly as Hermes Agent writes
 * it so exported sessions feed the same training tools: one JSON object per
 * line; every gpt turn opens with a <think> block (empty without reasoning);
 * tool calls are `{"name", "arguments"}` JSON in <tool_call> tags; the results
 * of one turn share a tool turn, each `{"tool_call_id", "name", "content"}`
 * JSON in <tool_response> tags. The ephemeral prompt is never part of a
 * trajectory: pass the stored session system prompt, not the one sent at call time.
 */
import { appendFile } from "node:fs/promises";
import type { AssistantMessage, Message, ToolCall, ToolMessage, ToolSchema, UserMessage } from "./types.js";

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
  let calls: readonly ToolCall[] = [];
  let responses: string[] = [];
  const flushTools = (): void => {
    if (responses.length) turns.push({ from: "tool", value: responses.join("\n") });
    responses = [];
  };
  for (const m of history) {
    if (m.role === "tool") {
      responses.push(toolResponse(m, calls[responses.length]));
      continue;
    }
    flushTools();
    // The session's system prompt is the first turn; any stray system message is not training data.
    if (m.role === "user") turns.push({ from: "human", value: userText(m) });
    else if (m.role === "assistant") {
      turns.push({ from: "gpt", value: assistantText(m) });
      calls = m.tool_calls ?? [];
    }
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

/**
 * A gpt turn as Hermes Agent writes it: reasoning in <think> tags (an empty
 * <think> block when there is none, so every turn has the same shape), the
 * reasoning scratchpad of models without native thinking converted to <think>,
 * then each tool call as <tool_call> JSON.
 */
function assistantText(m: AssistantMessage): string {
  let text = m.reasoning?.trim() ? `<think>\n${m.reasoning}\n</think>\n` : "";
  const calls = m.tool_calls ?? [];
  if (calls.length === 0) {
    text += scratchpadToThink(m.content ?? "");
    return (text.includes("<think>") ? text : `<think>\n</think>\n${text}`).trim();
  }
  if (m.content?.trim()) text += `${scratchpadToThink(m.content)}\n`;
  for (const c of calls) text += `<tool_call>\n${pythonJson({ name: c.function.name, arguments: parseArgs(c.function.arguments) })}\n</tool_call>\n`;
  return (text.includes("<think>") ? text : `<think>\n</think>\n${text}`).trimEnd();
}

/** A result as `{tool_call_id, name, content}` JSON in <tool_response> tags; JSON content is embedded as JSON. */
function toolResponse(m: ToolMessage, call: ToolCall | undefined): string {
  const content = /^\s*[[{]/.test(m.content) ? parseOr(m.content, m.content) : m.content;
  return `<tool_response>\n${pythonJson({ tool_call_id: m.tool_call_id, name: call?.function.name ?? "unknown", content })}\n</tool_response>`;
}

export function scratchpadToThink(text: string): string {
  return text.replaceAll("<REASONING_SCRATCHPAD>", "<think>").replaceAll("</REASONING_SCRATCHPAD>", "</think>");
}

/**
 * JSON the way Python's `json.dumps(value, ensure_ascii=False)` writes it
 * (", " and ": " separators), which is what the training tools that read
 * Hermes Agent's trajectories were fed.
 */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(", ")}]`;
  if (value && typeof value === "object") {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`)
      .join(", ")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function parseArgs(text: string): unknown {
  // History holds valid JSON (the loop repairs it); anything else is exported as an empty object, as Hermes Agent does.
  return parseOr(text, {});
}

function parseOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return fallback;
  }
}
