/**
 * Tool progress lines while a turn runs (config agent.tool_progress):
 * off = none, new = when the agent switches to another tool, all = every call.
 */
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
