/**
 * Tool progress lines while a turn runs (config agent.tool_progress):
 * off = none, new = when the agent switches to another tool, all = every call.
 * Adapters that show progress themselves (Adapter.progress) get every event instead.
 */
import type { TurnProgress } from "../../adapters/types.js";
import type { TurnEvent } from "./ports.js";

const PREVIEW_MAX = 60;

export type ProgressMode = "off" | "new" | "all";

export function progressFilter(mode: ProgressMode): (toolName: string, preview: string) => string | null {
  let previous: string | null = null;
  return (toolName, preview) => {
    const changed = toolName !== previous;
    previous = toolName;
    if (mode === "off" || (mode === "new" && !changed)) return null;
    const p = preview.replace(/\s+/g, " ").trim();
    const shown = p.length > PREVIEW_MAX ? `${p.slice(0, PREVIEW_MAX - 1)}…` : p;
    return shown ? `⚙️ ${toolName}: ${shown}` : `⚙️ ${toolName}`;
  };
}

/** What an adapter that shows progress (Adapter.progress) sees of a turn event; null for the rest. */
export function progressOf(e: TurnEvent): TurnProgress | null {
  if (e.type === "tool_start") return { kind: "tool_start", tool: e.toolName, preview: e.preview };
  if (e.type === "tool_end") return { kind: "tool_end", tool: e.toolName, ok: !e.isError, durationMs: e.durationMs ?? 0, preview: e.preview ?? "" };
  return e.type === "progress" ? e.progress : null;
}
