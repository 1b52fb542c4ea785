/**
 * The `memory` tool: add, replace, remove or read entries of MEMORY.md (the
 * agent's notes) and USER.md (the user profile). Writes land on disk at once
 * but the system prompt keeps its session-start snapshot (prefix cache), so
 * they show from the next session on.
 */
import type { ArgsOf, ToolContext, ToolDefinition } from "../../agent/types.js";
import { HermesError } from "../../config/errors.js";
import type { Config } from "../../config/schema.js";
import { defineTool } from "../common/define-tool.js";
import { aborted, fail, ok } from "../files/shared.js";
import { scanMemoryContent } from "./content-scan.js";
import {
  charLimit,
  MEMORY_TARGETS,
  type MemoryLimits,
  type MemoryTarget,
  type Mutation,
  mutateMemory,
  readMemoryEntries,
  usageText,
  usedChars,
} from "./memory-files.js";

const PARAMETERS = {
  type: "object",
  properties: {
    action: {
      type: "string",
      enum: ["add", "replace", "remove", "read"],
      description: "add a new entry, replace or remove an existing one, or read the current entries.",
    },
    target: {
      type: "string",
      enum: MEMORY_TARGETS,
      description: "`memory` (your notes; default for writes) or `user` (the user profile). Omit on read to get both.",
    },
    content: { type: "string", description: "add: the new entry. replace: the full new text of the matched entry." },
    old_text: { type: "string", description: "replace/remove: a short substring that occurs in exactly one entry." },
  },
  required: ["action"],
} as const;
type MemoryArgs = ArgsOf<typeof PARAMETERS>;

const DESCRIPTION = [
  "Persistent memory across sessions: both stores are shown in your system prompt at the start of every future session.",
  "target=memory holds your notes (environment details, tool quirks, stable project conventions); target=user holds who the user is (preferences, communication style, role, context).",
  "Actions: add (content), replace (old_text = a short unique substring of the entry; content = its full new text), remove (old_text), read.",
  "Write declarative facts, not instructions to yourself: 'User prefers concise responses' ✓ — 'Always respond concisely' ✗; 'Project uses pytest with xdist' ✓ — 'Run tests with pytest -n 4' ✗. Imperative phrasing is re-read later as a directive.",
  "Save what reduces future user steering and will still be true in a week. Do NOT save task progress, session outcomes, PR/issue numbers, commit SHAs or TODO state — session_search recalls those. Procedures and workflows belong in skills.",
  "Each store has a character limit; when one is full, consolidate with replace or remove first. Changes are saved immediately and appear in the system prompt from the next session.",
].join("\n");

export interface MemoryToolOptions {
  readonly config: { readonly memory: Config["memory"] };
}

export function createMemoryTool(options: MemoryToolOptions): ToolDefinition<MemoryArgs> {
  const limits: MemoryLimits = options.config.memory;
  return defineTool({
    name: "memory",
    toolset: "memory",
    description: DESCRIPTION,
    parameters: PARAMETERS,
    parallelSafe: false,
    maxResultChars: 20_000,
    available: () => options.config.memory.enabled,
    execute: async (args, ctx, signal) => {
      if (signal.aborted) return aborted();
      try {
        return await runMemory(args, ctx, limits, signal);
      } catch (err) {
        if (signal.aborted) return aborted();
        if (err instanceof HermesError) return fail(err.message);
        return fail(`Memory could not be updated: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  });
}

async function runMemory(args: MemoryArgs, ctx: ToolContext, limits: MemoryLimits, signal: AbortSignal): Promise<string> {
  if (args.action === "read") return readStores(args.target, ctx.home, limits, signal);
  const target = args.target ?? "memory";
  const content = args.content?.trim() ?? "";
  const oldText = args.old_text?.trim() ?? "";
  if ((args.action === "add" || args.action === "replace") && !content) return fail(`'${args.action}' needs content.`);
  if ((args.action === "replace" || args.action === "remove") && !oldText) {
    const entries = await readMemoryEntries(ctx.home, target, signal);
    return fail(`'${args.action}' needs old_text: a short substring of the entry to ${args.action}.`, { current_entries: entries });
  }
  if (content) {
    const why = scanMemoryContent(content);
    if (why) return fail(`Memory content refused: ${why}. Memory is injected into future system prompts, so it must be plain facts.`);
  }
  const limit = charLimit(limits, target);
  const change = (entries: readonly string[]): Mutation => {
    if (args.action === "add") return addEntry(entries, content, limit);
    if (args.action === "replace") return replaceEntry(entries, oldText, content, limit);
    return removeEntry(entries, oldText);
  };
  const out = await mutateMemory(ctx.home, target, change, signal);
  if (out.kind === "refused") return fail(out.error, { usage: usageText(out.before, limit), ...out.extra });
  return ok({
    done: true,
    target,
    message: out.message,
    usage: usageText(out.after, limit),
    entry_count: out.after.length,
    note: "Saved. This update is complete — do not repeat it. It appears in the system prompt from the next session.",
  });
}

async function readStores(target: MemoryTarget | undefined, home: string, limits: MemoryLimits, signal: AbortSignal): Promise<string> {
  const targets = target ? [target] : MEMORY_TARGETS;
  const stores: Record<string, unknown> = {};
  for (const t of targets) {
    const entries = await readMemoryEntries(home, t, signal);
    stores[t] = { entries, usage: usageText(entries, charLimit(limits, t)) };
  }
  return ok(stores);
}

function overLimit(before: readonly string[], after: readonly string[], limit: number, what: string): Mutation | null {
  const used = usedChars(after);
  // Shrinking is always allowed, so a store that is over its limit (hand-edited) can still be cleaned up.
  if (used <= limit || used <= usedChars(before)) return null;
  return {
    kind: "refused",
    error: `${what} would put this store at ${used.toLocaleString("en-US")}/${limit.toLocaleString("en-US")} chars, over its limit. Consolidate first: replace overlapping entries with a shorter one or remove stale ones (see current_entries), then retry.`,
    extra: { current_entries: before },
  };
}

function addEntry(entries: readonly string[], content: string, limit: number): Mutation {
  if (entries.includes(content)) return { kind: "unchanged", message: "That entry already exists; nothing was added." };
  const next = [...entries, content];
  return overLimit(entries, next, limit, `Adding this entry (${content.length} chars)`) ?? { kind: "write", entries: next, message: "Entry added." };
}

/** The single entry containing `oldText`, or a refusal explaining the miss or the ambiguity. */
function findEntry(entries: readonly string[], oldText: string): number | Mutation {
  const hits = entries.flatMap((e, i) => (e.includes(oldText) ? [i] : []));
  if (hits.length === 1) return hits[0]!;
  if (hits.length === 0)
    return {
      kind: "refused",
      error: `No entry contains '${oldText}'. Check current_entries and retry with text from the entry you mean.`,
      extra: { current_entries: entries },
    };
  const previews = hits.map((i) => preview(entries[i]!));
  return {
    kind: "refused",
    error: `'${oldText}' occurs in ${hits.length} entries; use a longer substring that is unique to one.`,
    extra: { matches: previews },
  };
}

function replaceEntry(entries: readonly string[], oldText: string, content: string, limit: number): Mutation {
  const at = findEntry(entries, oldText);
  if (typeof at !== "number") return at;
  const next = entries.map((e, i) => (i === at ? content : e)).filter((e, i, all) => all.indexOf(e) === i);
  return overLimit(entries, next, limit, "This replacement") ?? { kind: "write", entries: next, message: "Entry replaced." };
}

function removeEntry(entries: readonly string[], oldText: string): Mutation {
  const at = findEntry(entries, oldText);
  if (typeof at !== "number") return at;
  return { kind: "write", entries: entries.filter((_, i) => i !== at), message: "Entry removed." };
}

function preview(entry: string): string {
  return entry.length > 80 ? `${entry.slice(0, 80)}…` : entry;
}
