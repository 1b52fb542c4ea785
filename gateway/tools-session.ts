/**
 * Per-session tool wiring for the gateway runtime: the prompt pieces the
 * tools contribute (skills index, frozen memory block), the session's tool
 * state, the todo checkpoint hint on tool results, and the memory-context
 * scrubbers for streamed text and finished replies.
 */
import type { AnyToolDefinition } from "../agent/index.js";
import type { SessionToolState } from "../agent/types.js";
import type { Config } from "../config/index.js";
import { MemoryContextScrubber, memorySystemBlock, scrubMemoryContext } from "../tools/memory/index.js";
import { skillsIndex } from "../tools/skills/index.js";
import { createTodoTracker } from "../tools/todo/index.js";

export interface SessionPromptExtras {
  /** Prompt layer 7 ("" when skills are off or none exist). */
  readonly skillsIndex: string;
  /** Prompt layer 9, MEMORY.md and USER.md as they are now ("" when memory is off or empty). */
  readonly memoryBlock: string;
}

/**
 * Read once when a session starts; the result goes into the frozen system
 * prompt and is never refreshed mid-session (prompt cache).
 */
export async function sessionPromptExtras(config: Config, signal?: AbortSignal): Promise<SessionPromptExtras> {
  const [skills, memory] = await Promise.all([skillsIndex(config.home, config), memorySystemBlock(config.home, config, signal)]);
  return { skillsIndex: skills, memoryBlock: memory };
}

/** A session's tool state as its tools see it, over the map its owner (the session's mailbox) keeps. */
export function toolStateOver(map: Map<string, unknown>): SessionToolState {
  return {
    get: <T>(key: string) => map.get(key) as T | undefined,
    set: <T>(key: string, value: T) => void map.set(key, value),
  };
}

/** Whether a tool's JSON result reports a failure (the tools' shared result shapes). */
export function isFailedResult(text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false; // not JSON: nothing says it failed
  }
  if (typeof value !== "object" || value === null) return false;
  const r = value as { success?: unknown; error?: unknown; status?: unknown };
  return r.success === false || (typeof r.error === "string" && r.error !== "") || r.status === "error" || r.status === "blocked";
}

/**
 * Wraps a tool so its result carries the todo checkpoint hint (ten tool calls
 * without a todo update while the plan has open items, or a failure while it
 * does). The counter lives in the session's tool state, so it survives turns.
 */
export function withTodoCheckpoint(def: AnyToolDefinition): AnyToolDefinition {
  const inner = def.execute.bind(def);
  return {
    ...def,
    async execute(args, ctx, signal) {
      const result = await inner(args, ctx, signal);
      const hint = createTodoTracker(ctx.state).onToolResult(def.name, isFailedResult(result));
      return hint ? `${result}\n\n${hint}` : result;
    },
  };
}

/**
 * A scrubber for one model response's text deltas: echoed `<memory-context>`
 * blocks never reach the user, even when a tag is split across deltas.
 * Call `end()` when the response ends to release any held-back text.
 */
export function createDeltaScrubber(): { feed(delta: string): string; end(): string } {
  const s = new MemoryContextScrubber();
  return { feed: (d) => s.feed(d), end: () => s.flush() };
}

/** A whole reply without the `<memory-context>` blocks the model echoed (the scrubber's rule, on a finished text). */
export function scrubReply(text: string): string {
  return scrubMemoryContext(text);
}
