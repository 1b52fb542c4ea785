/**
 * Phase 1 of compression (see compressor.ts): cheap, no LLM call. Outside
 * the protected tail, large tool results become one informative line, older
 * copies of identical results are dropped in favour of the newest, base64
 * images are removed, and huge tool-call arguments are shrunk by parsing,
 * truncating string leaves and re-serializing, so the JSON stays valid.
 */
import type { AssistantMessage, Message, ToolCall } from "../types.js";

export interface PruneOptions {
  /** Tool results longer than this are summarized. */
  readonly minChars: number;
  /** Tool-call argument strings longer than this are shortened. */
  readonly maxArgChars: number;
}

export const DEFAULT_PRUNE: PruneOptions = { minChars: 2_000, maxArgChars: 2_000 };

interface CallInfo {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
}

const DATA_URL = /data:image\/[\w.+-]+;base64,[A-Za-z0-9+/=]{200,}/g;

/** Prunes messages before index `end`; later messages are returned untouched. */
export function pruneToolResults(messages: readonly Message[], end: number, opts: PruneOptions = DEFAULT_PRUNE): { messages: Message[]; pruned: number } {
  const calls = callIndex(messages);
  const newestByContent = new Map<string, number>();
  messages.forEach((m, i) => {
    if (m.role === "tool" && m.content.length >= 200) newestByContent.set(m.content, i);
  });
  let pruned = 0;
  const out = messages.map((m, i): Message => {
    if (i >= end) return m;
    if (m.role === "assistant" && m.tool_calls?.length) {
      const shrunk = shrinkCalls(m, opts.maxArgChars);
      if (shrunk !== m) pruned++;
      return shrunk;
    }
    if (m.role !== "tool") return m;
    const info = calls.get(m.tool_call_id) ?? { name: m.tool_name ?? "tool", args: {} };
    const newest = newestByContent.get(m.content);
    let content = m.content;
    if (newest !== undefined && newest !== i) content = `[${info.name}] duplicate result omitted (identical to a later ${info.name} result)`;
    else if (content.length > opts.minChars) content = summarizeToolResult(info.name, info.args, content);
    else content = content.replace(DATA_URL, "[screenshot removed to save context]");
    if (content === m.content) return m;
    pruned++;
    return { ...m, content };
  });
  return { messages: out, pruned };
}

/** The one-line stand-in for a large result, tailored per tool. */
export function summarizeToolResult(name: string, args: Readonly<Record<string, unknown>>, content: string): string {
  const size = `${content.length.toLocaleString("en-US")} chars`;
  const str = (k: string): string | undefined => (typeof args[k] === "string" ? clip(args[k] as string, 120) : undefined);
  switch (name) {
    case "terminal": {
      const parsed = parseObject(content);
      const exit = parsed?.["exit_code"] ?? parsed?.["exitCode"];
      const output = typeof parsed?.["output"] === "string" ? (parsed["output"] as string) : content;
      const lines = output.split("\n").length.toLocaleString("en-US");
      return `[terminal] ran \`${str("command") ?? "?"}\`${exit !== undefined ? ` -> exit ${String(exit)}` : ""}, ${lines} lines output`;
    }
    case "read_file": {
      const from = typeof args["offset"] === "number" ? ` from line ${args["offset"]}` : "";
      return `[read_file] read ${str("path") ?? "?"}${from} (${size})`;
    }
    case "search_files":
      return `[search_files] search for '${str("pattern") ?? str("query") ?? "?"}' in ${str("path") ?? "."} (${size} result)`;
    default: {
      const first = Object.values(args).find((v) => typeof v === "string") as string | undefined;
      return `[${name}]${first ? ` '${clip(first, 80)}'` : ""} (${size} result)`;
    }
  }
}

function callIndex(messages: readonly Message[]): Map<string, CallInfo> {
  const index = new Map<string, CallInfo>();
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const c of m.tool_calls ?? []) index.set(c.id, { name: c.function.name, args: parseObject(c.function.arguments) ?? {} });
  }
  return index;
}

function shrinkCalls(m: AssistantMessage, maxArgChars: number): AssistantMessage {
  let changed = false;
  const calls = (m.tool_calls ?? []).map((c): ToolCall => {
    if (c.function.arguments.length <= maxArgChars) return c;
    const parsed = parseObject(c.function.arguments);
    if (!parsed) return c;
    changed = true;
    return { ...c, function: { ...c.function, arguments: JSON.stringify(shrink(parsed, Math.floor(maxArgChars / 4))) } };
  });
  return changed ? { ...m, tool_calls: calls } : m;
}

/** Truncates string leaves only, so the structure (and JSON validity) survives. */
export function shrink(value: unknown, maxString: number): unknown {
  if (typeof value === "string") return value.length > maxString ? `${value.slice(0, maxString)}…[truncated ${value.length - maxString} chars]` : value;
  if (Array.isArray(value)) return value.map((v) => shrink(v, maxString));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shrink(v, maxString)]));
  return value;
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    // Not JSON: the caller falls back to treating it as plain text.
    return null;
  }
}

function clip(s: string, max: number): string {
  const flat = s.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
