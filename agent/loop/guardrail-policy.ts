/**
 * What the tool-loop guardrails know about tools and results, as Hermes Agent
 * has it: which tools change things (never "no progress", and a success of
 * theirs is progress for every failing call), which fail as a matter of course
 * (a red test run is diagnosis, not a loop), which platforms have nobody
 * watching, and when a result reads as a failure.
 */

/** Tools with side effects: repeating one with the same result is not a sign of a loop. Pollers (process) included. */
export const MUTATING_TOOLS: ReadonlySet<string> = new Set([
  "terminal",
  "execute_code",
  "write_file",
  "patch",
  "todo",
  "memory",
  "skill_manage",
  "send_message",
  "cronjob",
  "delegate_task",
  "process",
  "browser_click",
  "browser_type",
  "browser_press",
  "browser_scroll",
  "browser_navigate",
]);

/** Tools whose failures are ordinary work output: different failing commands never halt the turn. */
export const FAILURE_TOLERANT_TOOLS: ReadonlySet<string> = new Set(["terminal", "execute_code", "process", "browser_navigate", "web_extract"]);

/** A success of one of these is progress: the next retry of a failing call is a new experiment (edit, then re-run). */
export const PROGRESS_TOOLS: ReadonlySet<string> = new Set([
  "write_file",
  "patch",
  "terminal",
  "execute_code",
  "process",
  "delegate_task",
  "send_message",
  "cronjob",
  "todo",
  "memory",
  "skill_manage",
  "browser_click",
  "browser_type",
  "browser_press",
  "browser_navigate",
]);

/** Platforms where someone is at the keyboard; on every other one (Telegram, Discord, Slack, cron …) loops run unattended. */
export const ATTENDED_PLATFORMS: ReadonlySet<string> = new Set(["cli", "api", "subagent"]);

export function isUnattended(platform: string): boolean {
  const p = platform.trim().toLowerCase();
  return p !== "" && !ATTENDED_PLATFORMS.has(p);
}

/**
 * Whether a tool result reports failure: a JSON object with a truthy `error`
 * or `failed`, `success: false` / `ok: false`, or a non-zero `exit_code`; or
 * text that starts with "Error".
 */
export function resultLooksFailed(content: string): boolean {
  const head = content.trimStart();
  if (head.startsWith("Error")) return true;
  if (!head.startsWith("{")) return false;
  try {
    const v = JSON.parse(head) as Record<string, unknown>;
    const exit = v["exit_code"];
    return Boolean(v["error"]) || Boolean(v["failed"]) || v["success"] === false || v["ok"] === false || (typeof exit === "number" && exit !== 0);
  } catch {
    // Not JSON (e.g. a truncated result): no failure signal to read.
    return false;
  }
}
